"""Whether the live side repeats itself: per configuration, its live runs' figures over the whole
load and over the load's steady middle (``simulator.contract.steady``), each as the median, the
lowest and highest run and the largest distance from the median. The judge's bar: over the steady
middle, every configuration's produce requests (a second) within ``REQUESTS_SPREAD`` of their
median and its records per request within ``RECORDS_FACTOR``. A configuration with a run the
machine's load made noise (``summary.noise``) is shown and not judged.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from simulator.contract.steady import steady_middle
from tuner.pairing import configuration_key

REQUESTS_SPREAD, RECORDS_FACTOR = 0.15, 1.25


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

    @property
    def verdict(self) -> bool | None:
        """The bar over the steady middle; None: not judged (noise, fewer than 2 runs, no middle)."""
        requests, records = self.figures.get("steady requests/s"), self.figures.get("steady records/request")
        if self.noise or requests is None or records is None or len(requests.values) < 2 \
                or len(requests.values) != len(self.seeds) or len(records.values) != len(self.seeds):
            return None
        distance, factor = requests.distance, records.factor
        return distance is not None and distance <= REQUESTS_SPREAD and factor is not None and factor <= RECORDS_FACTOR


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
            whole = {"requests": s.produce_requests, "records/request": s.records_per_request}
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
                           tuple(f"seed {r.seed}: {'; '.join(r.summary.noise)}" for r in runs if r.summary.noise)))
    return out
