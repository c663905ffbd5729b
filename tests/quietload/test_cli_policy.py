"""``quietload policy`` derives a policy that holds on seeds it never searched, ``check --policy`` holds
jobs to one in the gate's own forms, and a bad policy file is one line, exit 2, nothing written."""
import json
import shlex
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from typer.testing import CliRunner

from quietload.cli import app
from judging.policy_gate import POLICY_RULE
from workloads import CATALOG
from workloads.policy import Policy

ROOT = Path(__file__).parent.parent.parent
GOLDEN = ROOT / "tests" / "golden"
XSD = ROOT / "tests" / "data" / "junit-10.xsd"
# the published case, small: a 256 MB file, short windows; its neighbours breach their SLA without a policy
SMALL = ["--set", "dataset.files.0.size=256MB", "--set", "windows.before=2s", "--set", "windows.after=2s"]
HAND_WRITTEN = """\
name: card-payments-night
classes:
  - name: card-loads
    match: {client.id: [batch-load, "daily-*"]}
    producer: {linger.ms: 10, batch.size: 128KB, compression.type: [zstd, lz4], acks: all, enable.idempotence: true}
    quota: {producer_byte_rate: 20MB/s, request_percentage: 50}
"""


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def derived(tmp_path_factory):
    """The small case's policy, 30 trials on seed 1 as tune runs them (the first that holds is trial 22),
    proven on held-out seeds 4-6 (~15 s)."""
    out = tmp_path_factory.mktemp("policy")
    result = _run("policy", CATALOG / "paypay-glue-2gb.yaml", "--out", out, "--trials", 30, "--validate", 3, *SMALL)
    return result, out


def _class_settings(policy: Policy) -> list[str]:
    """The --set values of a job at the bounds of the policy's first class, its quota too."""
    job = policy.classes[0]
    producer = job.producer
    return ["--set", f"batch.producer.linger.ms={producer.linger_ms:g}", "--set", f"batch.producer.batch.size={producer.batch_size}",
            "--set", f"batch.producer.compression.type={producer.compression_type[0]}", "--set", f"batch.producer.acks={producer.acks}",
            "--set", f"batch.producer.enable.idempotence={'true' if producer.acks == 'all' else 'false'}",
            "--set", f"batch.producer.max.in.flight.requests.per.connection={producer.max_in_flight}",
            "--set", f"batch.quota.producer_byte_rate={job.quota.producer_byte_rate:.0f}B/s",
            "--set", f"batch.quota.request_percentage={job.quota.request_percentage:g}"]


def test_the_derived_policy_holds_on_its_held_out_seeds_and_the_night_without_it_does_not(derived):
    result, out = derived
    assert result.exit_code == 0, result.output
    proof = json.loads((out / "paypay-glue-2gb-policy.json").read_text())
    assert (proof["held"], proof["model_seeds"], proof["held_out_seeds"], proof["jobs"]) == (True, [1, 2, 3], [4, 5, 6], ["batch"])
    assert all(t["within_sla"] and t["p99_ms_during"] <= t["sla_p99_ms"] for t in proof["with_policy"]["tenants"])
    assert not any(t["within_sla"] for t in proof["without_policy"]["tenants"])
    # the policy on every held-out seed; the night without it up to the first that misses: seed 4
    assert (proof["with_policy"]["seeds"], proof["without_policy"]["seeds"]) == ([4, 5, 6], [4])
    assert "  the night without it missed on held-out seed 4: the seeds after it not run" in result.stdout.splitlines()
    assert result.stdout.startswith("policy for paypay-glue-2gb: holds every SLA on the worst night (1 job at once: batch) "
                                    "on held-out model seeds 4-6\n")


