"""Whether the live side repeats itself: per configuration, its live runs' figures over the whole
load and over the load's steady middle (``simulator.contract.steady``), each as the median, the
lowest and highest run and the largest distance from the median. The judge's bar: every
one-broker configuration's produce requests, records per request and each neighbour's p99 during
the load, over the whole load, within ``REPEAT_SPREAD`` of their median. A configuration with a run
the machine's load made noise or that was placed badly (``summary.noise``: a broker or a neighbour
waited for a core) is shown and not judged; one of several brokers is not judged either: this
machine cannot give each broker a core of its own, so such a configuration is judged only on what
its parts show alone (docs/fidelity.md).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from simulator.contract.steady import steady_middle
from tuner.pairing import configuration_key

REPEAT_SPREAD = 0.15
JUDGED = ("requests", "records/request")     # and every neighbour's p99 during the load
P99_DURING = "p99 during (ms)"


@dataclass(frozen=True)
class Spread:
    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def distance(self) -> float | None:
        """The largest distance from the median, as a share of it (None: a median of 0)."""
        median = self.median
        return None if not median else max(abs(v - median) for v in self.values) / median

    @property
    def factor(self) -> float | None:
        """The largest factor between a run and the median (None: a run or the median at 0)."""
        median = self.median
        if median <= 0 or min(self.values) <= 0:
            return None
        return max(max(v / median, median / v) for v in self.values)


@dataclass(frozen=True)
class Repeats:
    configuration: str
    seeds: tuple[int, ...]
    figures: dict[str, Spread]        # title -> the runs' values; a figure a run lacks is left out
    middles: tuple[str, ...]          # each run's middle: "seconds 5-7 of load 3.0-9.6 s"
    noise: tuple[str, ...]            # the runs flagged noise: "seed 2: ..."
    brokers: int = 1

    def judged_figures(self) -> list[str]:
        return [*JUDGED, *(title for title in self.figures if title.endswith(" " + P99_DURING))]

    @property
    def verdict(self) -> bool | None:
        """The bar (every judged figure within ``REPEAT_SPREAD`` of its median); None: not judged
        (noise, several brokers, fewer than 2 runs, a run without a judged figure)."""
        if self.noise or self.brokers > 1 or len(self.seeds) < 2:
            return None
        spreads = [self.figures.get(title) for title in self.judged_figures()]
        if any(spread is None or len(spread.values) != len(self.seeds) for spread in spreads):
            return None
        return all(spread.distance is not None and spread.distance <= REPEAT_SPREAD for spread in spreads)  # type: ignore[union-attr]

    @property
    def misses(self) -> list[str]:
        """The judged figures whose runs are further than ``REPEAT_SPREAD`` from their median."""
        return [title for title in self.judged_figures()
                if (spread := self.figures.get(title)) is not None and (spread.distance is None or spread.distance > REPEAT_SPREAD)]


def waited(core_waits: dict) -> dict[str, float]:
    """A live run's waits for a core (``summary.core_waits``) as figures: each thread group's wait as a
    share of the load's window, and the time others ran on the brokers' cores (shown, not judged here:
    a run over the share is noise already)."""
    out = {}
    for group, figures in core_waits.items():
        if "wait_pct" in figures:
            out[f"{group} waited for a core (%)"] = figures["wait_pct"]
        elif "foreign_pct" in figures:
            out[f"{group}: others' time (%)"] = figures["foreign_pct"]
    return out


def repeats(results: list[Any]) -> list[Repeats]:
    """The live runs of ``results`` grouped by configuration (the scenario but its placement), in first-seen order."""
    groups: dict[str, list[Any]] = {}
    for result in results:
        if result.evaluator == "live":
            groups.setdefault(configuration_key(result), []).append(result)
    out = []
    for runs in groups.values():
        values: dict[str, list[float]] = {}
        middles = []
        for run in runs:
            s, middle = run.summary, steady_middle(run)
            whole = {"requests": s.produce_requests, "records/request": s.records_per_request,
                     **{f"{t.name} {P99_DURING}": t.p99_ms_during for t in s.tenants}, **waited(s.core_waits or {})}
            if middle is not None:
                whole |= {"steady requests/s": middle.requests_per_s, "steady records/request": middle.records_per_request}
                load = run.windows["during"]
                middles.append(f"seed {run.seed}: seconds {middle.first_s}-{middle.last_s} of load {load[0]:.1f}-{load[1]:.1f} s")
            else:
                middles.append(f"seed {run.seed}: no steady middle")
            for title, value in whole.items():
                if value is not None:
                    values.setdefault(title, []).append(float(value))
        out.append(Repeats(str(runs[0].scenario.get("name")), tuple(r.seed for r in runs),
                           {title: Spread(tuple(v)) for title, v in values.items()}, tuple(middles),
                           tuple(f"seed {r.seed}: {'; '.join(r.summary.noise)}" for r in runs if r.summary.noise),
                           int((runs[0].scenario.get("cluster") or {}).get("brokers", 1))))
    return out
