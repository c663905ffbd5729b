"""The model's error against the live stack on this machine: calibration, then held-out validation.

Runs `quietload calibrate`'s design on the local stack (each point CAL_REPEAT times) and writes
the fitted profile into OUT_DIR, then `quietload validate`'s held-out configurations live (REPEAT
times each) and on the model with that profile (SEEDS seeds each), and prints the calibration,
the table (per configuration and figure: the model's interval, the live median and spread,
live / model), the summary errors, the rank correlations and each target's verdict. Every
RunResult and fidelity.json/.md/.csv go to OUT_DIR. With --profile an existing calibrated profile
is used and the calibration is not run again. With --from the RunResults already in the given
directories (e.g. one validation run per configuration, made in several sittings) are paired and
judged together, and nothing runs.

    flock /tmp/quietload-live.lock .venv/bin/python bench/fidelity.py [--cal-repeat 3] [--repeat 3] [--seeds 5]
        [--profile PROFILE] [--point NAME ...] [--configuration NAME ...] [--scale 8]
        [--out results/fidelity-bench]
    .venv/bin/python bench/fidelity.py --from results/fidelity-a/validation --from results/fidelity-b/validation
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from simulator.contract import RunResult
from simulator.evaluator import model_evaluator
from tuner.calibration import CALIBRATION, HELD_OUT, calibrate, pick, render_calibration
from tuner.calibration.design import scaled
from tuner.calibration.calibrate import machine
from tuner.calibration.runs import live_evaluator, preflight
from reports.fidelity import render_validation, write_validation
from tuner.fidelity import judged, validate
from quietload.stopping import stop_signals_interrupt


def say(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", flush=True)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--cal-repeat", type=int, default=3)
    options.add_argument("--repeat", type=int, default=3)
    options.add_argument("--seeds", type=int, default=5)
    options.add_argument("--profile", help="an existing calibrated profile: skip the calibration")
    options.add_argument("--point", action="append", help="calibration design points (default: all)")
    options.add_argument("--configuration", action="append", help="held-out configurations (default: all)")
    options.add_argument("--scale", type=float, default=1.0,
                         help="every held-out configuration's CSV this many times as large (8: 96 MB loads)")
    options.add_argument("--out", type=Path, default=Path("results/fidelity-bench"))
    options.add_argument("--from", dest="sources", type=Path, action="append",
                         help="judge the RunResults in this directory (repeatable) instead of running")
    args = options.parse_args()
    if args.sources:
        validation = judged([RunResult.read(path) for source in args.sources for path in sorted(source.glob("*.json"))])
        print(render_validation(validation))
        for path in write_validation(validation, args.out):
            print(f"wrote {path}")
        return
    host = machine()
    print(f"machine: {host['cores']} cores ({host['cpu_model']}), Linux {host['kernel']}")
    began = time.monotonic()
    profile = args.profile
    if profile is None:
        points = preflight(pick(CALIBRATION, args.point, "--point"), "loopback", None, None, None, True)
        evaluator, version = live_evaluator(args.out / "stack", None, None, say)
        profile_path = args.out / "calibrated.yaml"
        result = calibrate(evaluator, points, "loopback", profile_path, args.cal_repeat, version, say, args.out / "calibration")
        print(render_calibration(result), flush=True)
        print(f"calibration: {(time.monotonic() - began) / 60:.1f} min", flush=True)
        profile = str(profile_path)
    held_out = tuple(scaled(p, args.scale) for p in pick(HELD_OUT, args.configuration, "--configuration"))
    configurations = preflight(held_out, profile, None, None, None)
    evaluator, _ = live_evaluator(args.out / "stack", None, None, say)
    started = time.monotonic()
    validation = validate(evaluator, model_evaluator(), configurations, profile, args.repeat, args.seeds, say,
                          args.out / "validation")
    print(f"validation: {(time.monotonic() - started) / 60:.1f} min; profile {profile}; live runs x{args.repeat}, "
          f"model seeds x{args.seeds}")
    print(render_validation(validation))
    for path in write_validation(validation, args.out):
        print(f"wrote {path}")


if __name__ == "__main__":
    with stop_signals_interrupt():    # SIGTERM unwinds as Ctrl-C does: the stack and its CPU budgets removed
        main()
