"""The one rule for the names of the files quietload writes: a file is named after what it holds
(its scenario, what kind of file it is, the ``--set`` overrides, the seed), so that a run with
other settings never overwrites another's, and every part is safe in a file name.

A run is named after its scenario's file (``scenario_stem``), not the ``name:`` inside it: an
edited copy of a scenario keeps the original's ``name:`` and would otherwise replace its results.
``<scenario>[-<kind>][-<overrides>]-seed<N>.json`` for a run
(``paypay-glue-2gb-linger.ms=10-compression.type=zstd-seed1.json``), ``-spread-seed<N>-<M>.json``
for the spread of several, ``<scenario>-<what>`` for a scenario's plan, study, recommendation,
tuned scenario and snippets. ``batch.producer.``, ``batch.spark.`` and ``batch.`` are left out
of an override's key; characters other than letters, digits, ``.``, ``_``, ``=`` and ``-``
become ``-``; a list of overrides longer than 120 characters is cut and ends in a digest of the
whole list, so two runs never share a name.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

RESULTS = Path("results")
STACK_RUN_DIR = Path(".quietload") / "stack"   # the local stack's state, data and logs
# Keys whose last part names them well enough in a file name (batch.producer.linger.ms -> linger.ms).
_SHORT_PREFIXES = ("batch.producer.", "batch.spark.", "batch.")
_NAME_MAX = 120


def file_part(text: str) -> str:
    """``text`` as a part of a file name."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "-", text).strip("-")


def scenario_stem(scenario_file: str | Path) -> str:
    """What a scenario file's runs are named after: its file name without the extension
    (``workloads/catalog/paypay-glue-2gb.yaml`` -> ``paypay-glue-2gb``)."""
    return file_part(Path(scenario_file).stem)


def _overrides_label(overrides: list[str] | tuple[str, ...]) -> str:
    parts = []
    for override in overrides:
        key, _, value = override.partition("=")
        key = next((key[len(p):] for p in _SHORT_PREFIXES if key.startswith(p)), key)
        parts.append(file_part(f"{key}={value}"))
    label = "-".join(parts)
    if len(label) > _NAME_MAX:
        digest = hashlib.sha256("\n".join(overrides).encode()).hexdigest()[:8]
        label = f"{label[:_NAME_MAX - 9].rstrip('-')}-{digest}"
    return label


def _stem(scenario_name: str, overrides: list[str] | tuple[str, ...], kind: str) -> str:
    return "-".join(part for part in (file_part(scenario_name), kind, _overrides_label(overrides)) if part)


def result_path(scenario_name: str, overrides: list[str] | tuple[str, ...], seed: int, kind: str = "",
                directory: Path = RESULTS) -> Path:
    """``<directory>/<scenario>[-<kind>][-<overrides>]-seed<N>.json``: one run's RunResult."""
    return directory / f"{_stem(scenario_name, overrides, kind)}-seed{seed}.json"


def spread_path(scenario_name: str, overrides: list[str] | tuple[str, ...], first_seed: int, last_seed: int,
                kind: str = "", directory: Path = RESULTS) -> Path:
    """``<directory>/<scenario>[-<kind>][-<overrides>]-spread-seed<N>-<M>.json``: the spread of
    the runs on seeds N to M."""
    return directory / f"{_stem(scenario_name, overrides, kind)}-spread-seed{first_seed}-{last_seed}.json"


def scenario_path(scenario_name: str, what: str, directory: Path = RESULTS,
                  overrides: list[str] | tuple[str, ...] = ()) -> Path:
    """``<directory>/<scenario>[-<overrides>]-<what>``: a file of the scenario's as a whole, e.g.
    ``plan.json``, ``study.json``, ``recommendation.yaml``."""
    return directory / f"{_stem(scenario_name, overrides, '')}-{what}"
