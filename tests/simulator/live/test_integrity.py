"""The integrity check on small hand-made inputs: Spark's CSV reading rules, and a loss, a
duplicate and a stranger row each counted exactly. The end-to-end check is in test_spark_job.py."""
import gzip
import json

from simulator.live.integrity import digest, expected_digest, row_hash, spark_csv_rows, verify

# What Spark 4.1's CSV reader (header=true) and to_json(struct(*)) made of each line, read off a
# real session: empty and "" are null (omitted), \" escapes a quote, quotes that do not close
# at a delimiter leave the raw text, a quote still open at the line's end takes the rest of the
# line, one record per line, short rows padded with null, long rows cut, empty lines skipped.
TRICKY_CSV = ('a,b,c\n1,,x\n2,"",y\n3,"p,q","say ""hi"""\n4,"back\\"slash",z\n5, sp ,w\n6\n7,8,9,10\n\n'
              '8,"multi\nline",m\n9,é,"\\\\"\n')
SPARK_VALUES = ['{"a":"1","c":"x"}', '{"a":"2","c":"y"}', '{"a":"3","b":"p,q","c":"\\"say \\"\\"hi\\"\\"\\""}',
                '{"a":"4","b":"back\\"slash","c":"z"}', '{"a":"5","b":" sp ","c":"w"}', '{"a":"6"}',
                '{"a":"7","b":"8","c":"9"}', '{"a":"8","b":"multi"}', '{"a":"line\\"","b":"m"}',
                '{"a":"9","b":"é","c":"\\\\"}']


def _records(values: list[str], key: str | None = None) -> list[int]:
    """Row hashes of records as the job writes them (JSON value, key from the row)."""
    return [row_hash(json.loads(value), json.loads(value).get(key) if key else None) for value in values]


def test_csv_rows_are_read_as_spark_reads_them():
    assert list(spark_csv_rows(TRICKY_CSV.splitlines(keepends=True))) == [json.loads(v) for v in SPARK_VALUES]


def test_crlf_and_cr_line_ends_and_a_nameless_or_repeated_header():
    rows = list(spark_csv_rows(["id,,id\r\n", "1,2,3\r", "4,5,6"]))
    assert rows == [{"id": "1", "_c1": "2", "id2": "3"}, {"id": "4", "_c1": "5", "id2": "6"}]


def test_the_expected_digest_of_the_files_is_the_digest_of_what_spark_writes(tmp_path):
    plain, packed = tmp_path / "part-0.csv", tmp_path / "part-1.csv.gz"
    plain.write_text(TRICKY_CSV, encoding="utf-8")
    packed.write_bytes(gzip.compress("a,b,c\n10,11,12\n".encode()))
    expected = expected_digest([plain, packed], None)
    arrived = digest(_records(list(reversed(SPARK_VALUES)) + ['{"a":"10","b":"11","c":"12"}']))
    assert expected.rows == 11
    assert verify(expected, arrived).ok
    assert expected.content_hash == arrived.content_hash


def test_a_lost_row_a_duplicate_and_a_stranger_are_each_counted(tmp_path):
    data = tmp_path / "rows.csv"
    data.write_text("id,amount\n1,10.00\n2,20.00\n3,30.00\n4,40.00\n")
    expected = expected_digest([data], None)
    values = ['{"id":"1","amount":"10.00"}', '{"id":"2","amount":"20.00"}', '{"id":"3","amount":"30.00"}',
              '{"id":"4","amount":"40.00"}']

    lost = verify(expected, digest(_records(values[:3])))
    assert (lost.rows_expected, lost.rows_arrived, lost.missing, lost.duplicated, lost.unexpected) == (4, 3, 1, 0, 0)
    assert not lost.ok and not lost.hash_match

    doubled = verify(expected, digest(_records(values + values[1:2])))
    assert (doubled.rows_arrived, doubled.missing, doubled.duplicated, doubled.unexpected) == (5, 0, 1, 0)
    assert not doubled.ok

    # A loss and a duplicate cancel in the count: the hash and the multiset still catch them.
    swapped = verify(expected, digest(_records(values[:3] + values[:1])))
    assert (swapped.rows_arrived, swapped.missing, swapped.duplicated) == (4, 1, 1)
    assert not swapped.ok and not swapped.hash_match

    changed = verify(expected, digest(_records(values[:3] + ['{"id":"4","amount":"40.01"}'])))
    assert (changed.missing, changed.duplicated, changed.unexpected, changed.ok) == (1, 0, 1, False)

    assert verify(expected, digest(_records(values), complete=False)).ok is False
    assert verify(expected, digest(_records(values))).render() == (
        "integrity: 4 of 4 rows arrived, 0 missing, 0 duplicated, 0 unexpected, content hash matches: every row exactly once")


def test_the_key_is_part_of_each_row(tmp_path):
    data = tmp_path / "rows.csv"
    data.write_text("card_id,amount\nA,1\nB,2\n")
    values = ['{"card_id":"A","amount":"1"}', '{"card_id":"B","amount":"2"}']
    assert verify(expected_digest([data], "card_id"), digest(_records(values, key="card_id"))).ok
    assert not verify(expected_digest([data], "card_id"), digest(_records(values))).ok   # written without keys
