"""The readers under every command: YAML without aliases or deep nesting, numbers that are
finite and within what Kafka and Spark take."""
import math

import pytest

from workloads import ScenarioError
from workloads._fields import INT_MAX, positive_int, sentence, sentences
from workloads.reader import MAX_NESTING, safe_yaml
from workloads.units import (LONG_MAX, parse_byte_rate, parse_bytes, parse_milliseconds, parse_record_rate,
                             parse_seconds)


def test_plain_yaml_reads_as_before():
    assert safe_yaml("a: [1, {b: 2.5}]\nc: &anchor x\n", "f", "t") == {"a": [1, {"b": 2.5}], "c": "x"}


@pytest.mark.parametrize("text", ["a: &x [1]\nb: *x\n", "a: &x 1\nb: *x\n", "<<: *undefined\n"])
def test_an_alias_is_refused(text):
    with pytest.raises(ScenarioError, match=r"^f: t is not valid YAML at line \d+: aliases \(\*name\) are not allowed$"):
        safe_yaml(text, "f", "t")


def test_nesting_is_bounded():
    assert safe_yaml("[" * MAX_NESTING + "]" * MAX_NESTING, "f", "t") is not None
    with pytest.raises(ScenarioError, match=f"nested more than {MAX_NESTING} levels deep"):
        safe_yaml("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), "f", "t")
    with pytest.raises(ScenarioError, match="nested more than"):
        safe_yaml("a: " + "{b: " * 100_000 + "1" + "}" * 100_000, "f", "t")   # past the interpreter's stack


@pytest.mark.parametrize("parse, value", [
    (parse_milliseconds, math.nan), (parse_milliseconds, math.inf), (parse_milliseconds, -math.inf),
    (parse_milliseconds, 10**400), (parse_bytes, "9" * 400 + "KB"), (parse_seconds, "9" * 400 + "s"),
    (parse_record_rate, "9" * 400 + "/s"), (parse_byte_rate, "9" * 400 + "MB/s"),
])
def test_numbers_past_float_or_not_finite_are_refused(parse, value):
    with pytest.raises(ScenarioError) as refused:
        parse(value, "field")
    assert refused.value.field == "field" and len(str(refused.value)) < 120


def test_sizes_and_counts_stop_at_java_s_long_and_int():
    assert parse_bytes(LONG_MAX, "f") == LONG_MAX and parse_bytes("8TB", "f") == 8 * 1024**4
    with pytest.raises(ScenarioError, match=r"more than the largest size Kafka and Spark take \(2\^63-1 bytes\)"):
        parse_bytes(LONG_MAX + 1, "f")
    assert positive_int(INT_MAX, "f") == INT_MAX
    with pytest.raises(ScenarioError, match=r"more than Kafka and Spark take \(2\^31-1\)"):
        positive_int(INT_MAX + 1, "f")


def test_free_texts_are_texts():
    assert sentence(None, "description") == "" and sentences(["a", "b"], "assumptions") == ("a", "b")
    for bad in ({"a": 1}, ["a"], 3, 2.5):
        with pytest.raises(ScenarioError, match="^description: expected a text"):
            sentence(bad, "description")
    with pytest.raises(ScenarioError, match=r"^assumptions\[1\]: expected a text, got list"):
        sentences(["a", ["b"]], "assumptions")


def test_a_document_that_shares_a_value_is_written_without_aliases_and_reads_back():
    from workloads.reader import dump_yaml, safe_yaml
    shared = {"gzip": 3.5, "zstd": 1.2}
    document = {"decompress_byte_ns": shared, "compress_byte_ns": shared}
    text = dump_yaml(document)
    assert "&" not in text and "*" not in text
    assert safe_yaml(text, "profile", "the profile") == document


# Text libyaml and PyYAML's own parser might read apart: each must give the same value, or the same error line.
TRICKY = ["", " ", "\n", "# only a comment\n", "a: 1\n", "a: 1\r\nb: 2\r\n", "a: 1\rb: 2\r", "\ufeffa: 1\n", "a: \ufeff1\n",
          "a:\t1\n", "a: 1\t# note\n", "\ta: 1\n", "a:\n\t- 1\n", "a: [1,\t2]\n", "a: 'x\ty'\n", 'a: "x\\ty"\n', "a: x\ty\n",
          "a: 1\n---\nb: 2\n", "--- a\n...\n", "%YAML 1.1\n---\na: 1\n", "%YAML 1.3\n---\na: 1\n", "%TAG ! tag:x,2024:\n---\na: 1\n",
          "a: &x 1\nb: 2\n", "a: &x 1\nb: *x\n", "<<: {a: 1}\nb: 2\n", "a: {<<: [{b: 1}], c: 2}\n", "? [1, 2]\n: x\n",
          "? a\n", "a: !!binary aGVsbG8=\n", "a: !!python/object:os.system x\n", "a: !!str 1\n", "a: !custom 1\n",
          "a: 2024-06-03\nb: 2024-06-03 10:00:00+09:00\n", "a: 1_000\nb: .inf\nc: 0o17\nd: 0x1F\ne: +1\nf: 1e3\ng: 1.0e+3\n",
          "a: yes\nb: off\nc: ~\nd: null\ne: Null\n", "a: b: c\n", "- a\n b\n", "[1, 2", "{a: 1", "a:\n  - 1\n - 2\n", "a: 1   \n",
          '"\\ud800"', '"\\x85 \\N \\_ \\L \\P"', "a: \x85b\n", "a: b\u2028c\n", "a: \u00a0b\n", "a: 🙂\n", "a: \x07\n", "a: \ud800\n",
          "a: \ufffe\n", "k" * 1100 + ": 1\n", "? " + "k" * 1100 + "\n: 1\n", "a: |\n  x\n   y\n\n", "a: >-\n  x\n  y\n", "a: |2\n   x\n",
          "a: 'it''s'\n", 'a: "\\u00e9\\U0001F642"\n', "a: @x\n", "a: `x\n", "a: %x\n", "- - - 1\n", "[[[[1]]]]", "{a: [b, {c: d}]}",
          "a: 1\na: 2\n", "a:\n  b: 1\n  b: 2\n", "{a: 1, a: 2}", "- !!set {a, b}\n", "- !!omap [{a: 1}]\n", "a: !!float 1\n",
          "a: 0.1\nb: -0.0\nc: 1.7976931348623157e+309\n", "a: 12:30:00\n", "a: 190:20:30\n", "a: 0b101\n", "a: 010\n",
          "'a': 1\n\"b\": 2\n", "a: 'x\n  y'\n", 'a: "x\n  y"\n', "a: x\n  y\n", "---\n---\n", "...\n", "a: 1\n...\n---\nb: 2\n"]


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_libyaml_and_the_strict_loader_read_the_same(text, monkeypatch):
    import workloads.reader as loader

    def read() -> tuple:
        try:
            value = safe_yaml(text, "f", "t")
            return "value", repr(value), type(value)
        except ScenarioError as error:
            return "refused", str(error)
    fast = read()
    monkeypatch.setattr(loader, "_LIBYAML", None)   # PyYAML's own parser alone
    assert fast == read()
