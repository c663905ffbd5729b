"""`quietload calibrate`: a cost profile fitted to runs of the calibration design.

The design's runs (live, or the model's for a check) give each run's handler-busy and CPU
seconds against what its requests were made of; ``fit.fit_costs`` turns them into the broker's
cost terms. The Spark append rate is measured directly: the Kafka value bytes the job wrote
over its load's seconds, in the runs whose producer never waits for the broker (full batches,
no codec). Every other figure is the base profile's, marked assumed. The profile is written
with its provenance: when, the Kafka version, the machine, every run used and the figures read
from it, each parameter's value, source and uncertainty, and every figure's residual.
"""
from __future__ import annotations

import os
import platform
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable


from simulator.contract import RunResult
from simulator.contract.files import write_profile
from simulator.evaluator import Evaluator
from tuner.calibration.design import Point
from tuner.calibration.fit import Fit, Observation, fit_costs, observe
from tuner.calibration.runs import PointRuns, run_points
from workloads import ScenarioError
from workloads.reader import not_a_file, read_yaml
from workloads.profile import PROFILE_DIR, CostProfile

APPEND_RATE_POINTS = ("full-requests",)
SECTIONS = ("broker", "client", "spark", "scheduler", "streaming")


@dataclass(frozen=True)
class Calibration:
    profile_path: Path
    fit: Fit
    runs: list[PointRuns]
    append_rate: tuple[float, float] | None      # measured bytes/s per core and half its spread


def profile_target(name_or_path: str, force: bool, option: str = "--name") -> Path:
    """Where the profile goes: a path as given, a bare name into workloads/profiles/. An existing
    file is replaced only with ``force``; ``option`` names the option that gave it in a refusal."""
    path = Path(name_or_path)
    if not path.suffix:
        if not name_or_path.replace("-", "").replace("_", "").isalnum():
            raise ScenarioError(option, f"a profile name is letters, digits, - and _, got {name_or_path!r}")
        path = PROFILE_DIR / f"{name_or_path}.yaml"
    if path.exists() and (kind := not_a_file(path.stat().st_mode)) is not None:   # a named pipe would block the write
        raise ScenarioError(option, f"{path} is {kind}; name a file")
    if path.exists() and not force:
        raise ScenarioError(option, f"profile {path} exists; give --force to replace it")
    return path


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": os.cpu_count() or 1, "cpu_model": model, "kernel": platform.release()}


def flat_values(profile: CostProfile) -> dict[str, float]:
    """The profile's numeric figures by dotted name (codec maps one name per codec)."""
    out: dict[str, float] = {}
    for section in SECTIONS:
        values = getattr(profile, section, None)
        for key, value in (vars(values).items() if values is not None else ()):
            if isinstance(value, dict):
                out.update({f"{section}.{key}.{codec}": v for codec, v in value.items() if codec != "none"})
            elif value is not None:   # an unset figure (fetch_send_byte_ns: network_byte_ns's) is none of its own
                out[f"{section}.{key}"] = value
    return out


def _run_label(point: str, seed: int) -> str:
    return f"{point}#{seed}"


def measured_append_rate(runs: list[PointRuns]) -> tuple[float, float] | None:
    rates = [r.summary.append_rate_bytes_per_s for pr in runs if pr.point.name in APPEND_RATE_POINTS
             for r in pr.results if r.summary.append_rate_bytes_per_s]
    if not rates:
        return None
    return statistics.median(rates), (max(rates) - min(rates)) / 2


