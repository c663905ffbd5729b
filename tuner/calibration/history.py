"""The cost profile fitted to a cluster's own history, and the model replaying its past loads.

Calibration (``fit_history``): each period of a past load (and the one after it) on each broker is
one observation of the kind ``quietload calibrate`` fits. Its figures are the excess over the
broker's quiet level (the median of the periods no load touches, which holds the neighbours' work
and the broker's background): handler-busy seconds ((100 - RequestHandlerAvgIdlePercent) % x
num.io.threads) and CPU seconds ((CpuUser + CpuSystem) % x vCPUs), against the records and bytes
the broker took in above its quiet rate and its produce requests: counted where the metrics count
them (the JMX exporters), else (CloudWatch) the model's for those bytes. No metric counts batches:
each request carries the model's batches per request for the job's settings, predicted on the
fitted costs (slower brokers make bigger batches), and the model's uncompressed bytes per byte on the
wire for the job's codec (the brokers' decompression). A history's loads are one job run one way, so
its counts rise and fall together and cannot tell the terms apart: ``fit_scales`` fits one factor
on the base profile's request-handler terms and one on its network terms, with ``fit``'s solver.
Each factor's standard error is the solver's and, in quadrature, the fit's closure on the model
(``closure``): what the same fit gives back from the model's own figures of the job beside its
neighbours, against the costs it ran on.

Replay: ``tuner.calibration.replay`` runs each past load on the model, its dataset sized here
(``sized_like``) so the load carries the bytes the load topic took in.
"""
from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from simulator.contract.files import write_profile
from simulator.evaluator import Evaluator, model_evaluator
from tuner.calibration.calibrate import base_document, fitted_document, flat_values, profile_target, residual_rows
from tuner.calibration.fit import FIGURES, TERMS, Fit, FitResidual, FittedTerm, Observation, bounded_fit, load_excess
from workloads import FileGroup, Scenario, ScenarioError
from workloads.imports import History, Imported, Window, baseline, build, write
from workloads.imports.history import busy_periods
from workloads.profile import PROFILE_DIR, CostProfile


def _quiet(series: list[float | None], busy: set[int]) -> tuple[float, float]:
    values = [v for k, v in enumerate(series) if v is not None and k not in busy]
    if not values:
        return 0.0, 0.0
    return statistics.median(values), statistics.stdev(values) if len(values) > 1 else 0.0


Quieted = tuple[list[float | None], tuple[float, float]]     # a series, and its median and spread outside the loads


def _excess(quieted: Quieted | None, span: range, scale: float) -> tuple[float, float]:
    """Sum over ``span`` of (value - quiet median) x scale, and the noise of that sum."""
    if quieted is None:
        return 0.0, 0.0
    series, (level, spread) = quieted
    present = [v for k in span if k < len(series) and (v := series[k]) is not None]
    return sum((v - level) * scale for v in present), spread * scale * math.sqrt(len(present))


def cpu_series(figures: dict[str, list[float | None]]) -> list[float | None]:
    """A broker's CpuUser + CpuSystem per period (MSK's two halves of its CPU)."""
    return [None if u is None and s is None else (u or 0.0) + (s or 0.0)
            for u, s in zip(figures.get("CpuUser", []), figures.get("CpuSystem", []))]


@dataclass(frozen=True)
class Batching:
    """What the model predicts of the job's load per byte on the wire: produce requests and batches
    (no metric counts batches, and CloudWatch no requests)."""

    requests_per_byte: float
    batches_per_request: float
    records_bytes_per_byte: float = 1.0     # the batches' uncompressed bytes per byte on the wire (the codec's)

    @classmethod
    def of(cls, scenario: Scenario, evaluator: Evaluator) -> "Batching":
        result = evaluator.evaluate(dataclasses.replace(scenario, tenants=()), 1)
        s = result.summary
        return cls(s.produce_requests / s.wire_bytes, s.batches / s.produce_requests,
                   s.record_bytes / s.wire_bytes)