def test_with_every_trial_pruned_the_closest_so_far_is_written_marked_and_counted(tmp_path):
    result = _run("policy", CATALOG / "paypay-glue-2gb.yaml", "--out", tmp_path, "--trials", 2, "--validate", 1, *SMALL,
                  "--set", "tenants.0.sla_p99=1us", "--set", "tenants.1.sla_p99=1us")   # no setting holds it
    assert result.exit_code == 1, result.output
    proof = json.loads((tmp_path / "paypay-glue-2gb-policy.json").read_text())
    assert (proof["held"], proof["trials"], proof["pruned"]) == (False, 0, 2)
    region = next(i for i, note in enumerate(proof["notes"]) if note.startswith(f"the policy is the region around trial {proof['trial']}: "))
    assert proof["notes"][region - 1] == (f"no trial of 2 (2 pruned) met every SLA on model seed 1: trial {proof['trial']}, "
                                          "the closest so far (pruned), is written")
    assert proof["notes"][region + 1].startswith(f"trial {proof['trial']}: the region around it (")


def test_a_job_at_the_policys_bounds_conforms_and_keeps_every_sla_on_a_held_out_seed(derived, tmp_path):
    _, out = derived
    policy_file = out / "paypay-glue-2gb-policy.yaml"
    policy = Policy.from_yaml(policy_file)
    assert [c.name for c in policy.classes] == ["batch", "other-batch-jobs"]
    assert policy.classes[0].proven.seeds == (4, 5, 6) and policy.classes[1].proven is None
    checked = _run("check", CATALOG / "paypay-glue-2gb.yaml", *SMALL, *_class_settings(policy), "--seed", 5,
                   "--policy", policy_file, "--json", tmp_path / "check.json")
    gate = json.loads((tmp_path / "check.json").read_text())
    rules = {v["rule"]: v["status"] for v in gate["verdicts"]}
    assert rules["neighbour_sla"] == "pass", checked.output
    assert {rule: status for rule, status in rules.items() if rule.startswith(POLICY_RULE)} == {
        f"policy.{name}": "pass" for name in ("linger.ms", "batch.size", "compression.type", "acks", "enable.idempotence",
                                              "max.in.flight.requests.per.connection", "producer_byte_rate",
                                              "request_percentage")}


def test_tunes_pick_passes_check_policy_of_the_policy_derived_for_the_same_scenario_and_slas(derived, tmp_path):
    """The policy is the region around the held pick of the very study tune runs: tune's pick keeps every rule."""
    _, out = derived
    tuned = _run("tune", CATALOG / "paypay-glue-2gb.yaml", "--out", tmp_path, "--trials", 30, "--validate", 3, *SMALL)
    assert tuned.exit_code == 0, tuned.output
    proof = json.loads((out / "paypay-glue-2gb-policy.json").read_text())
    study = json.loads((tmp_path / "paypay-glue-2gb-study.json").read_text())
    assert (study["recommended"]["trial"], study["recommended"]["params"]) == (proof["trial"], proof["params"])
    checked = _run("check", tmp_path / "paypay-glue-2gb-tuned.yaml", "--policy", out / "paypay-glue-2gb-policy.yaml",
                   "--json", tmp_path / "check.json")
    assert checked.exit_code == 0, checked.output
    verdicts = json.loads((tmp_path / "check.json").read_text())["verdicts"]
    assert [v["rule"] for v in verdicts if v["status"] != "pass" and v["rule"].startswith(POLICY_RULE)] == []
    assert any(line.startswith("PASS paypay-glue-2gb-tuned (model, seed 1): 12 of 13 rules passed")
               for line in checked.output.splitlines()), checked.output


def test_the_quota_commands_set_the_policys_quota_on_the_jobs_client_id(derived):
    _, out = derived
    policy = Policy.from_yaml(out / "paypay-glue-2gb-policy.yaml")
    commands = [line for line in (out / "paypay-glue-2gb-quotas.sh").read_text().splitlines() if line.startswith("kafka-configs.sh")]
    quota = policy.classes[0].quota
    assert [shlex.split(line)[-7:] for line in commands] == [
        ["--alter", "--entity-type", "clients", "--entity-name", "batch-load", "--add-config",
         f"producer_byte_rate={quota.producer_byte_rate:.0f},request_percentage={quota.request_percentage:g}"]]


