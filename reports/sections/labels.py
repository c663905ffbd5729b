"""Runs in a report are named by what differs between them ("linger.ms=10, zstd"), never by a
number: a reader forwarding the report must see which run had which settings.

The settings come from each result's resolved ``scenario`` (so any two results compare, whoever
wrote them); the keys a run's ``overrides`` name (``--set``) come first, in the user's order.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulator.contract import RunResult
from workloads.settings import BATCH_SIZE_CONFIG, BUFFER_MEMORY_CONFIG, COMPRESSION_TYPE_CONFIG

# Parts of a scenario that say how to tune, plan or judge a job, not what the run did
NOT_SETTINGS = frozenset({"name", "source", "description", "assumptions", "overrides", "tune", "plan", "check"})
# Settings whose value alone says what it is ("zstd" rather than "compression.type=zstd"; "none": "no compression")
VALUE_ALONE = frozenset({COMPRESSION_TYPE_CONFIG})
# Settings in bytes, shown as a person types them in a scenario file ("256MB")
BYTE_SETTINGS = frozenset({BATCH_SIZE_CONFIG, BUFFER_MEMORY_CONFIG, "max.request.size", "size", "record_size",
                           "spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes",
                           "replica.fetch.max.bytes", "dirty_cache", "producer_byte_rate"})
MOST_SETTINGS_BESIDE_A_NAME = 3   # runs of different scenarios: their names say it when more differ
MOST_SETTINGS_IN_A_LABEL = 2      # more are counted ("+3 more") and listed once in the legend (``settings_legend``)


def flatten(value: Any, path: tuple = ()) -> dict[tuple, Any]:
    """Every leaf of a scenario mapping by its path; list items by index (as ``--set`` names them)."""
    if isinstance(value, dict):
        leaves: dict[tuple, Any] = {}
        for key, item in value.items():
            if not path and key in NOT_SETTINGS:
                continue
            leaves.update(flatten(item, (*path, key)))
        return leaves
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return {leaf: v for i, item in enumerate(value) for leaf, v in flatten(item, (*path, i)).items()}
    return {path: value}


def override_keys(result: RunResult) -> list[str]:
    """The dotted keys the run's ``overrides`` set (``batch.producer.linger.ms``), if it has any."""
    overrides = getattr(result, "overrides", None) or result.scenario.get("overrides") or []
    if isinstance(overrides, dict):
        return [str(key) for key in overrides]
    return [str(item).split("=", 1)[0] for item in overrides]


def dotted(path: tuple) -> str:
    return ".".join(str(part) for part in path)


def differing(results: Sequence[RunResult]) -> list[tuple]:
    """Paths whose value is not the same in every result; overridden keys first."""
    leaves = [flatten(result.scenario) for result in results]
    paths = list(dict.fromkeys(path for run in leaves for path in run))
    differ = [path for path in paths if len({repr(run.get(path)) for run in leaves}) > 1]
    order = list(dict.fromkeys(key for result in results for key in override_keys(result)))
    return sorted(differ, key=lambda path: order.index(dotted(path)) if dotted(path) in order else len(order))


def setting_name(path: tuple, paths: Sequence[tuple], scenario: dict) -> str:
    """The property's own name (``linger.ms``) unless another differing path ends the same way;
    a list item by its ``name`` (``payment-api.sla_p99``)."""
    for depth in range(1, len(path) + 1):
        tail = path[-depth:]
        if sum(1 for other in paths if other[-depth:] == tail) == 1:
            break
    indices = [i for i, part in enumerate(path) if isinstance(part, int)]
    if indices:   # a neighbour's setting says whose: from its list item on
        depth = max(depth, len(path) - indices[-1])
    parts: list[str] = []
    for i in range(len(path) - depth, len(path)):
        if isinstance(path[i], int):
            item = _item(scenario, path[:i + 1])
            parts.append(str(item.get("name", path[i])) if isinstance(item, dict) else str(path[i]))
        else:
            parts.append(str(path[i]))
    return ".".join(parts)


def _item(scenario: Any, path: tuple) -> Any:
    for part in path:
        try:
            scenario = scenario[part]
        except (KeyError, IndexError, TypeError):
            return None
    return scenario


def _one_of(name: str, group: frozenset[str]) -> bool:
    """Whether a shown name (``linger.ms``, ``payment-api.record_size``) ends in a property of ``group``."""
    return any(name == prop or name.endswith("." + prop) for prop in group)


