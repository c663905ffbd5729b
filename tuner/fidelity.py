"""`quietload validate`: the model's error on configurations the calibration never used.

Each held-out configuration runs live (repeated) and on the model (several seeds) with one
profile; ``tuner.pairing`` pairs them: per figure the model's interval over its seeds, the live
median and spread, and the error. Across the configurations: the median and worst error per
figure and the rank correlation (Spearman) of requests and of neighbour p99. The targets the
model is judged by get a verdict each; nothing here adjusts the model to meet them. The tables and
files of a validation are ``reports.fidelity``'s.
A streaming neighbour's end-to-end latency (p50 and p99 before and during the load) is judged
apart from the producers' latency, by the same bounds.
"""
from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from simulator.contract import RunResult
from simulator.evaluator import Evaluator
from tuner.calibration.design import Point
from tuner.calibration.runs import run_points
from tuner.repeats import RECORDS_FACTOR, REQUESTS_SPREAD, Repeats, repeats
from tuner.pairing import END_TO_END, Versus, fidelity_summary, pair_results, ratio
from workloads import Scenario
from workloads.placement import Host, parse_hosts, parse_placement
from workloads.batch import first_job

REQUESTS_ERROR, BATCH_ERROR, P50_FACTOR, P99_FACTOR, SPEARMAN_MIN = 0.15, 0.20, 1.3, 1.5, 0.9


@dataclass(frozen=True)
class Target:
    name: str
    passed: bool | None        # None: nothing to judge (no configuration had the figure)
    detail: str


@dataclass(frozen=True)
class Validation:
    pairs: list[Versus]
    summary: list[dict]
    targets: list[Target]
    failed_runs: list[str]
    repeats: list[Repeats] = dataclasses.field(default_factory=list)   # the live runs' spreads per configuration


def figure_rows(pair: Versus, title: str) -> list[tuple[str, Any]]:
    """(label, (model, live, model interval, live spread)) of a figure; tenant figures per neighbour
    (``end-to-end ...`` titles: the streaming tenants', the others: the producers')."""
    return [(name, pair.figure(name)) for name, *_ in pair.rows_of(title)]


def _factor(model: float | None, live: float | None) -> float | None:
    r = ratio(model, live)
    return None if r is None or r <= 0 else max(r, 1 / r)


def judge(pairs: list[Versus], summary: list[dict]) -> list[Target]:
    """The issue's targets: requests within 15 % where linger.ms >= 5 and inside the model's interval
    where linger.ms = 0; mean batch within 20 %; neighbour p50 within x1.3, p99 within x1.5; Spearman >= 0.9."""
    def verdict(name: str, checks: list[tuple[str, bool]]) -> Target:
        misses = [label for label, ok in checks if not ok]
        if not checks:
            return Target(name, None, "no configuration had the figure")
        return Target(name, not misses, f"{len(checks) - len(misses)} of {len(checks)} hold"
                      + (f"; misses: {', '.join(misses)}" if misses else ""))

    requests_lingering: list[tuple[str, bool]] = []
    requests_interval: list[tuple[str, bool]] = []
    batch: list[tuple[str, bool]] = []
    p50: list[tuple[str, bool]] = []
    p99: list[tuple[str, bool]] = []
    streaming_p50: list[tuple[str, bool]] = []
    streaming_p99: list[tuple[str, bool]] = []
    for pair in pairs:
        linger = first_job(pair.scenario_settings)["producer"]["linger.ms"]
        model, live, interval, _ = pair.figure("produce requests")
        if model is not None and live is not None:
            if linger >= 5:
                requests_lingering.append((pair.scenario, abs(live / model - 1) <= REQUESTS_ERROR))
            else:
                requests_interval.append((pair.scenario, bool(interval.holds(live))))
        model, live, _, _ = pair.figure("mean batch (KB of records)")
        if model and live is not None:
            batch.append((pair.scenario, abs(live / model - 1) <= BATCH_ERROR))
        for title, bound, out in (("p50 during (ms)", P50_FACTOR, p50), ("p99 during (ms)", P99_FACTOR, p99)):
            for name, (model, live, _, _) in figure_rows(pair, title):
                if (factor := _factor(model, live)) is not None:
                    out.append((f"{pair.scenario} {name.split(' ')[0]}", factor <= bound))
        for title, bound, out in ((f"{END_TO_END} p50 before (ms)", P50_FACTOR, streaming_p50),
                                  (f"{END_TO_END} p50 during (ms)", P50_FACTOR, streaming_p50),
                                  (f"{END_TO_END} p99 before (ms)", P99_FACTOR, streaming_p99),
                                  (f"{END_TO_END} p99 during (ms)", P99_FACTOR, streaming_p99)):
            for name, (model, live, _, _) in figure_rows(pair, title):
                if (factor := _factor(model, live)) is not None:
                    out.append((f"{pair.scenario} {name.split(' ')[0]} {title.split(' ')[2]}", factor <= bound))
    targets = [verdict("requests within 15 % (linger.ms >= 5)", requests_lingering),
               verdict("requests inside the model's interval (linger.ms = 0)", requests_interval),
               verdict("mean batch within 20 %", batch),
               verdict("neighbour p50 within x1.3", p50), verdict("neighbour p99 within x1.5", p99)]
    if any(figure_rows(pair, f"{END_TO_END} p99 during (ms)") for pair in pairs):    # a streaming neighbour ran
        targets += [verdict("streaming end-to-end p50 within x1.3 (before, during)", streaming_p50),
                    verdict("streaming end-to-end p99 within x1.5 (before, during)", streaming_p99)]
    for row in summary:
        if row["figure"] in ("produce requests", "neighbour p99 during"):
            rho = row["spearman"]
            targets.append(Target(f"Spearman of {row['figure'].replace(' during', '')} >= 0.9",
                                  None if rho is None else rho >= SPEARMAN_MIN,
                                  "too few configurations" if rho is None else f"{rho:.2f}"))
    return targets


