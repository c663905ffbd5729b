"""Parsing of sizes, durations and rates as people write them in scenario files, and their
rendering back (sizes, seed lists).

Sizes are binary (``128KB`` = 131072 bytes), as Kafka's own documentation means them.
"""
from __future__ import annotations

import math
import re
from typing import Sequence

from workloads.errors import ScenarioError

_SIZE_UNITS = {
    "b": 1, "kb": 1024, "kib": 1024, "mb": 1024**2, "mib": 1024**2,
    "gb": 1024**3, "gib": 1024**3, "tb": 1024**4, "tib": 1024**4,
}
_TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
LONG_MAX = 2**63 - 1   # Java's long: the largest size a Kafka or Spark setting holds
_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_SIZE_RE = re.compile(_NUMBER + r"\s*([a-zA-Z]*)$")
_RATE_RE = re.compile(_NUMBER + r"\s*([a-zA-Z]*)\s*/\s*s$")


_WHOLE_RE = re.compile(r"[0-9]{1,19}")


def whole_number(text: str) -> int | None:
    """``text`` as a whole number when it is written in ASCII digits and fits Java's long (Kafka's and
    Spark's settings); else None, and the text stays as it was written for its reader to name."""
    return int(text) if _WHOLE_RE.fullmatch(text) and int(text) <= LONG_MAX else None


def finite(number: float, field: str, value: object) -> float:
    """Digits past float's range (a 400-digit size) or YAML's ``.inf``/``.nan`` (or a text ``inf``) are no setting."""
    if not math.isfinite(number):
        text = str(value)
        raise ScenarioError(field, f"expected a finite number, got {value!r}" if isinstance(value, float) or not re.search("[0-9]", text)
                            else f"{text[:20]}{'...' if len(text) > 20 else ''} is too large a number")
    return number


def parse_bytes(value: object, field: str) -> int:
    """``128KB`` -> 131072; a bare integer is a byte count."""
    if isinstance(value, bool):
        raise ScenarioError(field, f"expected a size like 128KB, got {value!r}")
    if isinstance(value, int):
        number, unit = value, "b"
    else:
        match = _SIZE_RE.match(str(value).strip())
        if not match:
            raise ScenarioError(field, f"expected a size like 128KB or 2GB, got {value!r}")
        number, unit = float(match.group(1)), (match.group(2) or "b").lower()
        if unit not in _SIZE_UNITS:
            raise ScenarioError(field, f"unknown size unit {match.group(2)!r} in {value!r} (use B, KB, MB, GB, TB)")
    if isinstance(number, float):
        number = finite(number * _SIZE_UNITS[unit], field, value)
    if number < 0:
        raise ScenarioError(field, f"must not be negative, got {value!r}")
    if number > LONG_MAX:
        raise ScenarioError(field, f"{str(value)[:20]}{'...' if len(str(value)) > 20 else ''} is more than the largest size Kafka and Spark take (2^63-1 bytes)")
    return int(round(number))


def parse_seconds(value: object, field: str) -> float:
    """``10ms`` -> 0.01, ``5min`` -> 300.0. A bare number is refused: the unit must be said."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        if value == 0 and not isinstance(value, bool):
            return 0.0
        raise ScenarioError(field, f"expected a duration with a unit like 10ms or 5min, got {value!r}")
    match = _SIZE_RE.match(str(value).strip())
    unit = (match.group(2) or "").lower() if match else ""
    if not match or unit not in _TIME_UNITS:
        raise ScenarioError(field, f"expected a duration like 10ms, 2s or 5min, got {value!r}")
    return finite(float(match.group(1)) * _TIME_UNITS[unit], field, value)


def parse_milliseconds(value: object, field: str) -> float:
    """Kafka's ``*.ms`` properties: a bare number means milliseconds, as in Kafka."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        finite(float(value) if isinstance(value, float) or abs(value) < 2**1000 else math.inf, field, value)
        if value < 0:
            raise ScenarioError(field, f"must not be negative, got {value!r}")
        milliseconds = float(value)
    elif not isinstance(value, str):      # true, a list: neither a count of milliseconds nor a duration's text
        raise ScenarioError(field, f"expected a duration like 10 or 10ms, got {value!r}")
    else:
        milliseconds = parse_seconds(value, field) * 1000.0
    if milliseconds > LONG_MAX:     # Kafka's *.ms settings are Java longs (ConfigDef Type.LONG)
        raise ScenarioError(field, f"{str(value)[:20]}{'...' if len(str(value)) > 20 else ''} is more milliseconds than "
                                   "Kafka takes (2^63-1, a Java long)")
    return milliseconds


def parse_int_milliseconds(value: object, field: str) -> float:
    """Kafka's ``*.ms`` settings of Java type int (``replica.fetch.wait.max.ms``, ``fetch.max.wait.ms``)."""
    milliseconds = parse_milliseconds(value, field)
    if milliseconds > 2**31 - 1:
        raise ScenarioError(field, f"{str(value)[:20]}{'...' if len(str(value)) > 20 else ''} is more milliseconds than "
                                   "Kafka takes (2^31-1, a Java int)")
    return milliseconds


def parse_byte_rate(value: object, field: str) -> float:
    """``40MB/s`` -> bytes per second."""
    match = _RATE_RE.match(str(value).strip())
    if not match:
        raise ScenarioError(field, f"expected a byte rate like 40MB/s, got {value!r}")
    return float(parse_bytes(match.group(1) + match.group(2), field))


def parse_record_rate(value: object, field: str) -> float:
    """``200/s`` -> records per second."""
    match = re.match(_NUMBER + r"\s*/\s*s$", str(value).strip())
    if not match:
        raise ScenarioError(field, f"expected a record rate like 200/s, got {value!r}")
    return finite(float(match.group(1)), field, value)


def format_bytes(size: float) -> str:
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if abs(size) >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size:.0f} B"


def format_seeds(seeds: Sequence[int]) -> str:
    """``seed 1``; ``seeds 1-3`` for consecutive seeds; else ``seeds 3, 7``."""
    seeds = list(seeds)
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}-{seeds[-1]}"
    return "seeds " + ", ".join(str(seed) for seed in seeds)
