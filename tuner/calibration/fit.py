"""Broker cost terms fitted to runs by bounded linear least squares.

A broker's request handlers are busy, per produce request, for the profile's
``produce_request_us`` plus, per batch in it, ``produce_batch_us`` + records x
``produce_record_ns`` + wire bytes x ``produce_byte_ns`` + uncompressed bytes x the codec's
``decompress_byte_ns``. Its process CPU is that plus the network threads' work: reading the
request and sending the response (``network_request_us`` each) and the bytes they copy
(``network_byte_ns``). Both sums are linear in the costs, so a run gives two equations: its
handler-busy seconds ((1 - RequestHandlerAvgIdlePercent) x num.io.threads, second by second)
and its CPU seconds, over the seconds of the load and the one after it, against what its
requests were made of; the CPU seconds less the broker's background (the JMX exporter's
scrapes, timers, GC) at the rate of the ``before`` window, when no request came. The handler
figure gets no such correction: its idle meter is marked in lumps (an idle thread's poll of the
request queue ends after up to 300 ms, and a second's figure is capped at 100 %), so on an idle
broker it reads ~6 % busy that is not there, and under a steady stream of requests it does not.
Each figure is weighted by the noise it shows in the ``before`` window (its per-second standard
deviation x sqrt(seconds summed)): the lumpy handler figure swings by ~10 % of the pool per
second, the process CPU counter by ~2 % of a core, and the fit leans on the figure that can tell. ``scipy.optimize.
least_squares`` solves it with every cost >= 0; the standard errors come from the Jacobian:
sqrt(diag((J'J)^-1) x residual variance). A term the design cannot
tell apart from the others (its standard error as large as its value) is held at the base
profile's value and the rest fitted again: the profile then says it is assumed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.contract import RunResult
from workloads import ScenarioError
from workloads.batch import first_job
from workloads.settings import COMPRESSION_TYPE_CONFIG

CODECS = ("gzip", "snappy", "lz4", "zstd")
# (profile name, unit factor to seconds); the order is the design matrix's columns
TERMS = (("broker.produce_request_us", 1e-6), ("broker.produce_batch_us", 1e-6), ("broker.produce_record_ns", 1e-9),
         ("broker.produce_byte_ns", 1e-9), *((f"broker.decompress_byte_ns.{c}", 1e-9) for c in CODECS),
         ("broker.network_request_us", 1e-6), ("broker.network_byte_ns", 1e-9))
FIGURES = ("handler_busy_s", "cpu_s")


@dataclass(frozen=True)
class Observation:
    """What one single-broker run's produce requests were made of, and what its broker spent."""

    run: str
    requests: float
    batches: float
    records: float
    wire_bytes: float
    record_bytes: float
    received_bytes: float      # what the network threads read: the batches on the wire
    codec: str
    handler_busy_s: float
    cpu_s: float
    handler_noise_s: float = 0.0    # the figure's standard deviation expected from the idle broker's noise
    cpu_noise_s: float = 0.0

    def columns(self) -> dict[str, np.ndarray]:
        """Per figure, the count that multiplies each term (in the term's own unit)."""
        produce = [self.requests, self.batches, self.records, self.wire_bytes,
                   *(self.record_bytes if self.codec == codec else 0.0 for codec in CODECS)]
        handler = [*produce, 0.0, 0.0]
        cpu = [*produce, 2 * self.requests, self.received_bytes]
        scale = np.array([factor for _, factor in TERMS])
        return {"handler_busy_s": np.array(handler) * scale, "cpu_s": np.array(cpu) * scale}

    def measured(self) -> dict[str, float]:
        return {"handler_busy_s": self.handler_busy_s, "cpu_s": self.cpu_s}

    def noise(self) -> dict[str, float]:
        # a floor of 1 % of the figure: no figure is exact, even where the idle broker showed no noise (the model)
        return {"handler_busy_s": max(self.handler_noise_s, 0.01 * abs(self.handler_busy_s), 1e-6),
                "cpu_s": max(self.cpu_noise_s, 0.01 * abs(self.cpu_s), 1e-6)}


def load_excess(series: list, windows: dict, less_background: bool = True) -> tuple[float, float]:
    """A per-second figure summed over the load's seconds and the one after it, less its mean over
    the whole seconds of the before window (``less_background``); and the noise of that sum (the
    before window's standard deviation x sqrt(seconds summed))."""
    before = windows["before"][1]
    quiet = [v for second, v in enumerate(series) if v is not None and second + 1 <= before]
    mean = sum(quiet) / len(quiet) if quiet else 0.0
    background = mean if less_background else 0.0
    spread = (sum((v - mean) ** 2 for v in quiet) / (len(quiet) - 1)) ** 0.5 if len(quiet) > 1 else 0.0
    first, last = int(windows["during"][0]), int(windows["during"][1]) + 1
    summed = [v for second, v in enumerate(series) if v is not None and first <= second <= last]
    return sum(v - background for v in summed), spread * len(summed) ** 0.5


