"""Output paths are checked before the work starts; ``--json -`` writes to standard output;
``--version``; every command's --help fits 80 columns with nothing cut short."""
import json
import re

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from quietload import __version__
from quietload.cli import app
from workloads import CATALOG

BASE = str(CATALOG / "paypay-glue-2gb.yaml")
SMALL = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=2s", "--set", "windows.after=2s"]


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def _one_line_error(result, line: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [f"error: {line}"]   # nothing ran before it: no progress line


def _commands(command, path: tuple[str, ...] = ()):
    yield path, command
    if hasattr(command, "commands"):   # a group
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(get_command(app)))


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) or "quietload" for p, _ in COMMANDS])
def test_help_fits_80_columns_with_every_option_in_full(path, command):
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})   # a wide terminal too
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "…" not in result.stdout
    for param in command.params:
        for name in [] if getattr(param, "hidden", False) else getattr(param, "opts", []):
            if name.startswith("--"):
                assert re.search(rf"(^|[\s,/]){re.escape(name)}([\s,/=]|$)", result.stdout, re.M), name


def test_version_option_prints_the_version():
    result = _run("--version")
    assert result.exit_code == 0 and result.stdout == f"{__version__}\n"


def test_json_to_a_directory_or_under_a_file_is_refused_before_the_run(tmp_path):
    _one_line_error(_run("simulate", BASE, *SMALL, "--json", str(tmp_path)), f"--json: {tmp_path} is a directory; name a file")
    (tmp_path / "plain").write_text("")
    target = tmp_path / "plain" / "run.json"
    _one_line_error(_run("simulate", BASE, *SMALL, "--json", str(target)),
                    f"--json: {target}: {tmp_path / 'plain'} is not a directory")


def test_an_unwritable_place_is_refused_before_the_run():
    # /sys refuses new files even to root, unlike permission bits
    _one_line_error(_run("check", BASE, *SMALL, "--junit", "/sys/check.xml"),
                    "--junit: /sys/check.xml: cannot create files in /sys (Permission denied)")
    _one_line_error(_run("report", "nonexistent.json", "--out", "/sys/report"),
                    "--out: /sys/report: cannot create files in /sys (Permission denied)")


def test_report_out_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "taken").write_text("")
    _one_line_error(_run("report", "nonexistent.json", "--out", str(tmp_path / "taken")),
                    f"--out: {tmp_path / 'taken'} is not a directory")


def test_json_dash_writes_the_run_to_standard_output_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _run("simulate", BASE, *SMALL, "--json", "-")
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)
    assert run["schema_version"] == 1 and run["overrides"] == SMALL[1::2]
    assert "produce requests" in result.stderr            # the summary went to stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "-").exists()


def test_check_json_dash_writes_the_verdicts_to_standard_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _run("check", BASE, *SMALL, "--json", "-")
    assert result.exit_code in (0, 1), result.output
    verdicts = json.loads(result.stdout)
    assert verdicts["passed"] is (result.exit_code == 0)
    assert not (tmp_path / "-").exists()


def test_a_dash_where_no_stream_is_offered_is_refused():
    _one_line_error(_run("check", BASE, *SMALL, "--junit", "-"), "--junit: cannot write to standard output (-); name a file")


def test_tune_out_and_plan_json_are_checked_before_the_work(tmp_path):
    (tmp_path / "taken").write_text("")
    _one_line_error(_run("tune", BASE, *SMALL, "--out", str(tmp_path / "taken")),
                    f"--out: {tmp_path / 'taken'} is not a directory")
    _one_line_error(_run("plan", BASE, *SMALL, "--json", str(tmp_path)), f"--json: {tmp_path} is a directory; name a file")
