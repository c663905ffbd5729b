"""The night's policy, proven and then checked from its files alone.

1. ``quietload policy`` on the night's scenario (default: the catalog's three jobs) with the stated
   worst case (``--jobs-at-once``), its trials, and 20 held-out seeds.
2. From the written policy YAML alone (not the proof): every job of the worst night at its class's
   bounds, with its class's quota, run on the held-out seeds again; each neighbour's worst p99
   against its SLA, and every job of that night judged against the policy (all must conform).
3. ``check --policy`` of the published baseline (the golden run of ``paypay-glue-2gb.yaml``) against
   the derived policy: the policy rules it breaks (linger.ms and the quota among them).

Prints its figures; exits 1 if any of the three does not hold.

    .venv/bin/python bench/policy_night.py [--scenario FILE] [--jobs-at-once 1] [--trials 60] [--repeat 2]
                                           [--validate 20] [--set KEY=VALUE] [--out DIR]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simulator.contract.judgement import over
from simulator.evaluator import model_evaluator
from tuner.night import lay, with_jobs, worst_night
from workloads import CATALOG, Scenario
from workloads.policy import Policy, bounds_of, judge_scenario
from workloads.tuning import KNOBS
from workloads.scenario import load_mapping

ROOT = Path(__file__).resolve().parent.parent
NIGHT = CATALOG / "night-three-jobs.yaml"
BASELINE_RUN = ROOT / "tests" / "golden" / "paypay-glue-2gb.json"


def _bounds(policy: Policy, job) -> dict:
    """The knob values of ``job``'s class at its bounds (the floors, the first codec, the quota)."""
    return {name: value for name, value in bounds_of(policy.class_of(job.client_id, job.topic)).items() if name in KNOBS}


def _night_at_bounds(base: dict, jobs_at_once: int, policy: Policy) -> Scenario:
    """The worst night with each job at its own class's bounds (read from the policy file)."""
    night = worst_night(Scenario.from_mapping(base), jobs_at_once, {})
    laid = [lay(night, job, _bounds(policy, job)) for job in night.jobs]
    return with_jobs(night, laid) if night.listed else dataclasses.replace(night, jobs=tuple(laid))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", type=Path, default=NIGHT)
    parser.add_argument("--jobs-at-once", type=int, default=1)
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--validate", type=int, default=20)
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="policy-night-"))
    quietload = str(Path(sys.executable).parent / "quietload")
    started = time.monotonic()
    derived = subprocess.run([quietload, "policy", str(args.scenario), "--out", str(out), "--jobs-at-once",
                              str(args.jobs_at_once), "--trials", str(args.trials), "--repeat", str(args.repeat),
                              "--validate", str(args.validate), *(f"--set={o}" for o in args.overrides)],
                             stdout=subprocess.PIPE, text=True)
    print(derived.stdout)
    print(f"1. policy: exit {derived.returncode} in {time.monotonic() - started:,.0f} s")
    name = Scenario.from_yaml(args.scenario, args.overrides).name
    policy_file = next(out.glob("*-policy.yaml"))
    proof = json.loads(next(out.glob("*-policy.json")).read_text())
    policy = Policy.from_yaml(policy_file)
    night = _night_at_bounds(load_mapping(args.scenario, args.overrides), args.jobs_at_once, policy)
    evaluator, worst = model_evaluator(), {}
    for seed in proof["held_out_seeds"]:
        for tenant in evaluator.evaluate(night, seed).summary.tenants:
            seen = worst.get(tenant.name)
            if seen is None or tenant.p99_ms_during / tenant.sla_p99_ms > seen[0] / seen[1]:
                worst[tenant.name] = (tenant.p99_ms_during, tenant.sla_p99_ms, seed)
    within = not any(over(p99, sla) for p99, sla, _ in worst.values())
    print(f"2. {name}'s worst night from {policy_file.name} alone ({len(night.jobs)} job(s) at once), "
          f"held-out seeds {proof['held_out_seeds'][0]}-{proof['held_out_seeds'][-1]}:")
    for tenant, (p99, sla, seed) in worst.items():
        print(f"   {tenant:<22} worst p99 during {p99:8.2f} ms (seed {seed}) against SLA {sla:6.2f} ms")
    broken = [b for b in judge_scenario(night.as_mapping(), policy) if not b.kept]
    print(f"   every neighbour within its SLA: {within}; jobs conforming: "
          f"{len(night.jobs) - len({b.job for b in broken})} of {len(night.jobs)}")
    gate = subprocess.run([quietload, "check", "--policy", str(policy_file.resolve()), "--result", str(BASELINE_RUN),
                           "--json", "-"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          cwd=tempfile.mkdtemp())
    failed = [v["rule"] for v in json.loads(gate.stdout)["verdicts"] if v["status"] == "fail" and v["rule"].startswith("policy.")]
    print(f"3. check --policy of the published baseline: exit {gate.returncode}, policy rules broken: {', '.join(failed)}")
    names_linger_and_quota = "policy.linger.ms" in failed and any(r in failed for r in ("policy.producer_byte_rate",
                                                                                      "policy.request_percentage"))
    return 0 if derived.returncode == 0 and within and not broken and names_linger_and_quota else 1


if __name__ == "__main__":
    raise SystemExit(main())
