"""The cost profile fitted to a cluster's own history, and the model replaying its past loads.

Calibration (``fit_history``): each past load on each broker is one observation for
``fit.fit_costs``, the fitter ``quietload calibrate`` uses. Its figures are the load's excess over
the broker's quiet level (the median of the periods no load touches, which holds the neighbours'
work and the broker's background): handler-busy seconds ((100 - RequestHandlerAvgIdlePercent) %
x num.io.threads) and CPU seconds ((CpuUser + CpuSystem) % x vCPUs), over the load's periods and
the one after it, against the records, bytes and (where the metrics have them) produce requests
the broker took in above its quiet rate. The noise of each figure is its quiet standard
deviation x sqrt(periods summed). Metrics carry no batch counts and CloudWatch no request
counts: those terms keep the base profile's value and are marked assumed; a history whose loads
all ran one way cannot tell records from bytes, and the fitter then holds one of them too.

Replay (``replay``): each past load runs on the model, with the scenario's dataset sized so the
load carries the bytes the load topic took in, over several seeds; per load the model's interval
and the observed figure for handler idle, CPU, produce TotalTime (mean) and bytes in, averaged
over the same whole periods the metrics hold, and the error, in the live validation's table.
"""
from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from reports.versus import ratio
from tuner.calibration.calibrate import flat_values, profile_target
from tuner.calibration.fit import Fit, Observation, fit_costs
from workloads import Scenario, ScenarioError
from workloads.imports import History, Imported, Window, build, find_loads, write
from workloads.loader import dump_yaml, safe_yaml
from workloads.profile import PROFILE_DIR, CostProfile


def _quiet(series: list[float | None], busy: set[int]) -> tuple[float, float]:
    values = [v for k, v in enumerate(series) if v is not None and k not in busy]
    if not values:
        return 0.0, 0.0
    return statistics.median(values), statistics.stdev(values) if len(values) > 1 else 0.0


def _excess(series: list[float | None] | None, span: range, busy: set[int], scale: float) -> tuple[float, float]:
    """Sum over ``span`` of (value - quiet median) x scale, and the noise of that sum."""
    if series is None:
        return 0.0, 0.0
    level, spread = _quiet(series, busy)
    present = [series[k] for k in span if k < len(series) and series[k] is not None]
    return sum((v - level) * scale for v in present), spread * scale * math.sqrt(len(present))