def test_the_report_renders_the_proof(derived, tmp_path):
    _, out = derived
    result = _run("report", out / "paypay-glue-2gb-policy.json", "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report" / "report.md").read_text()
    assert "## Policy: paypay-glue-2gb" in page and "policy proof of paypay-glue-2gb (held)" in page
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in page.splitlines()
            if line.startswith(("| payment-api ", "| fraud-scoring "))]
    assert [(row[3], row[5]) for row in rows] == [("yes", "NO"), ("yes", "NO")]
    assert "<h2>Policy: paypay-glue-2gb</h2>" in (tmp_path / "report" / "report.html").read_text()


@pytest.fixture()
def away(tmp_path, monkeypatch):
    """A directory without the catalog, so that check --result tries no change (fast) and judges the file as it is."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "policy.yaml").write_text(HAND_WRITTEN)
    return tmp_path


def test_the_published_baseline_breaks_the_policy_on_linger_ms_and_its_quota_in_every_form(away):
    result = _run("check", "--policy", "policy.yaml", "--result", GOLDEN / "paypay-glue-2gb.json",
                  "--json", "check.json", "--junit", "check.xml")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "FAIL paypay-glue-2gb (model, seed 1): 8 of 12 rules failed, 1 skipped"
    assert "  policy.linger.ms: batch: linger.ms=0 ms; class card-loads allows at least 10 ms" in lines
    assert "  policy.producer_byte_rate: batch: producer_byte_rate=none; class card-loads allows at most 20.0 MB/s per broker" in lines
    assert ("  - batch (the job's owner): to keep to class card-loads, linger.ms=10, compression.type=zstd, acks=all, "
            "enable.idempotence=true") in lines
    assert ("  kafka-configs.sh --bootstrap-server \"$BOOTSTRAP_SERVERS\" --command-config client.properties --alter "
            "--entity-type clients --entity-name batch-load --add-config producer_byte_rate=20971520,request_percentage=50") in lines
    gate = json.loads(Path("check.json").read_text())
    failed = [v["rule"] for v in gate["verdicts"] if v["status"] == "fail"]
    assert failed == ["neighbour_sla", "broker_cpu", "policy.linger.ms", "policy.compression.type", "policy.acks",
                      "policy.enable.idempotence", "policy.producer_byte_rate", "policy.request_percentage"]
    assert gate["outcome"] == "fail" and not any("job" in v for v in gate["verdicts"])
    xmlschema.XMLSchema(XSD).validate("check.xml")
    cases = {case.get("name"): case for case in ET.parse("check.xml").iter("testcase")}
    assert cases["policy.linger.ms"].find("failure").get("message") == "batch: linger.ms=0 ms; class card-loads allows at least 10 ms"
    assert cases["policy.batch.size"].find("failure") is None


def test_a_report_of_the_gate_result_still_pairs_it_with_its_run(away):
    _run("check", "--policy", "policy.yaml", "--result", GOLDEN / "paypay-glue-2gb.json", "--json", "check.json")
    result = _run("report", GOLDEN / "paypay-glue-2gb.json", "check.json", "--out", "report")
    assert result.exit_code == 0, result.output
    assert "policy.linger.ms" in Path("report/report.md").read_text()
    assert "[check --json]" in Path("report/report.md").read_text()


@pytest.mark.parametrize("text, message", [
    (HAND_WRITTEN.replace("linger.ms: 10", "lingr.ms: 10"), "classes[0].producer.lingr.ms: unknown key"),
    (HAND_WRITTEN.replace("acks: all", "acks: [all]"), "classes[0].producer.acks: expected 0, 1 or all, got ['all']"),
    (HAND_WRITTEN.replace("request_percentage: 50", "request_percentage: lots"), "classes[0].quota.request_percentage"),
    (HAND_WRITTEN + "owner: platform\n", "owner: unknown key"),
    ("- a list\n", "expected a mapping, got list"),
])
def test_a_bad_policy_file_is_one_line_exit_2_and_nothing_written(away, text, message):
    Path("policy.yaml").write_text(text)
    result = _run("check", "--policy", "policy.yaml", "--result", GOLDEN / "paypay-glue-2gb.json",
                  "--json", "check.json", "--junit", "check.xml")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --policy policy.yaml: ") and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert sorted(p.name for p in Path(".").iterdir()) == ["policy.yaml"]


@pytest.mark.parametrize("args, message", [
    (["--set", "batch.producer.lingr.ms=5"], "error: batch.producer.lingr.ms: unknown key"),
    (["--jobs-at-once", "0"], "--jobs-at-once"),
    (["--validate", "0"], "--validate"),
])
def test_policy_refuses_bad_input_in_one_line_and_writes_nothing(tmp_path, args, message):
    result = _run("policy", CATALOG / "paypay-glue-2gb.yaml", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2 and message in result.stderr and result.stderr.count("\n") == 1, result.output
    assert not (tmp_path / "out").exists()


def test_the_published_baseline_breaks_the_derived_policy_naming_linger_ms_and_the_quota(derived, away):
    _, out = derived
    result = _run("check", "--policy", out / "paypay-glue-2gb-policy.yaml", "--result", GOLDEN / "paypay-glue-2gb.json",
                  "--json", "check.json")
    assert result.exit_code == 1, result.output
    policy = Policy.from_yaml(out / "paypay-glue-2gb-policy.yaml")
    broken = {v["rule"]: v["reason"] for v in json.loads(Path("check.json").read_text())["verdicts"] if v["status"] == "fail"}
    assert broken["policy.linger.ms"] == f"batch: linger.ms=0 ms; class batch allows at least {policy.classes[0].producer.linger_ms:g} ms"
    assert broken["policy.producer_byte_rate"].startswith("batch: producer_byte_rate=none; class batch allows at most ")
    assert broken["policy.request_percentage"].startswith("batch: request_percentage=none; class batch allows at most ")


_SMALL_SCENARIO = """\
name: small
cluster: {brokers: 1, topics: [{name: bulk, partitions: 4}, {name: api, partitions: 2}]}
dataset: {files: [{size: 8MB}]}
batch: {topic: bulk, client: {kind: java, version: 3.9.0}, spark: {spark.executor.instances: 1, spark.executor.cores: 2},
        producer: {batch.size: 64KB, linger.ms: 5}}