def observe(result: RunResult, run: str) -> Observation:
    """The figures of a one-broker run (the model's or the live stack's) the fit needs."""
    scenario = result.scenario
    if len(result.brokers) != 1 or scenario["cluster"]["brokers"] != 1:
        raise ScenarioError(run, "calibration fits runs of one broker; this run had "
                            f"{scenario['cluster']['brokers']}")
    if result.tenants:
        raise ScenarioError(run, "calibration fits runs without neighbours: their requests would count as the job's")
    summary, lines = result.summary, result.timelines
    if not lines.get("handler_idle_pct_min") or summary.handler_idle_pct_during is None:
        raise ScenarioError(run, "the run has no handler idle figures (a cluster without its brokers' metrics)")
    sizes = result.batch_sizes
    records = (sizes and sizes.records) or sum(p.get("records") or 0 for p in result.producers) or (result.spark or {}).get("rows") or 0
    settings = scenario["cluster"]["broker"]
    handler = load_excess([None if v is None else (100.0 - v) / 100.0 * settings["num.io.threads"]
                       for v in lines["handler_idle_pct_min"]], result.windows, less_background=False)
    cpu = load_excess([None if v is None else v / 100.0 * settings["vcpus"] for v in lines["cpu_pct_max"]], result.windows)
    # the job's own figures: a live broker's counters also hold the job's warm-up, before the windows
    return Observation(
        run=run, requests=float(summary.produce_requests), batches=float((sizes and sizes.batches) or summary.batches),
        records=float(records), wire_bytes=float(summary.wire_bytes), record_bytes=float(summary.record_bytes),
        received_bytes=float(summary.wire_bytes), codec=first_job(scenario)["producer"][COMPRESSION_TYPE_CONFIG],
        handler_busy_s=handler[0], handler_noise_s=handler[1], cpu_s=cpu[0], cpu_noise_s=cpu[1])


@dataclass(frozen=True)
class FittedTerm:
    name: str
    value: float
    standard_error: float | None


@dataclass(frozen=True)
class FitResidual:
    run: str
    figure: str
    measured: float
    fitted: float


@dataclass(frozen=True)
class Fit:
    terms: list[FittedTerm]
    residuals: list[FitResidual]
    unused: list[str]          # terms no run gave a count for: the profile keeps its own value
    held: list[str]            # terms the runs could not tell apart from the others: held at the base value

    def value(self, name: str) -> FittedTerm:
        return next(t for t in self.terms if t.name == name)


def bounded_fit(a: np.ndarray, target: np.ndarray, x0: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[float | None]]:
    """``a @ x = target`` for ``x >= 0`` by bounded least squares from ``x0``: the solution, its
    residual and each term's standard error (None where the figures leave no degree of freedom)."""
    from scipy.optimize import least_squares     # heavy: loaded only when a profile is fitted

    solution = least_squares(lambda x: a @ x - target, x0, bounds=(0.0, np.inf), method="trf", x_scale="jac")
    residual = a @ solution.x - target
    dof = len(target) - a.shape[1]
    if dof <= 0:
        return solution.x, residual, [None] * a.shape[1]
    covariance = np.linalg.pinv(solution.jac.T @ solution.jac) * (float(residual @ residual) / dof)
    errors = [float(np.sqrt(max(0.0, covariance[k, k]))) for k in range(a.shape[1])]
    # a column the others reproduce has no error of its own to show (the fit may even be exact): infinite
    return solution.x, residual, [np.inf if _collinear(a, k) else e for k, e in enumerate(errors)]


def _finite(error: float | None) -> float | None:
    return None if error is None or np.isinf(error) else error


def _collinear(a: np.ndarray, k: int) -> bool:
    others = np.delete(a, k, axis=1)
    if others.shape[1] == 0:
        return False
    coefficients = np.linalg.lstsq(others, a[:, k], rcond=None)[0]
    return bool(np.linalg.norm(others @ coefficients - a[:, k]) <= 1e-6 * np.linalg.norm(a[:, k]))


def fit_costs(observations: list[Observation], base: dict[str, float]) -> Fit:
    """The cost terms that best explain every observation's figures, each >= 0; ``base`` holds
    the values of terms the runs cannot determine (the base profile's)."""
    if not observations:
        raise ScenarioError("calibrate", "no run to fit: every run of the design failed")
    rows, measured, weights, labels = [], [], [], []
    for observation in observations:
        columns, figures, noise = observation.columns(), observation.measured(), observation.noise()
        for figure in FIGURES:
            rows.append(columns[figure])
            measured.append(figures[figure])
            weights.append(1.0 / noise[figure])
            labels.append((observation.run, figure))
    scale = np.array(weights)[:, None]
    design, target = np.array(rows) * scale, np.array(measured) * scale[:, 0]
    free = [i for i in range(len(TERMS)) if np.any(design[:, i] > 0)]
    unused = [TERMS[i][0] for i in range(len(TERMS)) if i not in free]
    if len(target) <= len(free):
        raise ScenarioError("calibrate", f"{len(observations)} run(s) give {len(target)} figures, too few to fit "
                            f"{len(free)} cost terms: run more design points or repeats")
    held: list[int] = []
    while True:
        fixed = np.array([base[TERMS[i][0]] for i in held])
        rest = target - (design[:, held] @ fixed if held else 0.0)
        x0 = np.array([max(1e-3, base[TERMS[i][0]]) for i in free])
        values, residual, errors = bounded_fit(design[:, free], rest, x0)
        undetermined = [k for k, e in enumerate(errors) if e is not None and e >= max(float(values[k]), 1e-12)]
        if not undetermined or len(free) == 1:
            break
        worst = max(undetermined, key=lambda k: (errors[k] or 0.0) / max(float(values[k]), 1e-12))   # one at a time: the rest may then settle
        held.append(free.pop(worst))
    terms = [FittedTerm(TERMS[i][0], float(values[k]), _finite(errors[k])) for k, i in enumerate(free)]
    residuals = [FitResidual(run, figure, float(m), float(m + r / w))
                 for (run, figure), m, r, w in zip(labels, measured, residual, weights)]
    return Fit(terms, residuals, unused, [TERMS[i][0] for i in held])
