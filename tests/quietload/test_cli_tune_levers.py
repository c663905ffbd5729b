"""Issue 25: tune with the cluster's levers allowed reaches a pick on the published case's absolute
10 ms SLA, and check on the scenario tune wrote passes: the two never contradict each other."""
from typer.testing import CliRunner

from quietload.cli import app

SMALL = ["--set", "dataset.files.0.size=256MB", "--set", "windows.before=2s", "--set", "windows.after=1s"]


def test_tune_with_cluster_levers_finds_a_pick_that_check_passes(tmp_path):
    tuned = CliRunner().invoke(app, ["tune", "workloads/catalog/paypay-glue-2gb.yaml", *SMALL, "--levers", "job,quota,cluster",
                                     "--trials", "12", "--validate", "2", "--out", str(tmp_path),
                                     "--storage", f"sqlite:///{tmp_path}/study.db"])
    assert tuned.exit_code == 0, tuned.output
    lines = tuned.stdout.splitlines()
    assert lines[0].startswith("recommendation (trial ")
    assert any(line.startswith("  the cluster's operator: ") for line in lines)
    snippets = (tmp_path / "paypay-glue-2gb-snippets.txt").read_text()
    assert not snippets.startswith("# NOT A PASSING PICK") and "--entity-type brokers --entity-default" in snippets
    checked = CliRunner().invoke(app, ["check", str(tmp_path / "paypay-glue-2gb-tuned.yaml")])
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.startswith("PASS paypay-glue-2gb-tuned (model, seed 1): ")


def test_a_tune_without_a_feasible_trial_names_the_closest_and_the_wider_lever_that_passes(tmp_path):
    """Never only "none": the closest trial's miss, then the cheapest lever of a wider class, in one line."""
    tuned = CliRunner().invoke(app, ["tune", "workloads/catalog/paypay-glue-2gb.yaml", *SMALL, "--trials", "6",
                                     "--validate", "2", "--out", str(tmp_path), "--storage", f"sqlite:///{tmp_path}/study.db"])
    assert tuned.exit_code == 1, tuned.output
    lines = tuned.stdout.splitlines()
    assert lines[0].startswith("no trial met the constraints; closest (trial ")
    [wider] = [line for line in lines if line.startswith("  it passes on the model with ")]
    assert "the cluster's operator setting num.replica.fetchers = 4" in wider and "--levers job,quota,cluster" in wider
    snippets = (tmp_path / "paypay-glue-2gb-snippets.txt").read_text().splitlines()
    assert snippets[0].startswith("# NOT A PASSING PICK: trial ") and snippets[1] == "# " + wider.strip()
    # issue 25, problem 5: the header's miss and the "why" quote the same runs (the values printed, rounded)
    header = lines[0].split("missed: ", 1)[1]
    for miss in header.split(", "):
        name, p99 = miss.split(" p99 ")[0], miss.split(" p99 ")[1].split(" ms")[0]
        [why] = [line for line in lines if line.startswith(f"  - {name} p99 during the load ")]
        assert f"-> {p99} ms" in why