def render_setting(name: str, value: Any) -> str:
    if value is None:
        shown = "none"
    elif isinstance(value, bool):
        shown = str(value).lower()
    elif _one_of(name, BYTE_SETTINGS):
        shown = _bytes(value)
    elif isinstance(value, float) and value.is_integer():
        shown = str(int(value))
    elif isinstance(value, list):
        shown = ".".join(str(v) for v in value)   # a client version [2, 8, 1]
    else:
        shown = str(value)
    if _one_of(name, VALUE_ALONE):
        return "no compression" if shown == "none" else shown
    return f"{name}={shown}"


def _bytes(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return str(value)
    for unit, scale in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if value >= scale and value % scale == 0:
            return f"{int(value // scale)}{unit}"
    return f"{value:g}"


def _differences(results: Sequence[RunResult]) -> list[tuple[str, list[str], list[str]]]:
    """Per result: the head (its scenario's name, or ""), every differing setting as shown, and the
    evaluator and seed when they differ."""
    names = [str(r.scenario.get("name", "scenario")) for r in results]
    several_names = len(set(names)) > 1
    overall = differing(results)
    out = []
    for name, result in zip(names, results):
        group = [r for r, n in zip(results, names) if n == name]
        if not several_names:
            paths = overall
        elif len(group) > 1:
            paths = differing(group)
        else:
            paths = overall if len(overall) <= MOST_SETTINGS_BESIDE_A_NAME else []
        leaves = flatten(result.scenario)
        base = _base(group)
        if base is not None:   # what differs from the scenario as written; the scenario's own run names none
            written = flatten(base.scenario)
            paths = [path for path in paths if repr(leaves.get(path)) != repr(written.get(path))]
        settings = [render_setting(setting_name(path, paths, result.scenario), leaves.get(path)) for path in paths]
        extras = []
        if len({r.evaluator for r in group if several_names} or {r.evaluator for r in results}) > 1:
            extras.append(result.evaluator)
        if len({r.seed for r in results}) > 1:
            extras.append(f"seed {result.seed}")
        out.append((name if several_names or not (settings or extras) else "", settings, extras))
    return out


def _base(group: Sequence[RunResult]) -> RunResult | None:
    """The one run of the scenario as written (no ``--set``) when the others of its scenario have some."""
    written = [result for result in group if not override_keys(result)]
    return written[0] if len(written) == 1 and len(group) > 1 else None


def _short(settings: list[str]) -> list[str]:
    if len(settings) <= MOST_SETTINGS_IN_A_LABEL:
        return settings
    return [*settings[:MOST_SETTINGS_IN_A_LABEL], f"+{len(settings) - MOST_SETTINGS_IN_A_LABEL} more"]


def run_labels(results: Sequence[RunResult], sources: Sequence[str | Path] | None = None) -> list[str]:
    """One label per result, made of what tells it from the others: its scenario's name when the
    names differ, the settings that differ (among the runs of its scenario when there are several,
    else among all when few differ; from the scenario as written when one run of it has no
    ``--set`` and the others have, that run named by its scenario alone; past two, counted:
    ``settings_legend`` lists them), the
    evaluator and the seed when they differ; runs alike in all of these are told apart by their
    file's name."""
    differences = _differences(results)
    labels = [_label(head, [*_short(settings), *extras]) for head, settings, extras in differences]
    # counted settings that leave two runs alike are named in full
    labels = [_label(head, [*settings, *extras]) if labels.count(label) > 1 else label
              for label, (head, settings, extras) in zip(labels, differences)]
    if sources is not None:
        files = [Path(s).name if [Path(o).name for o in sources].count(Path(s).name) == 1 else str(s) for s in sources]
        labels = [f"{label} [{file}]" if labels.count(label) > 1 else label for label, file in zip(labels, files)]
    return labels


def _label(head: str, parts: list[str]) -> str:
    return f"{head} ({', '.join(parts)})" if head and parts else head or ", ".join(parts)


def settings_legend(results: Sequence[RunResult], labels: Sequence[str]) -> list[list[str]]:
    """[label, every setting that differs] for each run whose label counts some of them, once per report."""
    return [[label, ", ".join(settings)] for label, (_, settings, _) in zip(labels, _differences(results))
            if len(settings) > MOST_SETTINGS_IN_A_LABEL]
