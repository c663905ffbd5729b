"""The published case as the README tunes it (1.5x SLAs, 100 trials, each the worst of 3 seeds,
20 held-out seeds) and as `policy` derives a policy for it: the same SLA figures in every output,
the policy the region around tune's pick, and `check --policy` passing that pick. The commands
run as a user runs them, each in its own process (about two minutes of model runs)."""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "workloads" / "catalog" / "paypay-glue-2gb.yaml"
SLAS = ("--set", "tenants.0.sla_p99=1.5x", "--set", "tenants.1.sla_p99=1.5x")
STUDY = ("--trials", "100", "--repeat", "3")


def quietload(cwd: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quietload", *arguments], cwd=cwd, capture_output=True, text=True)


def sla_lines(output: str) -> list[str]:
    return sorted(set(re.findall(r"^\s*(\S+: SLA [0-9.]+ ms = 1\.5x its p99 alone, [0-9.]+ ms .*)$", output, re.M)))


def test_tunes_pick_of_the_published_case_passes_check_policy_of_the_policy_derived_for_it(tmp_path):
    tuned = quietload(tmp_path, "tune", str(PUBLISHED), *SLAS, *STUDY)
    assert tuned.returncode == 0, tuned.stderr[-2000:]
    study = json.loads((tmp_path / "results" / "paypay-glue-2gb-study.json").read_text())
    assert study["validation"]["held"] and study["validation"]["pick"] == study["pick"]

    derived = quietload(tmp_path, "policy", str(PUBLISHED), *SLAS, *STUDY, "--out", "p")
    assert derived.returncode == 0, derived.stderr[-2000:]
    proof = json.loads((tmp_path / "p" / "paypay-glue-2gb-policy.json").read_text())
    assert proof["held"] and proof["trial"] == study["pick"]     # the region around tune's own pick
    assert f"the policy is the region around trial {study['pick']}:" in derived.stdout

    checked = quietload(tmp_path, "check", "--policy", "p/paypay-glue-2gb-policy.yaml",
                        "results/paypay-glue-2gb-tuned.yaml")
    assert checked.returncode == 0 and checked.stdout.startswith("PASS paypay-glue-2gb-tuned"), checked.stdout
    # one SLA per neighbour, resolved once and said alike by all three
    assert len(sla_lines(tuned.stdout)) == 2
    assert sla_lines(tuned.stdout) == sla_lines(derived.stdout) == sla_lines(checked.stdout)