def _set(raw: dict, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = raw
    for key in parents:
        node = node[key]
    node[last] = value


def base_document(base_profile: str) -> dict:
    """The base profile's own YAML (a fitted profile keeps all of it but its name and provenance)."""
    path = Path(base_profile) if Path(base_profile).suffix else PROFILE_DIR / f"{base_profile}.yaml"
    return read_yaml(path, "--base")


def fitted_document(name: str, base: CostProfile, base_raw: dict, fit: Fit,
                    append_rate: tuple[float, float] | None = None) -> tuple[dict, list[dict]]:
    """The base profile's document as ``name`` with the fitted terms (and a measured append rate) in
    place, and every parameter's value and source for the provenance."""
    raw = {"name": name, **{k: v for k, v in base_raw.items() if k not in ("name", "provenance")}}
    fitted = {t.name: t for t in fit.terms}
    parameters = []
    for dotted, value in flat_values(base).items():
        if dotted in fitted:
            term = fitted[dotted]
            _set(raw, dotted, float(f"{term.value:.4g}"))
            parameters.append({"name": dotted, "value": float(f"{term.value:.4g}"), "source": "fitted",
                               "uncertainty": None if term.standard_error is None else float(f"{term.standard_error:.2g}")})
        elif dotted == "spark.append_rate" and append_rate:
            _set(raw, dotted, f"{append_rate[0] / 1024:.0f}KB/s")
            parameters.append({"name": dotted, "value": float(f"{append_rate[0]:.4g}"), "source": "measured",
                               "uncertainty": float(f"{append_rate[1]:.2g}")})
        else:
            parameters.append({"name": dotted, "value": value, "source": "assumed"})
    return raw, parameters


def residual_rows(fit: Fit) -> list[dict]:
    return [{"run": r.run, "figure": r.figure, "measured": float(f"{r.measured:.5g}"), "fitted": float(f"{r.fitted:.5g}")}
            for r in fit.residuals]


def profile_document(name: str, base: CostProfile, base_raw: dict, fit: Fit, runs: list[PointRuns],
                     observations: dict[str, Observation], append_rate: tuple[float, float] | None,
                     kafka_version: str) -> dict:
    raw, parameters = fitted_document(name, base, base_raw, fit, append_rate)
    used = []
    for point_runs in runs:
        for result in point_runs.results:
            label = _run_label(point_runs.point.name, result.seed)
            o = observations.get(label)
            s = result.summary
            local = (result.brokers[0].produce_time_ms or {}).get("LocalTimeMs") or {} if result.brokers else {}
            # read for the record, not fitted: the producer's own averages, the network threads' idle (a
            # one-minute moving average) and the produce LocalTimeMs (whole milliseconds)
            figures = {"produce_requests": s.produce_requests, "load_seconds": round(s.load_seconds, 3),
                       "append_rate_bytes_per_s": s.append_rate_bytes_per_s,
                       "records_per_request": s.records_per_request, "batch_size_avg": s.mean_batch_wire_bytes,
                       "handler_idle_pct_during": s.handler_idle_pct_during,
                       "network_idle_pct_during": s.network_idle_pct_during,
                       "produce_local_time_ms_mean": local.get("mean")}
            if o:
                figures |= {"batches": o.batches, "records": o.records, "wire_bytes": o.wire_bytes,
                            "handler_busy_s": round(o.handler_busy_s, 5), "cpu_s": round(o.cpu_s, 5)}
            used.append({"point": point_runs.point.name, "seed": result.seed,
                         "overrides": list(point_runs.point.overrides), "figures": figures})
    held = ", ".join(fit.held) or "none"
    raw["provenance"] = {
        "summary": (f"Fitted by quietload calibrate to {len(used)} {runs[0].results[0].evaluator if used else ''} runs of "
                    f"{len(runs)} design points, from the base profile {base.name}. The broker's produce and network "
                    f"costs are bounded least-squares fits of each run's handler-busy and CPU seconds (less the idle "
                    f"broker's) to its requests, batches, records and bytes; uncertainty is one standard error. Terms "
                    f"the design could not tell apart, held at the base value: {held}. spark.append_rate is measured "
                    f"(the value bytes over the load's seconds; uncertainty: half the spread). Everything else is the "
                    f"base profile's, assumed."),
        "calibrated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kafka_version": kafka_version,
        "machine": machine(),
        "base_profile": base.name,
        "runs": used,
        "parameters": parameters,
        "residuals": residual_rows(fit),
    }
    return raw


def calibrate(evaluator: Evaluator, points: tuple[Point, ...], base_profile: str, target: Path, repeat: int,
              kafka_version: str, say: Callable[[str], None], results_dir: Path | None = None) -> Calibration:
    """Run the design, fit the costs and write the profile to ``target``."""
    CostProfile.load(base_profile, "--base")     # a base that does not read stops before any run
    return fit_profile(run_points(points, base_profile, evaluator, repeat, say, results_dir), base_profile, target,
                       kafka_version)


def runs_from_files(paths: list[Path], points: tuple[Point, ...]) -> list[PointRuns]:
    """Earlier runs of the design from their RunResult files (<point>-<evaluator>-seed<N>.json)."""
    known = {p.name: p for p in points}
    if not paths:
        raise ScenarioError("--from", "no RunResult files (*.json) to fit")
    grouped: dict[str, list[RunResult]] = {}
    for path in paths:
        name = path.name.rsplit("-", 2)[0]
        if name not in known:
            raise ScenarioError("--from", f"{path.name} is not a run of a design point (known: {', '.join(known)})")
        grouped.setdefault(name, []).append(RunResult.read(path))
    return [PointRuns(known[name], sorted(results, key=lambda r: r.seed)) for name, results in grouped.items()]


def fit_profile(runs: list[PointRuns], base_profile: str, target: Path, kafka_version: str) -> Calibration:
    """Fit the costs to the design's runs and write the profile to ``target``."""
    base = CostProfile.load(base_profile, "--base")
    base_raw = base_document(base_profile)
    observations: dict[str, Observation] = {}
    for point_runs in runs:
        for result in point_runs.results:
            label = _run_label(point_runs.point.name, result.seed)
            observations[label] = observe(result, label)
    fit = fit_costs(list(observations.values()), flat_values(base))
    append_rate = measured_append_rate(runs)
    write_profile(profile_document(target.stem, base, base_raw, fit, runs, observations, append_rate, kafka_version),
                  target)
    return Calibration(target, fit, runs, append_rate)


def render_calibration(calibration: Calibration) -> str:
    lines = [f"{'parameter':34} {'value':>12} {'± 1 s.e.':>10}  source"]
    for term in calibration.fit.terms:
        error = "n/a" if term.standard_error is None else f"{term.standard_error:.3g}"
        lines.append(f"{term.name:34} {term.value:12.4g} {error:>10}  fitted")
    for name in calibration.fit.held:
        lines.append(f"{name:34} {'':>12} {'':>10}  assumed (not determined by the design)")
    if calibration.append_rate:
        rate, spread = calibration.append_rate
        lines.append(f"{'spark.append_rate (bytes/s)':34} {rate:12.4g} {spread:10.3g}  measured")
    failed = [f"{pr.point.name} seed {seed}: {why}" for pr in calibration.runs for seed, why in pr.failed]
    if failed:
        lines.append("runs that failed twice (left out): " + "; ".join(failed))
    lines.append(f"wrote {calibration.profile_path}")
    return "\n".join(lines)
