"""What a user wrote is shown on the terminal, never obeyed: control characters, invisible format
characters and lone surrogates escaped as Python writes them; a scenario's name one line of text;
names Kafka takes as identifiers (topics, a neighbour's client.id) refused unless Kafka would take
them; two loads an hour apart in a run of an hour refused."""
import pytest
from _bad_input import BASE, assert_refused, changed, write_yaml
from typer.testing import CliRunner

from quietload.cli import app
from quietload.terminal import printable


@pytest.mark.parametrize("text, shown", [
    ("x\x1b]0;pwned\x07y", "x\\x1b]0;pwned\\x07y"),          # an ANSI (OSC) sequence that would retitle the terminal
    ("a\u200bb\u202ec\ufeffd", "a\\u200bb\\u202ec\\ufeffd"),  # zero-width space, right-to-left override, BOM
    ("half \ud800 of one", "half \\ud800 of one"),
    ("back\rspace\b\x7f\x85", "back\\x0dspace\\x08\\x7f\\x85"),
    ("payé 支付 ✓", "payé 支付 ✓"),                          # printable text stays as it is
    ("two\nlines\tand a tab", "two\nlines\tand a tab"),
])
def test_printable_escapes_what_a_terminal_would_act_on(text, shown):
    assert printable(text) == shown


def test_an_error_is_one_line_whatever_it_quotes():
    assert printable("a\nb\tc", lines=False) == "a\\nb\\tc"


def test_a_file_name_in_an_error_is_escaped(tmp_path):
    line = assert_refused(["simulate", str(tmp_path / "a\x1b[2Jb.yaml")], "a\\x1b[2Jb.yaml")
    assert "\x1b" not in line


def test_an_error_line_names_a_long_path_by_its_start_and_its_end(tmp_path):
    line = assert_refused(["simulate", str(tmp_path / ("p" * 3_000_000 + ".yaml"))], "p.yaml")
    assert len(line) < 700 and "characters ...] " in line


CASES = {
    "a lone surrogate in a name": ('name: "x\\ud800y"\n', "name: 'x\\ud800y' holds a lone surrogate, half of a character"),
    "a name with an escape": (changed("name", "x\x1b]0;pwned\x07y"), "name: 'x\\x1b]0;pwned\\x07y' holds a line break or a control character"),
    "a name with invisible characters": (changed("name", "pay\u200bments\u202e"), "name: 'pay\\u200bments\\u202e' holds a line break"),
    "a name with a line of its own": (changed("name", "x\nFAKE LINE: PASS"), "name: 'x\\nFAKE LINE: PASS' holds a line break"),
    "a name of 3 MB": (changed("name", "n" * 3_000_000), "... is 3,000,000 characters long; at most 100"),
    "a topic named ..": (changed("cluster|topics|1|name", ".."), "cluster.topics[1].name: '..' is no Kafka topic name"),
    "a topic named .": (changed("cluster|topics|1|name", "."), "cluster.topics[1].name: '.' is no Kafka topic name"),
    "a topic with a space": (changed("cluster|topics|1|name", "my topic"), "cluster.topics[1].name: 'my topic' is no Kafka topic name"),
    "a topic with an escape": (changed("cluster|topics|1|name", "api\x1b[31m"), "cluster.topics[1].name: 'api\\x1b[31m' is no Kafka topic name"),
    "a topic of 250 characters": (changed("cluster|topics|1|name", "t" * 250), "is no Kafka topic name (ASCII letters, digits"),
    "a neighbour named with a zero-width space": (changed("tenants|0|name", "api\u200b"), "tenants[0].name: 'api\\u200b' is no Kafka client.id"),
    "a neighbour named with a slash": (changed("tenants|0|name", "team/api"), "tenants[0].name: 'team/api' is no Kafka client.id"),
    "two loads an hour apart": (changed("batch|spacing", "1h", changed("batch|loads", 2)),
                                "batch.spacing: load 2 of 2 would start at 3601 s, not before windows.max_duration (3600 s) ends the run"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_name_kafka_would_not_take_is_refused(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    document, expected = CASES[case]
    path = write_yaml(tmp_path, "s.yaml", BASE if isinstance(document, str) else document)
    if isinstance(document, str):    # YAML's escape makes the half character; no Python string can be written as one
        (tmp_path / "s.yaml").write_text((tmp_path / "s.yaml").read_text().replace("name: small\n", document, 1))
    line = assert_refused(["simulate", path], expected)
    assert not any(ch in line for ch in "\x1b\u200b")
    assert [p.name for p in tmp_path.iterdir()] == ["s.yaml"]


def test_plan_refuses_loads_spaced_past_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_refused(["plan", write_yaml(tmp_path, "s.yaml", BASE), "--loads", "2", "--spacing", "0,1h"],
                   "--spacing: load 2 of 2 would start at 3601 s")