def observations(history: History, loads: list[Window], scenario: Scenario) -> list[Observation]:
    """One observation per past load and broker."""
    busy = {k for w in loads for k in range(w.first - 1, w.last + 2)}
    settings, period = scenario.cluster.broker, history.period
    codec = scenario.batch.producer.compression_type
    out = []
    for window in loads:
        span = range(window.first, window.last + 2)
        label = datetime.fromtimestamp(window.start, timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        for broker, figures in sorted(history.brokers.items()):
            idle = figures.get("RequestHandlerAvgIdlePercent")
            busy_series = None if idle is None else [None if v is None else 100.0 - v for v in idle]
            cpu_series = [None if u is None and s is None else (u or 0.0) + (s or 0.0)
                          for u, s in zip(figures.get("CpuUser", []), figures.get("CpuSystem", []))]
            handler = _excess(busy_series, span, busy, settings.num_io_threads / 100.0 * period)
            cpu = _excess(cpu_series, span, busy, settings.vcpus / 100.0 * period)
            records = _excess(figures.get("MessagesInPerSec"), span, busy, period)[0]
            wire = _excess(figures.get("BytesInPerSec"), span, busy, period)[0]
            requests = _excess(figures.get("ProduceRequestsPerSec"), span, busy, period)[0]
            if records <= 0 or wire <= 0:
                continue      # the load's partitions led elsewhere: nothing of it on this broker
            # bytes in are the batches on the wire; uncompressed sizes the metrics do not give, so a codec's
            # decompression term gets no count (held at the base value)
            out.append(Observation(run=f"{label} broker {broker}", requests=max(0.0, requests), batches=0.0,
                                   records=records, wire_bytes=wire, record_bytes=wire if codec == "none" else 0.0,
                                   received_bytes=wire, codec="none", handler_busy_s=handler[0], cpu_s=cpu[0],
                                   handler_noise_s=handler[1], cpu_noise_s=cpu[1]))
    if not out:
        raise ScenarioError("--profile", "no past load in the metrics to fit the costs to")
    return out


@dataclass(frozen=True)
class HistoryCalibration:
    path: Path
    fit: Fit
    observations: list[Observation]


def fit_history(history: History, loads: list[Window], scenario: Scenario, target: Path, kafka_version: str,
                base_profile: str = "default") -> HistoryCalibration:
    """Fit the broker's costs to the history's past loads; write the profile with its provenance."""
    base = CostProfile.load(base_profile, "--base")
    found = observations(history, loads, scenario)
    fit = fit_costs(found, flat_values(base))
    base_path = Path(base_profile) if Path(base_profile).suffix else PROFILE_DIR / f"{base_profile}.yaml"
    raw = {"name": target.stem, **{k: v for k, v in safe_yaml(base_path.read_text(), "--base", str(base_path)).items()
                                   if k not in ("name", "provenance")}}
    fitted = {t.name: t for t in fit.terms}
    parameters = []
    for dotted, value in flat_values(base).items():
        if dotted in fitted:
            term = fitted[dotted]
            node = raw
            *parents, last = dotted.split(".")
            for key in parents:
                node = node[key]
            node[last] = float(f"{term.value:.4g}")
            parameters.append({"name": dotted, "value": float(f"{term.value:.4g}"), "source": "fitted",
                               "uncertainty": None if term.standard_error is None else float(f"{term.standard_error:.2g}")})
        else:
            parameters.append({"name": dotted, "value": value, "source": "assumed"})
    vcpus = scenario.cluster.broker.vcpus
    raw["provenance"] = {
        "summary": (f"Fitted by quietload import to {len(loads)} past load(s) in the {history.source} metrics of "
                    f"{history.cluster!r} ({len(found)} load-broker observations), from the base profile {base.name}: "
                    f"each load's handler-busy and CPU seconds above the broker's quiet level against the records, "
                    f"bytes{' and produce requests' if any(o.requests for o in found) else ''} it took in above its "
                    f"quiet rate; uncertainty is one standard error. Metrics carry no batch counts"
                    f"{'' if any(o.requests for o in found) else ' and no request counts'}: those terms, and the "
                    f"terms the loads could not tell apart ({', '.join(fit.held) or 'none'}), keep the base value, "
                    f"assumed. Followers' fetches (replication) are counted in the produce costs they follow."),
        "calibrated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kafka_version": kafka_version,
        "machine": {"cores": max(1, int(vcpus)), "cpu_model": f"MSK broker of {scenario.name}", "kernel": ""},
        "base_profile": base.name,
        "runs": [{"point": o.run, "seed": 0, "figures": {"records": round(o.records, 1), "wire_bytes": round(o.wire_bytes, 1),
                  "produce_requests": round(o.requests, 1), "handler_busy_s": round(o.handler_busy_s, 5),
                  "cpu_s": round(o.cpu_s, 5)}} for o in found],
        "parameters": parameters,
        "residuals": [{"run": r.run, "figure": r.figure, "measured": float(f"{r.measured:.5g}"),
                       "fitted": float(f"{r.fitted:.5g}")} for r in fit.residuals],
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dump_yaml(raw, width=110))
    CostProfile.load(str(target))      # what was written reads back
    return HistoryCalibration(target, fit, found)


@dataclass(frozen=True)
class ImportOutcome:
    scenario_path: Path
    history_path: Path | None
    calibration: HistoryCalibration | None
    loads: list[Window]
    neighbours: list[Any]
    assumptions: tuple[str, ...]


def import_and_write(imported: Imported, out: Path, history_path: Path | None, profile: str | None,
                     force: bool) -> ImportOutcome:
    """The scenario (and the history, and with ``profile`` the fitted profile) written."""
    if profile and imported.history is None:
        raise ScenarioError("--profile", "fits the costs to metrics: give --cloudwatch or --prometheus too")
    target = profile_target(profile, force) if profile else None
    imports = build(imported, out.stem)
    calibration = None
    if target is not None and imported.history is not None:
        kafka = imported.msk.kafka_version if imported.msk else "unknown"
        calibration = fit_history(imported.history, imports.loads, imports.scenario, target, kafka)
        named = target.stem if target.parent == PROFILE_DIR else str(target)
        imports = build(dataclasses.replace(imported, profile=named), out.stem)
    written = None
    if imported.history is not None:
        written = imported.history.write(history_path or out.with_name(out.stem + ".history.json"))
    write(imports, out)
    return ImportOutcome(out, written, calibration, imports.loads, imports.neighbours, imports.scenario.assumptions)


def render_import(outcome: ImportOutcome) -> str:
    lines = ["assumptions:", *(f"  - {a}" for a in outcome.assumptions)]
    if outcome.loads:
        lines += ["past loads:", *(f"  {datetime.fromtimestamp(w.start, timezone.utc):%Y-%m-%d %H:%M} UTC  "
                                   f"{w.seconds:6.0f} s  {w.records:14,.0f} records  {w.bytes:16,.0f} bytes"
                                   for w in outcome.loads)]
    if outcome.calibration:
        lines.append(f"{'parameter':34} {'value':>12} {'± 1 s.e.':>10}  source")
        for term in outcome.calibration.fit.terms:
            error = "n/a" if term.standard_error is None else f"{term.standard_error:.3g}"
            lines.append(f"{term.name:34} {term.value:12.4g} {error:>10}  fitted")
        for name in outcome.calibration.fit.held + outcome.calibration.fit.unused:
            lines.append(f"{name:34} {'':>12} {'':>10}  assumed (base profile)")
        lines.append(f"wrote {outcome.calibration.path}")
    if outcome.history_path:
        lines.append(f"wrote {outcome.history_path}")
    lines.append(f"wrote {outcome.scenario_path}")
    return "\n".join(lines)