def as_placed(scenario: Scenario, live: list[RunResult]) -> Scenario:
    """``scenario`` as its live runs placed it: their hosts and placement (``quietload live`` writes
    them into its result's scenario), each host's background the median over the runs of the other
    runnable threads measured on its cores (``summary.machine.background_threads``). Without a
    placed run, ``scenario`` as it is."""
    placed = [r for r in live if r.scenario.get("hosts")]
    if not placed:
        return scenario
    hosts = parse_hosts(placed[0].scenario["hosts"], "hosts")

    def background(host: Host) -> float:
        per_run = []
        for result in placed:
            measured = (result.summary.machine or {}).get("background_threads") or {}
            per_run.append(sum(float(measured.get(core, measured.get(str(core), 0.0))) for core in host.cpuset or ()))
        return round(statistics.median(per_run), 3)
    hosts = tuple(dataclasses.replace(host, background=background(host)) for host in hosts)
    placement = parse_placement(placed[0].scenario.get("placement") or {}, "placement")
    return dataclasses.replace(scenario, hosts=hosts, placement=placement)


@dataclass(frozen=True)
class PlacedPoint:
    """A held-out configuration with the scenario its live runs placed (``as_placed``)."""

    point: Point
    placed: Scenario

    @property
    def name(self) -> str:
        return self.point.name

    def scenario(self, profile: str) -> Scenario:
        return self.placed


def validate(live: Evaluator, model: Evaluator, points: tuple[Point, ...], profile: str, repeat: int, seeds: int,
             say: Callable[[str], None], results_dir: Path | None = None) -> Validation:
    """Run every point live ``repeat`` times, then on the model with ``seeds`` seeds placed as its
    live runs were (``as_placed``); pair and judge."""
    live_runs = run_points(points, profile, live, repeat, say, results_dir)
    say(f"the model: {len(points)} configurations x {seeds} seeds, placed as the live runs were")
    placed = tuple(PlacedPoint(runs.point, as_placed(runs.point.scenario(profile), runs.results)) for runs in live_runs)
    model_runs = run_points(placed, profile, model, seeds, lambda line: None, results_dir)  # type: ignore[arg-type]
    results = [r for runs in (*model_runs, *live_runs) for r in runs.results]
    failed = [f"{r.point.name} seed {seed}: {why}" for r in (*model_runs, *live_runs) for seed, why in r.failed]
    return judged(results, failed)


def judged(results: list[Any], failed: list[str] | None = None) -> Validation:
    """Model and live RunResults of the same configurations paired, summarised and judged (also
    for runs made in several sittings and read back from their files)."""
    pairs = pair_results(results)
    summary = fidelity_summary(pairs)
    spreads = repeats(results)
    return Validation(pairs, summary, [repeat_target(spreads), *judge(pairs, summary)], failed or [], spreads)


def repeat_target(spreads: list[Repeats]) -> Target:
    """The judge's own bar (``tuner.repeats``): every configuration's live repeats agree over the steady middle."""
    name = (f"live repeats: steady requests/s within {REQUESTS_SPREAD:.0%} of their median, "
            f"records/request within x{RECORDS_FACTOR}")
    judged_ = [(r.configuration, r.verdict) for r in spreads if r.verdict is not None]
    unjudged = [r.configuration for r in spreads if r.verdict is None]
    if not judged_:
        return Target(name, None, "no configuration judged" + (f" (noise or too short: {', '.join(unjudged)})" if unjudged else ""))
    misses = [c for c, ok in judged_ if not ok]
    return Target(name, not misses, f"{len(judged_) - len(misses)} of {len(judged_)} hold"
                  + (f"; misses: {', '.join(misses)}" if misses else "")
                  + (f"; not judged (noise or too short): {', '.join(unjudged)}" if unjudged else ""))
