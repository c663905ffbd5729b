import pickle

import pytest

from simulator.model.compression import (
    CODECS, CompressionCurve, compress, decompress, encode_records, measure_curve, record_overhead,
)
from workloads.rows import generate_rows, to_json_value

ROWS = generate_rows(2000, seed=11)
VALUES = [to_json_value(row) for row in ROWS]
CURVES = {codec: measure_curve(VALUES, None, codec) for codec in CODECS}


def test_two_records_encode_as_default_record_writes_them():
    section = encode_records([b"ab", b"xyz"], keys=[None, b"k"], timestamp_deltas=[0, 3])
    # length, attributes, timestampDelta, offsetDelta, keyLength(-1 = null), value length, value, headers
    first = bytes([0x10, 0x00, 0x00, 0x00, 0x01, 0x04]) + b"ab" + b"\x00"
    # body 10 bytes -> zigzag 20; ts 3 -> 6; offset 1 -> 2; key length 1 -> 2
    second = bytes([0x14, 0x00, 0x06, 0x02, 0x02]) + b"k" + b"\x06" + b"xyz" + b"\x00"
    assert section == first + second


def test_long_value_length_takes_a_two_byte_varint():
    section = encode_records([b"v" * 100])
    # body = 1 + 1 + 1 + 1 + 2 + 100 + 1 = 107 -> zigzag 214 = 0xd6 0x01; 100 -> 200 = 0xc8 0x01
    assert section[:7] == bytes([0xD6, 0x01, 0x00, 0x00, 0x00, 0x01, 0xC8]) and section[7] == 0x01


def test_default_timestamps_advance_one_ms_per_sixteen_records():
    section = encode_records([b""] * 17)
    # each record: length 0x0c, attributes, ts delta, offset delta, null key, empty value, headers
    assert section[2] == 0x00 and section[7 * 15 + 2] == 0x00 and section[7 * 16 + 2] == 0x02


def _record_at(offset: int, value_len: int, key_len: int | None) -> bytes:
    """The encoded bytes of one record placed at ``offset`` in a batch, 3 ms after the first."""
    values = [b""] * offset + [b"v" * value_len]
    keys = [None] * offset + [None if key_len is None else b"k" * key_len]
    deltas = [0] * offset + [3]
    return encode_records(values, keys, deltas)[len(encode_records(values[:-1], keys[:-1], deltas[:-1])):]


@pytest.mark.parametrize("value_len", [0, 1, 50, 57, 58, 63, 64, 200, 8000, 9000])
@pytest.mark.parametrize("key_len", [None, 0, 16, 70])
@pytest.mark.parametrize("offset", [0, 63, 64])
def test_record_overhead_matches_the_encoding(value_len, key_len, offset):
    record = _record_at(offset, value_len, key_len)
    assert len(record) - value_len - (key_len or 0) == record_overhead(value_len, key_len, offset, 3)


def test_record_overhead_grows_with_a_three_byte_offset_delta():
    record = _record_at(8192, 500, 16)
    assert len(record) - 516 == record_overhead(500, 16, 8192, 3) == record_overhead(500, 16, 0, 3) + 2


def test_mismatched_keys_are_refused():
    with pytest.raises(ValueError, match="2 keys for 1 values"):
        encode_records([b"a"], [b"k", b"k"])


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip_through_the_real_decoders(codec):
    section = encode_records(VALUES[:400])  # > 64 KB: several lz4 and snappy blocks
    assert len(section) > 3 * 64 * 1024
    assert decompress(codec, compress(codec, section)) == section
    assert decompress(codec, compress(codec, b"")) == b""


def test_framing_matches_the_java_streams():
    assert compress("snappy", b"")[:8] == b"\x82SNAPPY\x00"
    assert compress("lz4", b"") == b"\x04\x22\x4d\x18\x60\x40\x82\x00\x00\x00\x00"
    assert compress("gzip", b"abc")[:3] == b"\x1f\x8b\x08"
    assert compress("zstd", b"abc")[:4] == b"\x28\xb5\x2f\xfd"


def test_unknown_codec_is_named():
    with pytest.raises(ValueError, match="'brotli'"):
        compress("brotli", b"x")
    with pytest.raises(ValueError, match="'brotli'"):
        measure_curve(VALUES, None, "brotli")


def test_measuring_is_deterministic():
    assert measure_curve(VALUES, None, "zstd") == CURVES["zstd"]
    keys = [row["card_id"].encode() for row in ROWS]
    assert measure_curve(VALUES, keys, "lz4") == measure_curve(VALUES, keys, "lz4")


def test_none_is_exactly_one_everywhere():
    assert {ratio for _, ratio in CURVES["none"].points} == {1.0}
    assert CURVES["none"].ratio_at(5e6) == 1.0


def test_curve_spans_the_ladder_from_2kb_to_1mb():
    sizes = [size for size, _ in CURVES["zstd"].points]
    assert len(sizes) == 8
    # a window ends on the first record boundary past the ladder size
    assert 2048 <= sizes[0] <= 2048 * 1.5 and 1 << 20 <= sizes[-1] <= (1 << 20) * 1.01


def test_zstd_at_128kb_compresses_card_json_about_two_to_one():
    # Like the published case's real data; see tests/workloads/test_rows.py for what sets it.
    assert 0.40 <= CURVES["zstd"].ratio_at(128 * 1024) <= 0.60


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_bigger_batches_compress_at_least_as_well(codec):
    curve = CURVES[codec]
    assert curve.ratio_at(1 << 20) <= curve.ratio_at(2048)
    assert curve.ratio_at(2048) < 1.0


def test_entropy_coders_beat_lz_only_codecs():
    at = 128 * 1024
    for strong in ("gzip", "zstd"):
        for fast in ("lz4", "snappy"):
            assert CURVES[strong].ratio_at(at) < CURVES[fast].ratio_at(at)


def test_ratio_at_interpolates_in_log_size_and_clamps():
    curve = CompressionCurve("zstd", ((1000, 0.6), (4000, 0.4)))
    assert curve.ratio_at(2000) == pytest.approx(0.5)  # halfway in log(size)
    assert curve.ratio_at(10) == 0.6 and curve.ratio_at(1e9) == 0.4
    assert curve.ratio_at(4000) == 0.4


def test_short_sample_stops_the_curve_at_its_own_size():
    curve = measure_curve(VALUES[:16], None, "zstd")  # ~16 KB of records
    assert [size for size, _ in curve.points][-1] < 32 * 1024
    assert curve.ratio_at(1 << 20) == curve.points[-1][1]


def test_a_curve_reaches_a_worker_process_whole():
    curve = CURVES["zstd"]
    copied = pickle.loads(pickle.dumps(curve))
    assert copied == curve and type(copied) is CompressionCurve
    assert [copied.ratio_at(size) for size in (100, 3000, 70_000, 1 << 21)] == \
        [curve.ratio_at(size) for size in (100, 3000, 70_000, 1 << 21)]