tenants: [{name: api, topic: api, rate: 100/s, record_size: 1KB, sla_p99: 20ms}]
windows: {before: 1s, after: 1s}
"""

HOSTILE = "x\ntouch PWNED-newline\n$(touch PWNED-subst)`touch PWNED-tick`; touch PWNED-semicolon #"


def test_the_quota_script_of_a_scenario_at_a_hostile_path_runs_its_command_and_nothing_else(tmp_path, monkeypatch):
    """The scenario file's name holds a line break and shell; policy's lines and its script keep it inert."""
    monkeypatch.chdir(tmp_path)
    scenario = tmp_path / (HOSTILE + ".yaml")
    scenario.write_text(_SMALL_SCENARIO)
    result = CliRunner().invoke(app, ["policy", str(scenario), "--out", "out", "--trials", "2", "--validate", "1"])
    assert result.exit_code == 0, result.output
    assert not any(line.startswith("touch PWNED") for line in (result.stdout + result.stderr).splitlines())
    bin_dir, work = tmp_path / "bin", tmp_path / "work"
    bin_dir.mkdir()
    work.mkdir()
    (bin_dir / "kafka-configs.sh").write_text("#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$LOG\"\n")
    (bin_dir / "kafka-configs.sh").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "LOG": str(tmp_path / "calls.log"), "BOOTSTRAP_SERVERS": "b1:9092"}
    done = subprocess.run(["sh", str(tmp_path / "out" / "small-quotas.sh")], cwd=work, env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    assert list(work.iterdir()) == [] and not list(tmp_path.glob("PWNED*"))
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert len(calls) == 1 and calls[0].startswith("--bootstrap-server b1:9092 --command-config client.properties --alter "
                                                    "--entity-type clients --entity-name batch-load --add-config producer_byte_rate=")

