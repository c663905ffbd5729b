"""Every file quietload writes besides a run's RunResult, by kind: the ``kind`` it carries, its one
reader and its one writer. The documents are built where their figures are (a study in the tuner,
a plan in its planner, a gate result in the gate); here they are only tagged, checked and written.

| file                          | tagged by                      | format                       |
| ----------------------------- | ------------------------------ | ---------------------------- |
| run (``simulate``, ``live``)  | ``schema_version`` (RunResult) | JSON                         |
| study (``tune``)              | ``kind: quietload-study``      | JSON                         |
| recommendation (``tune``)     | ``kind: quietload-recommendation`` | YAML (strict: as a scenario) |
| plan (``plan``)               | ``kind: quietload-plan``       | JSON                         |
| schedule (``plan --schedule``)| ``kind: quietload-schedule``   | JSON                         |
| gate result (``check --json``)| ``gate: quietload.check``      | JSON                         |
| policy proof (``policy``)     | ``kind: quietload-policy-proof`` | JSON                       |
| calibration profile           | none: a cost profile (``workloads.CostProfile``) | YAML       |
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from simulator.contract.errors import ResultError
from simulator.contract.result import RunResult, read_document
from simulator.contract.schema import check
from workloads import CostProfile, Gate, ScenarioError
from workloads.reader import dump_yaml, read_yaml
from workloads.tuning import KNOBS


@dataclass(frozen=True)
class FileKind:
    """A kind of file: the tag its documents carry first, what they must hold, and how one is refused."""

    kind: str
    what: str                             # how a message names a file of this kind
    required: tuple[str, ...]
    schema_version: int | None = None
    tag: str = "kind"                     # the key that holds ``kind``
    says_found: bool = True               # a refusal names the schema version found
    written_by: str = ""                  # the command whose files these are, for a refusal
    figures: Callable[[dict[str, Any], str], None] | None = None   # what its figures must be, checked on reading

    def document(self, **content: Any) -> dict[str, Any]:
        """``content`` under this kind's tag (and schema version), in the order given."""
        head: dict[str, Any] = {self.tag: self.kind}
        if self.schema_version is not None:
            head["schema_version"] = self.schema_version
        return {**head, **content}

    def tags(self, data: Any) -> bool:
        """Whether ``data`` (a file's document) carries this kind's tag."""
        return isinstance(data, dict) and data.get(self.tag) == self.kind

    def holds(self, path: str | Path) -> bool:
        """Whether ``path`` is a readable file of this kind (by its tag)."""
        try:
            return self.tags(read_document(path))
        except ResultError:
            return False

    def refusal(self, data: Any) -> str:
        if self.schema_version is None:
            return f"not a {self.what} of quietload {self.written_by}".rstrip()
        found = data.get("schema_version") if isinstance(data, dict) else type(data).__name__
        return f"not a quietload {self.what} of schema_version {self.schema_version}" + (
            f" (found {found!r})" if self.says_found else "")

    def check(self, data: Any, source: str) -> dict[str, Any]:
        """``data`` if it is a document of this kind, else one ResultError naming what is wrong."""
        if (not isinstance(data, dict) or data.get(self.tag) != self.kind
                or (self.schema_version is not None and data.get("schema_version") != self.schema_version)):
            raise ResultError(f"{source}: {self.refusal(data)}")
        if missing := [key for key in self.required if key not in data]:
            raise ResultError(f"{source}: {self.what} lacks {', '.join(missing)}")
        if self.figures is not None:
            self.figures(data, source)
        return data

    def read(self, path: str | Path) -> dict[str, Any]:
        return self.check(read_document(path), str(path))

    def write(self, document: dict[str, Any], path: str | Path) -> Path:
        """The document as JSON (one space of indent, as every quietload JSON file)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.check(document, str(path)), indent=1) + "\n")
        return path

    def read_yaml(self, path: str | Path) -> dict[str, Any]:
        """A document of this kind in YAML, parsed as strictly as a scenario (no aliases, bounded
        nesting and size); anything else is one ResultError naming the file."""
        try:
            data = read_yaml(path, "")
        except ScenarioError as error:
            raise ResultError(str(error)) from None
        return self.check(data, str(path))

    def write_yaml(self, document: dict[str, Any], path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_yaml(self.check(document, str(path))))
        return path


def _takes(knob: Any, value: Any) -> bool:
    try:
        knob.parse(value, knob.override_key)
    except ScenarioError:
        return False
    return True


def _knob_value(knob: Any) -> Any:
    """A knob's value as a study or a recommendation holds it, from its record: a choice's a name (a codec,
    acks, a broker type) unless it may be unset (repartition: a count or none), a range's a number, at
    least 0 where its parser takes 0 (linger.ms), else greater than 0; then what the parser takes."""
    number = "C" if _takes(knob, 0) else "L"
    if knob.kind == "choice":
        return ("?", number) if _takes(knob, None) else "S"
    return number


_KNOB_VALUES = {name: _knob_value(knob) for name, knob in KNOBS.items()}


def _knob_values(params: Any, where: str, source: str) -> None:
    check(params, {}, where, source)
    for name, value in params.items():
        at = f"{where}.{name}"
        if name not in KNOBS:
            raise ResultError(f"{source}: {at} is no setting quietload tunes (known: {', '.join(sorted(KNOBS))})")
        check(value, _KNOB_VALUES[name], at, source)
        knob = KNOBS[name]
        try:   # a byte rate as a scenario file writes it (``20971520B/s``), every other value as it is
            knob.parse(knob.override_value(value) if knob.unit == "byte_rate" else value, at)
        except ScenarioError as error:
            raise ResultError(f"{source}: {error}") from None


# What each file's figures must be (``simulator.contract.schema``; ``!``: required).
_BEFORE_AFTER = {"produce_requests": "C", "mean_batch_kb": "C", "compression_ratio": "C", "load_seconds": "C",
                 "p99_ms_during": {"*": "L"}, "p99_ms_before": {"*": "L"}}
_VALIDATION = ("?", {"seeds": ["I"], "held": "B", "pick": ("?", "I"),
                     "tried": [{"trial": "I", "held_on": ("?", "I"), "missed_on": ("?", "I"), "produce_requests": "C"}]})
_STUDY = {
    "scenario": {"name": "S", "source": "S", "overrides": ["S"], "digest": "S", "slas": ["S"]}, "study_name": "S", "storage": "S",
    "seed": "I", "model_seeds": ["I"], "sampler": "S", "prefer": "S", "baseline": _BEFORE_AFTER,
    "trials": [{"number!": "I", "params!": _knob_values, "values!": {"produce_requests!": "C", "load_seconds!": "C"},
                "constraints!": {"*": "N"}, "feasible!": "B", "overrides": ["S"],
                "figures": {**dict.fromkeys(("produce_requests", "batches", "mean_batch_bytes", "compression_ratio",
                                             "load_seconds", "wire_bytes"), "C"), "tenants": {"*": {"*": "L"}}}}],
    "failed_trials": "C",
    # trials stopped at their verdict: values and figures so far, never a pick
    "pruned_trials": [{"number!": "I", "params!": _knob_values, "pruned!": "S", "constraints!": {"*": "N"},
                       "values!": {"produce_requests!": "C", "load_seconds!": "C"}, "overrides": ["S"],
                       "figures": {**dict.fromkeys(("simulated_s", "load_s", "produce_requests", "load_seconds"), "C"),
                                   "tenants": {"*": {"*": "L"}}}}],
    "pareto_front": ["I"], "pick": ("?", "I"), "validation": _VALIDATION,
    # what tune recommends from the study, as the report's first screen shows it
    "recommended": ("?", {"trial!": "K", "meets_constraints!": "B", "params!": _knob_values, "missed!": ["S"],
                          "wider_lever": ("?", "S")}),
    "importances": ("?", {"*": "C"})}
_POINT = {"load_gb!": "L", "loads!": "I", "spacing_s!": "C"}
_TENANT_P99 = {"name!": "S", "p99_ms_during!": "L", "sla_p99_ms!": "L"}
_PLAN = {
    "scenario": "S", "source": "S", "overrides": ["S"], "evaluator": "S", "seed": "I", "seeds": ["I"], "refine_steps": "C",
    "slas": ["S"],
    "grid": {"load_gb": ["L"], "loads": ["I"], "spacing_s": ["C"]},
    "current_plan": {**_POINT, "ingest_gb_per_hour": "C", "feasible": "B"},
    "options": [{"name!": "S", "changes": {}, "max_ingest_gb_per_hour!": "C", "max_point": ("?", _POINT),
                 "first_breach!": ("?", {"tenant": "S", "p99_ms_during": "L", "sla_p99_ms": "L", "ingest_gb_per_hour": "C",
                                         **_POINT}),
                 "headroom!": "C", "headroom_at_least": "B", "ingest_tried_gb_per_hour": ["C"], "current_plan_feasible!": "B",
                 "caveat": "S"}],
    "points": [{"option!": "S", **_POINT, "current_plan!": "B", "ingest_gb_per_hour!": "C", "produce_requests!": "C",
                "load_seconds!": "C", "feasible!": "B", "seeds_run": "I",
                "tenants!": [_TENANT_P99]}]}
_SCHEDULE = {
    "scenario": "S", "source": "S", "overrides": ["S"], "evaluator": "S", "seed": "I", "seeds": ["I"], "runs": "C", "holds": "B",
    "window": {"open_s!": "C", "close_s!": "C", "length_s!": "L"}, "deadline_s": "L", "night_end_s": "C",
    "back_to_back_window_s": "L",
    "search": {"method": "S", "trials": "I", "sampler_seed": "I"},
    "jobs": [{"name!": "S", "client_id": "S", "earliest_s": "C", "deadline_s": "L", "start_s!": "C", "end_s!": "C",
              "alone_load_seconds": "C", "alone_holds": "B"}],
    "tenants": [_TENANT_P99],
    "change": ("?", [{"job!": "S", "found!": "B", "tried": "C", "lever": "S", "who": "S", "setting": "S",
                      "overrides": ["S"], "alone_load_seconds": "C", "alone_tenants": [_TENANT_P99]}]),
    "pruned": "C",
    "trials": [{"trial!": "I", "starts_s!": ["C"], "ends_s": ["C"], "night_end_s": "C", "holds!": "B",
                "over_sla": ["S"], "violation": "C", "pruned": "S",
                "figures": {"simulated_s": "C", "load_s": "C", "produce_requests": "C",
                            "tenants": {"*": {"p99_ms_during": "L", "sla_p99_ms": "L"}}}}],
    "timeline": {"second": ["C"], "p99_ms": {"*": ["C"]}, "sla_p99_ms": {"*": "L"},
                 "jobs": [{"name!": "S", "start_s!": "C", "end_s!": "C"}]}}
_RECOMMENDATION = {"scenario": "S", "source": "S", "seed": "I", "model_seeds": ["I"], "validation": _VALIDATION,
                   "trial": "K", "meets_constraints": "B", "missed": ["S"], "params": _knob_values, "overrides": ["S"],
                   "predicted": {"before": _BEFORE_AFTER, "after": _BEFORE_AFTER}, "wider_lever": ("?", "S"),
                   "slas": ["S"], "marginal": ("?", "S")}
VERDICT_STATUSES = ("pass", "fail", "skipped")   # a gate result's verdicts, as the gate writes them
_GATE = {"passed": "B", "outcome": "S", "scenario": "S", "evaluator": "S", "seed": "I", "seeds": ["I"],
         "thresholds": {"handler_idle_min_pct": "P", "cpu_max_pct": "P", "requests_per_broker_max": "L", "deadline_s": "L"},
         "verdicts": [{"rule!": "S", "status!": "S", "reason": "S", "margin": "S", "tightness": "C", "job": "S"}],
         "recommendations": ["S"], "paste": ["S"], "change": ["S"], "paste_needs": "S",
         "slas": [{"name!": "S", "sla_p99": "S", "sla_p99_ms": ["L"]}], "sla_sources": ["S"],
         "marginal": ("?", "S"), "producer_properties": ["S"]}


def _under(rules: dict[str, Any]) -> Callable[[dict[str, Any], str], None]:
    return lambda document, source: check(document, rules, "", source)


STUDY = FileKind("quietload-study", "study", ("scenario", "trials", "pareto_front", "pick", "importances"),
                 schema_version=1, figures=_under(_STUDY))
PLAN = FileKind("quietload-plan", "plan", ("scenario", "options", "points", "current_plan"), schema_version=1,
                says_found=False, figures=_under(_PLAN))
SCHEDULE = FileKind("quietload-schedule", "schedule", ("scenario", "window", "jobs", "tenants", "holds", "timeline"),
                    schema_version=1, says_found=False, figures=_under(_SCHEDULE))
RECOMMENDATION = FileKind("quietload-recommendation", "recommendation", ("scenario", "params", "overrides"),
                          written_by="tune", figures=_under(_RECOMMENDATION))


def _gate_figures(gate: dict[str, Any], source: str) -> None:
    """A gate result's figures, and its verdicts' statuses one the gate writes."""
    check(gate, _GATE, "", source)
    for i, verdict in enumerate(gate["verdicts"]):
        if verdict["status"] not in VERDICT_STATUSES:
            raise ResultError(f"{source}: verdicts[{i}].status must be one of {', '.join(VERDICT_STATUSES)}, "
                              f"got {verdict['status']!r}")


_NIGHT = {"seeds": ["K"], "produce_requests": "C", "load_seconds": "C", "within_sla": "B",
          "tenants!": [{"name!": "S", "sla_p99_ms!": "L", "p99_ms_before": "L", "p99_ms_during!": "L", "within_sla": "B"}]}
_POLICY_PROOF = {"scenario": "S", "source": "S", "overrides": ["S"], "jobs_at_once": "I", "jobs": ["S"],
                 "model_seeds": ["I"], "held_out_seeds": ["I"], "held": "B", "trials": "C", "pruned": "C", "trial": "I", "params": {},
                 "notes": ["S"], "policy": {"name": "S", "classes": [{"name!": "S"}]},
                 "with_policy": _NIGHT, "without_policy": _NIGHT, "slas": ["S"]}
# quietload policy's proof: the worst night with the policy and without it (the policy itself is its YAML)
POLICY_PROOF = FileKind("quietload-policy-proof", "policy proof",
                        ("scenario", "jobs", "held", "held_out_seeds", "policy", "with_policy", "without_policy"),
                        schema_version=1, says_found=False, written_by="policy", figures=_under(_POLICY_PROOF))
GATE = FileKind("quietload.check", "gate result", ("passed", "scenario", "evaluator", "verdicts"), tag="gate",
                written_by="check --json", figures=_gate_figures)
KINDS = (PLAN, SCHEDULE, STUDY, GATE, POLICY_PROOF)   # the files ``report`` takes besides RunResults, told apart by their tags

is_study_file, read_study = STUDY.holds, STUDY.read
is_plan_file, read_plan, write_plan = PLAN.holds, PLAN.read, PLAN.write
is_schedule_file, read_schedule = SCHEDULE.holds, SCHEDULE.read
is_gate_file, read_gate = GATE.holds, GATE.read
read_recommendation = RECOMMENDATION.read_yaml


def read_report_input(path: str | Path) -> tuple[FileKind | None, Any]:
    """A file ``report`` takes, read once: a plan, a study or a gate result by its tag (with its
    kind), else a RunResult (kind None)."""
    document = read_document(path)
    for kind in KINDS:
        if kind.tags(document):
            return kind, kind.check(document, str(path))
    return None, RunResult.from_dict(document, str(path))


# A gate result's ``thresholds``, named with their units as the files have always had them.
_GATE_THRESHOLDS = {"handler_idle_min": "handler_idle_min_pct", "cpu_max": "cpu_max_pct",
                    "requests_per_broker_max": "requests_per_broker_max", "deadline": "deadline_s"}


def gate_thresholds(gate: Gate) -> dict[str, Any]:
    """The scenario's ``check:`` thresholds as a gate result writes them."""
    return {name: getattr(gate, field) for field, name in _GATE_THRESHOLDS.items()}


def thresholds_of_gate(gate: dict[str, Any]) -> Gate:
    """The thresholds a gate result (``check --json``) judged with; KeyError or TypeError when it
    holds none, or names one quietload does not know."""
    written = gate["thresholds"]
    if not isinstance(written, dict) or set(written) - set(_GATE_THRESHOLDS.values()):
        raise TypeError("not a gate result's thresholds")
    return Gate(**{field: written[name] for field, name in _GATE_THRESHOLDS.items() if written.get(name) is not None})


def write_profile(document: dict[str, Any], path: str | Path, width: int = 110) -> Path:
    """A calibration profile: a cost profile in YAML, read back as one before it is kept."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml(document, width=width))
    read_profile(path)
    return path


def read_profile(path: str | Path) -> CostProfile:
    return CostProfile.load(str(path))