def observations(history: History, loads: list[Window], scenario: Scenario, batching: Batching) -> list[Observation]:
    """One observation per period of a past load (and the one after it) and broker: its requests where
    the metrics count them (else the model's for the period's bytes) and the model's batches per request."""
    busy = busy_periods(loads)
    settings, period = scenario.cluster.broker, history.period
    codec = scenario.batch.producer.compression_type
    # per broker, each series with its quiet level, once: a history holds weeks of periods
    brokers: dict[str, dict[str, Quieted]] = {}
    for broker, figures in sorted(history.brokers.items()):
        idle = figures.get("RequestHandlerAvgIdlePercent")
        named = {"handler": None if idle is None else [None if v is None else 100.0 - v for v in idle],
                 "cpu": cpu_series(figures), "records": figures.get("MessagesInPerSec"),
                 "wire": figures.get("BytesInPerSec"), "requests": figures.get("ProduceRequestsPerSec")}
        brokers[broker] = {name: (s, _quiet(s, busy)) for name, s in named.items() if s is not None}
    out = []
    for k in sorted({k for w in loads for k in range(w.first, min(w.last + 2, history.points))}):
        span = range(k, k + 1)
        label = datetime.fromtimestamp(history.start + k * period, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        for broker, named in brokers.items():
            handler = _excess(named.get("handler"), span, settings.num_io_threads / 100.0 * period)
            cpu = _excess(named.get("cpu"), span, settings.vcpus / 100.0 * period)
            records = _excess(named.get("records"), span, period)[0]
            wire = _excess(named.get("wire"), span, period)[0]
            if records <= 0 or wire <= 0:
                continue      # none of the load on this broker in this period
            requests = (max(0.0, _excess(named["requests"], span, period)[0]) if "requests" in named
                        else wire * batching.requests_per_byte)
            # bytes in are the batches on the wire; their uncompressed size no metric gives: the model's ratio
            # for the job's codec and rows, so that the brokers' decompression is counted, not put on the rest
            out.append(Observation(run=f"{label} broker {broker}", requests=requests,
                                   batches=requests * batching.batches_per_request,
                                   records=records, wire_bytes=wire, record_bytes=wire * batching.records_bytes_per_byte,
                                   received_bytes=wire, codec=codec, handler_busy_s=handler[0], cpu_s=cpu[0],
                                   handler_noise_s=handler[1], cpu_noise_s=cpu[1]))
    if not out:
        raise ScenarioError("--profile", "no past load in the metrics to fit the costs to")
    return out


def fit_scales(found: list[Observation], base: dict[str, float]) -> Fit:
    """The base profile's broker costs scaled to the history: one factor for the request handlers'
    terms (the handler-busy seconds and their share of the CPU), one for the network threads' (the
    rest of the CPU), by ``fit``'s bounded least squares, each figure weighted by its noise. A
    history's loads are one job run one way: their requests, batches, records and bytes rise and fall
    together, so a term-by-term fit (``fit_costs``) would split their sum arbitrarily; what the history
    does determine is how much dearer or cheaper this cluster's brokers are than the base profile."""
    values = np.array([base[name] for name, _ in TERMS])
    network = np.array([name.startswith("broker.network_") for name, _ in TERMS])
    rows, target, weights, labels = [], [], [], []
    for o in found:
        columns, measured, noise = o.columns(), o.measured(), o.noise()
        for figure in FIGURES:
            handler_part = float(columns[figure][~network] @ values[~network])
            network_part = float(columns[figure][network] @ values[network])
            rows.append([handler_part, network_part])
            target.append(measured[figure])
            weights.append(1.0 / noise[figure])
            labels.append((o.run, figure))
    w = np.array(weights)
    design, goal = np.array(rows) * w[:, None], np.array(target) * w
    if len(goal) <= 2:
        raise ScenarioError("--profile", "the history's loads give too few figures to fit the costs to")
    scales, residual, errors = bounded_fit(design, goal, np.ones(2))
    terms = []
    for name, _ in TERMS:
        k = int(name.startswith("broker.network_"))
        if base[name] > 0:
            error = errors[k]
            terms.append(FittedTerm(name, float(base[name] * scales[k]), None if error is None else float(base[name] * error)))
    residuals = [FitResidual(run, figure, float(m), float(m + r / wt)) for (run, figure), m, r, wt
                 in zip(labels, target, residual, weights)]
    return Fit(terms, residuals, [], [])


def scaled(base: CostProfile, fit: Fit) -> CostProfile:
    """``base`` with the fitted broker costs in place."""
    broker = dict(vars(base.broker))
    broker["decompress_byte_ns"] = dict(broker["decompress_byte_ns"])
    for term in fit.terms:
        key = term.name.split(".", 1)[1]
        if key.startswith("decompress_byte_ns."):
            broker["decompress_byte_ns"][key.split(".")[1]] = term.value
        else:
            broker[key] = term.value
    return dataclasses.replace(base, broker=dataclasses.replace(base.broker, **broker))


CLOSURE_SEEDS = 3


def closure(scenario: Scenario, profile: CostProfile, wire_bytes: float, batching: Batching, counted: bool,
            evaluator: Evaluator) -> tuple[float, float]:
    """The fit's own error on the model, per factor (request handlers', network threads'): the job beside its
    neighbours on one broker with the fitted costs, a past load's per-broker bytes, over a few seeds, observed
    as the history is (each figure's excess over its quiet level, requests counted or the model's, batches the
    model's per request) and fitted back the same way; what comes back over what it ran on. The neighbours'
    requests and work do not stay at their quiet level beside a load (a slower broker, bigger batches), and
    that moves the excess the fit reads: the closure measures what it costs the fit."""
    topics = tuple(dataclasses.replace(t, replication_factor=None, leaders=None) for t in scenario.cluster.topics)
    cluster = dataclasses.replace(scenario.cluster, brokers=1, topics=topics, replication_factor=1, min_insync_replicas=1)
    one = sized_like(dataclasses.replace(scenario, profile=profile, cluster=cluster),
                     wire_bytes / scenario.cluster.brokers, evaluator)
    settings, found = one.cluster.broker, []
    for seed in range(1, CLOSURE_SEEDS + 1):
        result = evaluator.evaluate(one, seed)
        lines, windows = result.timelines, result.windows
        handler = load_excess([None if v is None else (100.0 - v) / 100.0 * settings.num_io_threads
                              for v in lines["handler_idle_pct_min"]], windows)
        cpu = load_excess([None if v is None else v / 100.0 * settings.vcpus for v in lines["cpu_pct_max"]], windows)
        wire = load_excess(lines["bytes_in_per_s"], windows)[0]
        requests = (load_excess(lines["produce_requests_per_s"], windows)[0] if counted
                    else wire * batching.requests_per_byte)
        found.append(Observation(run=f"closure seed {seed}", requests=requests,
                                 batches=requests * batching.batches_per_request,
                                 records=float(sum(p["records"] for p in result.producers)), wire_bytes=wire,
                                 record_bytes=wire * batching.records_bytes_per_byte, received_bytes=wire,
                                 codec=one.batch.producer.compression_type, handler_busy_s=handler[0],
                                 cpu_s=cpu[0], handler_noise_s=handler[1], cpu_noise_s=cpu[1]))
    values = flat_values(profile)
    ratios = {t.name: t.value / values[t.name] for t in fit_scales(found, values).terms}
    return ratios["broker.produce_request_us"], ratios["broker.network_request_us"]


def with_closure(fit: Fit, ratios: tuple[float, float]) -> Fit:
    """Each term's standard error: the solver's and the closure's error (|ratio - 1| x value) in quadrature."""
    terms = []
    for term in fit.terms:
        off = abs(ratios[int(term.name.startswith("broker.network_"))] - 1.0) * term.value
        terms.append(dataclasses.replace(term, standard_error=math.hypot(term.standard_error or 0.0, off)))
    return dataclasses.replace(fit, terms=terms)


@dataclass(frozen=True)
class HistoryCalibration:
    path: Path
    fit: Fit


def fit_history(history: History, loads: list[Window], scenario: Scenario, target: Path, kafka_version: str,
                evaluator: Evaluator | None = None, base_profile: str = "default") -> HistoryCalibration:
    """Fit the broker's costs to the history's past loads; write the profile with its provenance."""
    base = CostProfile.load(base_profile, "--base")
    evaluator = evaluator or model_evaluator()
    profile = base
    for _ in range(2):     # batching follows the brokers' speed (slow brokers, bigger batches): predict it on the fitted costs
        batching = Batching.of(dataclasses.replace(scenario, profile=profile), evaluator)
        found = observations(history, loads, scenario, batching)
        fit = fit_scales(found, flat_values(base))
        profile = scaled(base, fit)
    counted = any("ProduceRequestsPerSec" in figures for figures in history.brokers.values())
    ratios = closure(scenario, profile, statistics.mean(w.bytes for w in loads), batching, counted, evaluator)
    fit = with_closure(fit, ratios)
    raw, parameters = fitted_document(target.stem, base, base_document(base_profile), fit)
    vcpus = scenario.cluster.broker.vcpus
    raw["provenance"] = {
        "summary": (f"Fitted by quietload import to {len(loads)} past load(s) in the {history.source} metrics of "
                    f"{history.cluster!r} ({len(found)} load-broker observations), from the base profile {base.name}: "
                    f"the base profile's broker costs scaled by one factor for the request handlers' terms and one "
                    f"for the network threads', so that they give each load period's handler-busy and CPU seconds "
                    f"above the broker's quiet level from the records and bytes it took in above its quiet rate, its "
                    f"produce requests "
                    f"({'counted by the brokers' if counted else 'the model: the metrics count none'}; "
                    f"{batching.requests_per_byte * 1e6:.4g} per MB on the wire) and its batches (the model's "
                    f"{batching.batches_per_request:.3g} per request for the job's producer settings: no metric counts "
                    f"them) and uncompressed bytes (the model's {batching.records_bytes_per_byte:.3g} per byte on the "
                    f"wire for the job's codec). Uncertainty is one standard error: the solver's (from the Jacobian and the residuals) and, in "
                    f"quadrature, the fit's closure on the model (the job beside its neighbours on one broker with the "
                    f"fitted costs, over {CLOSURE_SEEDS} seeds, observed and fitted back the same way, gave back {ratios[0]:.4f} x the request "
                    f"handlers' factor and {ratios[1]:.4f} x the network threads'): beside a load the neighbours' "
                    f"requests and work leave their quiet level, which the excess over it does not see. The loads of one job rise and fall together in all "
                    f"these counts, so the history tells how dear this cluster's brokers are, not how the cost "
                    f"splits between the terms: the split is the base profile's (quietload calibrate measures it). "
                    f"Followers' fetches (replication) are counted in the produce costs they follow."),
        "calibrated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kafka_version": kafka_version,
        "machine": {"cores": max(1, int(vcpus)), "cpu_model": f"MSK broker of {scenario.name}", "kernel": ""},
        "base_profile": base.name,
        "runs": [{"point": o.run, "seed": 0, "figures": {"records": round(o.records, 1), "wire_bytes": round(o.wire_bytes, 1),
                  "produce_requests": round(o.requests, 1), "handler_busy_s": round(o.handler_busy_s, 5),
                  "cpu_s": round(o.cpu_s, 5)}} for o in found],
        "parameters": parameters,
        "residuals": residual_rows(fit),
    }
    write_profile(raw, target)
    return HistoryCalibration(target, fit)


@dataclass(frozen=True)
class ImportOutcome:
    scenario_path: Path
    history_path: Path | None
    calibration: HistoryCalibration | None
    loads: list[Window]
    assumptions: tuple[str, ...]
    baseline: dict[str, dict[str, float]]     # per broker, each figure's quiet median
    warnings: tuple[str, ...] = ()            # one line each, for stderr


def import_and_write(imported: Imported, out: Path, history_path: Path | None, profile: str | None,
                     force: bool) -> ImportOutcome:
    """The scenario (and the history, and with ``profile`` the fitted profile) written."""
    if profile and imported.history is None:
        raise ScenarioError("--profile", "fits the costs to metrics: give --cloudwatch or --prometheus too")
    target = profile_target(profile, force, "--profile") if profile else None
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
    quiet = baseline(imported.history, imports.loads) if imported.history is not None else {}
    return ImportOutcome(out, written, calibration, imports.loads, imports.scenario.assumptions, quiet,
                         () if imports.scenario.tenants else (_no_neighbours(imported),))


def _no_neighbours(imported: Imported) -> str:
    where = ("no other topic took records in the metrics' quiet periods" if imported.history is not None
             else "no metrics were given (--cloudwatch or --prometheus) to find them in")
    return (f"no neighbours: {where}; quietload check has nothing to judge (exit 3) until the scenario's "
            "tenants: list them")


def render_import(outcome: ImportOutcome) -> str:
    lines = ["assumptions:", *(f"  - {a}" for a in outcome.assumptions)]
    if outcome.baseline:
        shown = ("RequestHandlerAvgIdlePercent", "CpuUser", "CpuSystem", "ProduceTotalTimeMsMean")
        lines += ["quiet baseline (medians outside the loads):", *(
            f"  broker {broker}: " + ", ".join(f"{name} {figures[name]:.4g}" for name in shown if name in figures)
            for broker, figures in outcome.baseline.items())]
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


# Replay: (title, format) of each figure, observed over the load's whole periods and predicted over the same time


PROBE_BYTES = 4 * 1024**2     # a small run that tells the model's wire bytes per input byte for the scenario's rows


def sized_like(scenario: Scenario, wire_bytes: float, evaluator: Evaluator) -> Scenario:
    """The scenario with its input scaled so that its load puts ``wire_bytes`` on the wire."""
    total = sum(scenario.dataset.file_sizes)
    probe = dataclasses.replace(scenario, dataset=dataclasses.replace(scenario.dataset, files=(FileGroup(PROBE_BYTES, 1),)),
                                tenants=())
    per_byte = evaluator.evaluate(probe, 1).summary.wire_bytes / PROBE_BYTES
    scale = wire_bytes / per_byte / total
    files = tuple(FileGroup(max(1, round(g.size * scale)), g.count) for g in scenario.dataset.files)
    return dataclasses.replace(scenario, dataset=dataclasses.replace(scenario.dataset, files=files))
