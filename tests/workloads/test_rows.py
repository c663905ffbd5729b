import base64
from collections import Counter
from datetime import datetime

import pytest
import zstandard

from workloads.rows import RowShape, csv_line, generate_rows, read_sample_csv, to_json_value

ROWS = generate_rows(2000, seed=7)


def _zstd_ratio_of_128kb_windows(chunks: list[bytes]) -> float:
    """Byte-weighted zstd-3 ratio over consecutive ~128 KB windows of ``chunks``."""
    compressor = zstandard.ZstdCompressor(level=3)
    plain = packed = 0
    window = b""
    for chunk in chunks:
        window += chunk
        if len(window) >= 128 * 1024:
            plain += len(window)
            packed += len(compressor.compress(window))
            window = b""
    return packed / plain


def test_same_seed_same_rows_other_seed_other_rows():
    assert generate_rows(50, seed=7) == generate_rows(50, seed=7)
    assert generate_rows(50, seed=8) != generate_rows(50, seed=7)


def test_rows_look_like_a_settlement_file():
    assert all(list(row) == list(ROWS[0]) for row in ROWS)
    assert len(ROWS[0]) == 25
    shape = RowShape.of(ROWS, key_column=None)
    assert 550 <= shape.mean_csv_bytes <= 700
    assert 900 <= shape.mean_value_bytes <= 1100
    assert len({row["transaction_id"] for row in ROWS}) == len(ROWS)
    assert all(len(row["auth_code"]) in (0, 6) for row in ROWS)
    assert all(row["amount"].count(".") == 1 and len(row["amount"].split(".")[1]) == 2 for row in ROWS)


def test_timestamps_increase_within_one_day():
    stamps = [datetime.fromisoformat(row["transaction_ts"]) for row in ROWS]
    assert stamps == sorted(stamps)
    assert len({stamp.date() for stamp in stamps}) == 1
    assert (stamps[-1] - stamps[0]).total_seconds() > 20 * 3600  # spread over the day, not bunched


def test_cards_and_merchants_are_skewed_pools():
    cards = Counter(row["card_id"] for row in ROWS)
    merchants = Counter(row["merchant_id"] for row in ROWS)
    # Skewed: a few regulars repeat, yet most of 2,000 rows still come from distinct cards.
    assert cards.most_common(1)[0][1] >= 3
    assert len(cards) > 1500
    assert merchants.most_common(1)[0][1] >= 20
    assert len(merchants) < 1500


# plaintext byte lengths of each encrypted column: PAN, then realistic name/email/phone/address
_PLAINTEXT_LENGTHS = {"pan_enc": (16, 16), "cardholder_name_enc": (8, 30), "email_enc": (15, 40),
                      "phone_enc": (11, 13), "billing_address_enc": (25, 70)}


def _sealed_length(field: str) -> int:
    key_id, _, encoded = field.partition(":")
    assert key_id == "k7"
    return len(base64.b64decode(encoded, validate=True))


def test_cardholder_data_is_aes_gcm_ciphertext():
    for row in ROWS:
        for column, (low, high) in _PLAINTEXT_LENGTHS.items():
            # 12-byte nonce + ciphertext as long as the plaintext + 16-byte tag
            assert low <= _sealed_length(row[column]) - 12 - 16 <= high
    # A fresh nonce for every field: no ciphertext repeats, not even for a regular's PAN.
    assert len({row["pan_enc"] for row in ROWS}) == len(ROWS)
    # A card's plaintexts are the same in every row, so their lengths are too.
    lengths = {}
    for row in ROWS:
        seen = tuple(_sealed_length(row[column]) for column in _PLAINTEXT_LENGTHS)
        assert lengths.setdefault(row["card_id"] + row["card_token"], seen) == seen
    assert len({length for *_, length in lengths.values()}) == 46  # every address length 25-70 occurs


def test_json_values_compress_about_two_to_one_like_real_issuer_data():
    # JSON repeats every column name in every value and names compress to almost nothing,
    # so the plain columns alone reach ~0.22; the encrypted cardholder fields (base64 of
    # random bytes, ~6 bits a character) bring it to the published case's ~2:1.
    ratio = _zstd_ratio_of_128kb_windows([to_json_value(row) for row in ROWS])
    assert 0.40 <= ratio <= 0.60


def test_csv_lines_compress_about_three_to_two():
    # Without the repeated names, ciphertext is over half of each line.
    ratio = _zstd_ratio_of_128kb_windows([csv_line(row) for row in ROWS])
    assert 0.55 <= ratio <= 0.75


def test_to_json_value_is_sparks_to_json_bytes():
    row = {"id": "7", "note": 'say "hi"', "auth_code": "", "path": "a/b\\c", "city": "東京", "raw": "x\ty\x1f"}
    expected = '{"id":"7","note":"say \\"hi\\"","path":"a/b\\\\c","city":"東京","raw":"x\\ty\\u001F"}'
    assert to_json_value(row) == expected.encode("utf-8")
    assert to_json_value({"a": "", "b": ""}) == b"{}"


def test_to_json_value_escapes_control_characters_in_upper_case_hex_and_nothing_else():
    row = {"nul": "\x00", "esc": "a\x1bb", "del": "\x7f", "sep": "\u2028", "lit": "\\u00ab", "bs": "\b\f\n\r"}
    expected = ('{"nul":"\\u0000","esc":"a\\u001Bb","del":"\x7f","sep":"\u2028","lit":"\\\\u00ab",'
                '"bs":"\\b\\f\\n\\r"}')
    assert to_json_value(row) == expected.encode("utf-8")
    assert to_json_value({"lit": "\\u00ab"}) == b'{"lit":"\\\\u00ab"}'   # a backslash, then text


def test_to_json_value_of_a_generated_row():
    row = {"transaction_id": "6f03675a", "amount": "6.00", "terminal_id": "", "status": "APPROVED"}
    assert to_json_value(row) == b'{"transaction_id":"6f03675a","amount":"6.00","status":"APPROVED"}'


def test_csv_line_quotes_only_when_needed():
    row = {"id": "7", "note": 'say "hi"', "empty": "", "name": "CEDAR, GRILL"}
    assert csv_line(row) == b'7,"say ""hi""",,"CEDAR, GRILL"\n'


def test_read_sample_csv_round_trips_csv_lines(tmp_path):
    path = tmp_path / "sample.csv"
    path.write_bytes(b"".join([csv_line({k: k for k in ROWS[0]})] + [csv_line(row) for row in ROWS[:20]]))
    assert read_sample_csv(path) == ROWS[:20]
    assert read_sample_csv(path, limit=5) == ROWS[:5]


@pytest.mark.parametrize("content", [None, b"", b"id,amount\n"])
def test_read_sample_csv_refuses_missing_empty_or_headless(tmp_path, content):
    path = tmp_path / "sample.csv"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError, match="sample.csv"):
        read_sample_csv(path)


def test_row_shape_of_a_known_sample():
    rows = [{"k": "ab", "v": "x"}, {"k": "", "v": "yz"}]
    shape = RowShape.of(rows, key_column="k")
    # csv: "ab,x\n" 5 + ",yz\n" 4; json: {"k":"ab","v":"x"} 18 + {"v":"yz"} 10
    assert shape == RowShape(rows=2, mean_csv_bytes=4.5, mean_value_bytes=14.0, mean_key_bytes=1.0,
                             json_per_csv=28 / 9)
    assert RowShape.of(rows, key_column=None).mean_key_bytes == 0


def test_row_shape_names_a_missing_key_column():
    with pytest.raises(ValueError, match="'user_id'"):
        RowShape.of(ROWS[:3], key_column="user_id")
