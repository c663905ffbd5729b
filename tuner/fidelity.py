"""`quietload validate`: the model's error on configurations the calibration never used.

Each held-out configuration runs live (repeated) and on the model (several seeds) with one
profile; ``tuner.pairing`` pairs them: per figure the model's interval over its seeds, the live
median and spread, and the error. Across the configurations: the median and worst error per
figure and the rank correlation (Spearman) of requests and of neighbour p99. The targets the
model is judged by get a verdict each, on the configurations of one broker (this machine cannot
give each of several brokers a core of its own); nothing here adjusts the model to meet them. The
model runs each configuration as production runs it, every part on hosts of its own. The tables and
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
from tuner.repeats import REPEAT_SPREAD, Repeats, repeats
from tuner.pairing import END_TO_END, Versus, factor_off, fidelity_summary, pair_results
from workloads import Scenario
from workloads.placement import Host, parse_hosts, parse_placement

REQUESTS_FACTOR, RECORDS_FACTOR, P50_FACTOR, P99_FACTOR, SPEARMAN_MIN = 1.25, 1.5, 1.5, 2.0, 0.8


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
    apart: dict[str, str] = dataclasses.field(default_factory=dict)    # configuration -> why the targets leave it out


def figure_rows(pair: Versus, title: str) -> list[tuple[str, Any]]:
    """(label, (model, live, model interval, live spread)) of a figure; tenant figures per neighbour
    (``end-to-end ...`` titles: the streaming tenants', the others: the producers')."""
    return [(name, pair.figure(name)) for name, *_ in pair.rows_of(title)]


def _medians(pair: Versus, title: str) -> tuple[float | None, float | None]:
    rows = pair.rows_of(title)
    return (rows[0][1], rows[0][2]) if rows else (None, None)


def brokers(pair: Versus) -> int:
    return int((pair.scenario_settings.get("cluster") or {}).get("brokers", 1))


def judge(pairs: list[Versus], summary: list[dict]) -> list[Target]:
    """The targets, on the one-broker configurations (several brokers cannot have a core each on this
    machine: ``together``): produce requests a median factor within ``REQUESTS_FACTOR`` over the
    configurations; per configuration records per request within ``RECORDS_FACTOR``, each neighbour's
    p50 during the load within ``P50_FACTOR`` and p99 within ``P99_FACTOR`` (a streaming neighbour's
    end-to-end latency before and during, judged apart); Spearman >= ``SPEARMAN_MIN`` on requests and
    on the worst neighbour's p99."""
    def verdict(name: str, checks: list[tuple[str, bool]]) -> Target:
        misses = [label for label, ok in checks if not ok]
        if not checks:
            return Target(name, None, "no configuration had the figure")
        return Target(name, not misses, f"{len(checks) - len(misses)} of {len(checks)} hold"
                      + (f"; misses: {', '.join(misses)}" if misses else ""))

    requests: list[float] = []
    records: list[tuple[str, bool]] = []
    p50: list[tuple[str, bool]] = []
    p99: list[tuple[str, bool]] = []
    streaming_p50: list[tuple[str, bool]] = []
    streaming_p99: list[tuple[str, bool]] = []
    for pair in pairs:
        if (factor := factor_off(*_medians(pair, "produce requests"))) is not None:
            requests.append(factor)
        if (factor := factor_off(*_medians(pair, "records / request"))) is not None:
            records.append((f"{pair.scenario} x{factor:.2f}", factor <= RECORDS_FACTOR))
        for title, bound, out in (("p50 during (ms)", P50_FACTOR, p50), ("p99 during (ms)", P99_FACTOR, p99)):
            for name, (model, live, _, _) in figure_rows(pair, title):
                if (factor := factor_off(model, live)) is not None:
                    out.append((f"{pair.scenario} {name.split(' ')[0]} x{factor:.2f}", factor <= bound))
        for title, bound, out in ((f"{END_TO_END} p50 before (ms)", P50_FACTOR, streaming_p50),
                                  (f"{END_TO_END} p50 during (ms)", P50_FACTOR, streaming_p50),
                                  (f"{END_TO_END} p99 before (ms)", P99_FACTOR, streaming_p99),
                                  (f"{END_TO_END} p99 during (ms)", P99_FACTOR, streaming_p99)):
            for name, (model, live, _, _) in figure_rows(pair, title):
                if (factor := factor_off(model, live)) is not None:
                    out.append((f"{pair.scenario} {name.split(' ')[0]} {title.split(' ')[2]}", factor <= bound))
    median = statistics.median(requests) if requests else None
    targets = [Target(f"produce requests: median factor off within x{REQUESTS_FACTOR}",
                      None if median is None else median <= REQUESTS_FACTOR,
                      "no configuration had the figure" if median is None
                      else f"x{median:.2f} over {len(requests)} configurations"),
               verdict(f"records per request within x{RECORDS_FACTOR}", records),
               verdict(f"neighbour p50 during within x{P50_FACTOR}", p50),
               verdict(f"neighbour p99 during within x{P99_FACTOR:g}", p99)]
    if any(figure_rows(pair, f"{END_TO_END} p99 during (ms)") for pair in pairs):    # a streaming neighbour ran
        targets += [verdict(f"streaming end-to-end p50 within x{P50_FACTOR} (before, during)", streaming_p50),
                    verdict(f"streaming end-to-end p99 within x{P99_FACTOR:g} (before, during)", streaming_p99)]
    for row in summary:
        if row["figure"] in ("produce requests", "neighbour p99 during"):
            rho = row["spearman"]
            targets.append(Target(f"Spearman of {row['figure'].replace(' during', '')} >= {SPEARMAN_MIN}",
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


def validate(live: Evaluator, model: Evaluator, points: tuple[Point, ...], profile: str, repeat: int, seeds: int,
             say: Callable[[str], None], results_dir: Path | None = None) -> Validation:
    """Run every point live ``repeat`` times, then on the model with ``seeds`` seeds as production runs
    it (every broker and client on hosts of its own: the scenario as written, not as the rig placed
    it); pair and judge."""
    live_runs = run_points(points, profile, live, repeat, say, results_dir)
    say(f"the model: {len(points)} configurations x {seeds} seeds, each part on hosts of its own")
    model_runs = run_points(points, profile, model, seeds, lambda line: None, results_dir)
    results = [r for runs in (*model_runs, *live_runs) for r in runs.results]
    failed = [f"{r.point.name} seed {seed}: {why}" for r in (*model_runs, *live_runs) for seed, why in r.failed]
    return judged(results, failed)


def judged(results: list[Any], failed: list[str] | None = None) -> Validation:
    """Model and live RunResults of the same configurations paired, summarised and judged (also
    for runs made in several sittings and read back from their files). Every configuration is
    shown; the targets judge the one-broker configurations on their live runs not marked noise
    (placed badly: a broker or a neighbour waited for a core) and say why they leave any out."""
    pairs = pair_results(results)
    clean = pair_results([r for r in results if r.evaluator != "live" or not r.summary.noise])
    together = [pair for pair in clean if brokers(pair) == 1]
    spreads = repeats(results)
    kept = {pair.scenario for pair in clean}
    apart = {pair.scenario: f"{brokers(pair)} brokers: judged on their parts alone (this machine cannot give each broker a core)"
             for pair in pairs if brokers(pair) > 1}
    apart |= {pair.scenario: "every live run placed badly or noisy: shown, not judged"
              for pair in pairs if pair.scenario not in kept and pair.scenario not in apart}
    summary = fidelity_summary(together)
    return Validation(pairs, summary, [repeat_target(spreads), *judge(together, summary)], failed or [], spreads, apart)


def repeat_target(spreads: list[Repeats]) -> Target:
    """The judge's own bar (``tuner.repeats``): every one-broker configuration's live repeats within
    ``REPEAT_SPREAD`` of their median in requests, records per request and each neighbour's p99 during the load."""
    name = f"live repeats: requests, records/request and neighbour p99 during within {REPEAT_SPREAD:.0%} of their median"
    judged_ = [(r, r.verdict) for r in spreads if r.verdict is not None]
    unjudged = [f"{r.configuration} ({'several brokers' if r.brokers > 1 else 'noise' if r.noise else 'too few runs'})"
                for r in spreads if r.verdict is None]
    if not judged_:
        return Target(name, None, "no configuration judged" + (f" ({', '.join(unjudged)})" if unjudged else ""))
    misses = [f"{r.configuration} ({', '.join(r.misses)})" for r, ok in judged_ if not ok]
    return Target(name, not misses, f"{len(judged_) - len(misses)} of {len(judged_)} hold"
                  + (f"; misses: {'; '.join(misses)}" if misses else "")
                  + (f"; not judged: {', '.join(unjudged)}" if unjudged else ""))
