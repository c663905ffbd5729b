"""A study's scenario as its identity: every field a trial's outcome depends on (``scenario_fields``),
their digest (a stored study resumes only on a scenario with the same one), and what differs between
a stored study's scenario and this one, in the scenario's own paths."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from typing import Any

from simulator.contract import explain as words
from workloads import CostProfile, Scenario
from workloads._fields import file_key, unsaid

_ABSENT = object()


# What a trial's outcome does not depend on: labels, and what only picks among trials or plans
# (tune.trials is how a study is resumed to more trials); of check, only the deadline is a constraint.
_NOT_RUN = ("name", "description", "assumptions", "source", "plan", "tune")
_CHANGES_SHOWN = 4


def scenario_fields(scenario: Scenario) -> dict[str, Any]:
    """The resolved scenario (``--set`` applied, cost profile loaded) as ``{file path: value}``, e.g.
    ``{"tenants[0].sla_p99": 10.0}``: every field a trial's outcome depends on."""
    fields: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if path == "batch" and not scenario.listed:   # one job as a mapping: its keys as they always were
            value = value[0]
        if dataclasses.is_dataclass(value):
            for item in dataclasses.fields(value):
                if item.metadata.get("internal") or (item.name == "dataset" and getattr(value, "own_dataset", True) is False):
                    continue   # how the file said it, or the scenario's files a job reads: not the job's own
                if isinstance(value, CostProfile) and item.name == "error":
                    continue   # the model's error at its validation: no run's outcome depends on it
                if not unsaid(item, getattr(value, item.name)):   # a setting added later, left unset: as before it
                    walk(getattr(value, item.name), f"{path}.{file_key(item)}" if path else file_key(item))
        elif isinstance(value, dict):
            for key in sorted(value, key=str):
                walk(value[key], f"{path}.{key}")
        elif isinstance(value, (tuple, list)):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")
            if not value:
                fields[path] = []
        else:
            fields[path] = value if value is None or isinstance(value, (bool, int, float)) else str(value)
    walk(scenario, "")
    return {path: value for path, value in fields.items() if re.split(r"[.\[]", path)[0] not in _NOT_RUN
            and not (path.startswith("check.") and path != "check.deadline") and path != "profile.provenance"}


def scenario_digest(fields: dict[str, Any]) -> str:
    """A digest of ``scenario_fields``: equal for scenarios whose trials would run alike."""
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def scenario_changes(stored: dict[str, Any], fields: dict[str, Any]) -> str:
    """What differs between a study's scenario and this one, in the scenario's own paths:
    ``tenants[0].sla_p99 10.0 -> 20.0, ...``."""
    def shown(value: Any) -> str:
        return "(unset)" if value is _ABSENT else f"{value:g}" if isinstance(value, float) else str(value)
    changed = [words.changed(path, shown(stored.get(path, _ABSENT)), shown(fields.get(path, _ABSENT)))
               for path in sorted(set(stored) | set(fields)) if stored.get(path, _ABSENT) != fields.get(path, _ABSENT)]
    more = len(changed) - _CHANGES_SHOWN
    return ", ".join(changed[:_CHANGES_SHOWN]) + (f" and {more} more" if more > 0 else "")
