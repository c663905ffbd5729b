"""A calibrated profile's Spark micro-batch costs measured live (tuner/calibration/streaming.py).

Runs the micro-batch pipeline alone beside a small load on the local stack REPEAT times, reads
each batch's Spark progress in the window before the load, and writes the means into the
profile's ``streaming`` section with their provenance (measured; the costs no run exercises stay
assumed). With --from the RunResults already in DIR are measured again and nothing runs.

    flock /tmp/quietload-live.lock .venv/bin/python bench/streaming_costs.py [--profile loopback-calibrated]
        [--repeat 2] [--out results/streaming-costs]
    .venv/bin/python bench/streaming_costs.py --from results/streaming-costs
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from simulator.contract import RunResult
from tuner.calibration.runs import PointRuns, live_evaluator, preflight, run_points
from tuner.calibration.streaming import MICROBATCH_ALONE, measure, render_streaming_costs, write_streaming_costs
from workloads.profile import PROFILE_DIR
from quietload.stopping import stop_signals_interrupt


def say(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", flush=True)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--profile", default="loopback-calibrated", help="the calibrated profile to complete")
    options.add_argument("--repeat", type=int, default=2)
    options.add_argument("--out", type=Path, default=Path("results/streaming-costs"))
    options.add_argument("--from", dest="source", type=Path, help="measure the RunResults in this directory instead")
    args = options.parse_args()
    path = Path(args.profile) if Path(args.profile).suffix else PROFILE_DIR / f"{args.profile}.yaml"
    if args.source:
        runs = PointRuns(MICROBATCH_ALONE, [RunResult.read(p) for p in sorted(args.source.glob(f"{MICROBATCH_ALONE.name}-live-seed*.json"))])
    else:
        point, = preflight((MICROBATCH_ALONE,), str(path), None, None, None)
        evaluator, _ = live_evaluator(args.out / "stack", None, None, say)
        runs, = run_points((point,), str(path), evaluator, args.repeat, say, args.out)
    costs = measure(runs)
    write_streaming_costs(path, costs)
    print(render_streaming_costs(costs))
    print(f"wrote {path}")


if __name__ == "__main__":
    with stop_signals_interrupt():    # SIGTERM unwinds as Ctrl-C does: the stack and its CPU budgets removed
        main()
