"""The readers under every command: YAML without aliases or deep nesting, numbers that are
finite and within what Kafka and Spark take."""
import math

import pytest

from workloads import ScenarioError
from workloads._fields import INT_MAX, positive_int, sentence, sentences
from workloads.loader import MAX_NESTING, safe_yaml
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
    from workloads.loader import dump_yaml, safe_yaml
    shared = {"gzip": 3.5, "zstd": 1.2}
    document = {"decompress_byte_ns": shared, "compress_byte_ns": shared}
    text = dump_yaml(document)
    assert "&" not in text and "*" not in text
    assert safe_yaml(text, "profile", "the profile") == document
