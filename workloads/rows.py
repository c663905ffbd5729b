"""The dataset's rows, and the bytes each row becomes on its way from CSV to Kafka.

The job reads CSV with ``header=true`` and no schema inference, so every column is a
string, and writes ``to_json(struct(*))`` as the Kafka value. Sizes and compression
ratios downstream are measured on these exact bytes, so the generated rows must carry
the entropy of real card data (random IDs, amounts, timestamps), not repeat themselves.

The ``*_enc`` columns are cardholder data under field-level encryption. The published case
is a card issuer, and PCI DSS (requirements 3.4/3.5) obliges issuers to keep the PAN and
other cardholder data unreadable at rest, and their settlement and ledger exports commonly
carry it as ciphertext: AES-256-GCM per field, written as ``<key id>:base64(12-byte nonce + ciphertext
+ 16-byte tag)``, the ciphertext as long as the plaintext. Such ciphertext is
indistinguishable from random bytes, so it is drawn from the seeded RNG; each row gets a
fresh nonce, while a card's plaintext lengths stay fixed. These columns give the values the
entropy of real issuer data: zstd-3 packs their ``to_json`` a little over 2:1 at 128 KB
batches (ratio ~0.43), as in the published case; the plain columns alone, whose names
``to_json`` repeats in every value, would flatter it to about 4.5:1 (~0.22).
"""
from __future__ import annotations

import base64
import bisect
import csv
import hashlib
import io
import itertools
import json
import math
import random
import string
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from workloads.errors import ScenarioError
from workloads.reader import regular_file

_DAY_START = datetime(2024, 6, 3, tzinfo=timezone(timedelta(hours=9)))
_SECONDS_PER_DAY = 86_400
_CARD_POOL = 50_000
_MERCHANT_POOL = 5_000
_ALNUM = string.ascii_uppercase + string.digits
_KEY_ID = "k7"  # the day's data-encryption key version, prefixed to each ciphertext
_GCM_NONCE, _GCM_TAG = 12, 16

# (MCC, weight): grocery, restaurants, fuel and e-commerce dominate a consumer card book.
_MCCS = (
    ("5411", 14), ("5812", 10), ("5814", 9), ("5499", 6), ("5541", 6), ("5311", 4),
    ("5912", 4), ("5999", 5), ("4111", 4), ("4121", 3), ("5732", 2), ("5651", 3),
    ("5691", 2), ("5942", 1), ("5945", 1), ("5977", 2), ("7011", 2), ("4511", 1),
    ("4814", 2), ("4900", 2), ("5300", 2), ("5331", 3), ("5661", 1), ("5941", 1),
    ("7230", 1), ("7832", 1), ("8062", 1), ("8220", 1), ("5813", 2), ("7399", 2),
)
_STATUSES = (("APPROVED", 90), ("DECLINED", 6), ("REVERSED", 2), ("REFUNDED", 1), ("PENDING", 1))
_DECLINE_CODES = ("05", "51", "54", "55", "57", "61", "91")
_CHANNELS = (("POS", 52), ("ECOM", 30), ("RECURRING", 6), ("MOTO", 2), ("ATM", 3), ("QR", 7))
# channel -> the entry modes a terminal of that channel reports
_ENTRY_MODES = {
    "POS": ("CHIP", "CONTACTLESS", "CONTACTLESS", "MAGSTRIPE"),
    "ECOM": ("ECOM_3DS", "ECOM_3DS", "ECOM", "TOKEN"),
    "RECURRING": ("CREDENTIAL_ON_FILE",),
    "MOTO": ("MANUAL",),
    "ATM": ("CHIP",),
    "QR": ("QR_MPM", "QR_CPM"),
}
# Merchant country; the file settles every transaction in USD whatever the country.
_COUNTRIES = (("US", 80), ("CA", 4), ("GB", 4), ("MX", 3), ("JP", 3), ("DE", 2), ("FR", 2), ("IE", 1), ("NL", 1))
_BINS = ("414720", "426684", "434256", "453978", "476173", "486208", "517805", "524366",
         "535522", "542418", "546616", "552433", "371566", "379762", "601100", "622126")
_MERCHANT_WORDS = ("MART", "FOODS", "COFFEE", "PHARMACY", "FUEL", "DINER", "BOOKS", "GRILL",
                   "OUTLET", "MARKET", "TACO", "PIZZA", "STATION", "DELI", "TRAVEL", "STORE")
_MERCHANT_BRANDS = ("SUNRISE", "BLUE RIVER", "MAPLE", "REDWOOD", "HARBOR", "SUMMIT", "LIBERTY",
                    "GOLDEN", "PACIFIC", "PRAIRIE", "CEDAR", "METRO", "NORTHSTAR", "OAKWOOD")


def _cumulative(weighted: tuple[tuple[str, int], ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    return tuple(name for name, _ in weighted), tuple(itertools.accumulate(w for _, w in weighted))


_MCC_NAMES, _MCC_TOTALS = _cumulative(_MCCS)
_STATUS_NAMES, _STATUS_TOTALS = _cumulative(_STATUSES)
_CHANNEL_NAMES, _CHANNEL_TOTALS = _cumulative(_CHANNELS)
_COUNTRY_NAMES, _COUNTRY_TOTALS = _cumulative(_COUNTRIES)


def _zipf_rank(rng: random.Random, pool: int, exponent: float) -> int:
    """A rank in [0, pool) with P(rank) ~ (rank+1)^-exponent (continuous inverse CDF, exponent != 1).

    Closed form, so a 50k-card pool costs nothing to draw from.
    """
    a = 1.0 - exponent
    x = (1.0 + rng.random() * ((pool + 1) ** a - 1.0)) ** (1.0 / a)
    return min(int(x) - 1, pool - 1)


def _digest(seed: int, kind: str, rank: int) -> bytes:
    # Pool members are derived from (seed, rank) rather than stored, so the same card or
    # merchant keeps its identity on every draw without building a 50k-entry table.
    return hashlib.blake2b(f"{seed}:{kind}:{rank}".encode(), digest_size=16).digest()


def _card(seed: int, rank: int) -> tuple[str, str]:
    d = _digest(seed, "card", rank)
    bin_ = _BINS[d[0] % len(_BINS)]
    last4 = int.from_bytes(d[1:4], "big") % 10_000
    # Processors ship a masked PAN plus a per-card token so rows can be joined without the PAN.
    return f"{bin_}******{last4:04d}", d[4:14].hex()


def _cardholder(seed: int, rank: int) -> dict[str, int]:
    """Plaintext byte lengths of a card's encrypted fields: fixed per card, like the data."""
    d = _digest(seed, "holder", rank)
    return {
        "pan_enc": 16,
        "cardholder_name_enc": 8 + d[0] % 23,  # 8-30
        "email_enc": 15 + d[1] % 26,  # 15-40
        "phone_enc": 11 + d[2] % 3,  # 11-13, E.164 digits
        "billing_address_enc": 25 + d[3] % 46,  # 25-70
    }


def _ciphertext(rng: random.Random, plaintext_bytes: int) -> str:
    """An AES-256-GCM field as the export writes it: key id, base64(nonce + ciphertext + tag)."""
    sealed = rng.randbytes(_GCM_NONCE + plaintext_bytes + _GCM_TAG)
    return f"{_KEY_ID}:{base64.b64encode(sealed).decode('ascii')}"


def _merchant(seed: int, rank: int) -> dict[str, str]:
    d = _digest(seed, "merchant", rank)
    mcc = _MCC_NAMES[bisect.bisect_right(_MCC_TOTALS, d[0] * _MCC_TOTALS[-1] // 256)]
    name = f"{_MERCHANT_BRANDS[d[1] % len(_MERCHANT_BRANDS)]} {_MERCHANT_WORDS[d[2] % len(_MERCHANT_WORDS)]}"
    return {
        "merchant_id": f"{int.from_bytes(d[3:9], 'big') % 10**15:015d}",
        "merchant_name": f"{name} #{int.from_bytes(d[9:11], 'big') % 10_000:04d}",
        "merchant_category": mcc,
        "terminal_base": f"{int.from_bytes(d[11:14], 'big') % 10**6:06d}",
    }


def _amount(rng: random.Random, mcc: str) -> float:
    # Log-normal around a typical ticket; travel and electronics tickets run larger.
    median = {"4511": 320.0, "7011": 180.0, "5732": 140.0, "8062": 150.0, "8220": 400.0}.get(mcc, 24.0)
    return round(max(0.5, rng.lognormvariate(math.log(median), 0.9)), 2)


def _arn(rng: random.Random, when: datetime) -> str:
    # Acquirer reference number: format code, acquirer BIN, Julian date, 11-digit sequence, check digit.
    body = f"7{rng.choice(('4427802', '4064921', '5543210'))}{when:%y}{when.timetuple().tm_yday:03d}"
    body += f"{rng.randrange(10**11):011d}"
    return body + str(sum(int(c) for c in body) % 10)


def generate_rows(n: int, seed: int) -> list[dict[str, str]]:
    """``n`` rows of one day's card-transaction settlement file, in time order."""
    if n < 0:
        raise ValueError(f"row count must not be negative, got {n}")
    rng = random.Random(seed)
    mean_gap = _SECONDS_PER_DAY / max(n, 1)
    elapsed = 0.0
    rows = []
    for _ in range(n):
        # Poisson arrivals: exponential gaps spread the rows over the day, millisecond precision.
        elapsed = min(elapsed + rng.expovariate(1.0 / mean_gap), _SECONDS_PER_DAY - 0.001)
        when = _DAY_START + timedelta(milliseconds=int(elapsed * 1000))
        card_rank = _zipf_rank(rng, _CARD_POOL, 0.7)
        masked_pan, card_token = _card(seed, card_rank)
        merchant = _merchant(seed, _zipf_rank(rng, _MERCHANT_POOL, 0.9))
        status = rng.choices(_STATUS_NAMES, cum_weights=_STATUS_TOTALS)[0]
        channel = rng.choices(_CHANNEL_NAMES, cum_weights=_CHANNEL_TOTALS)[0]
        country = rng.choices(_COUNTRY_NAMES, cum_weights=_COUNTRY_TOTALS)[0]
        amount = _amount(rng, merchant["merchant_category"])
        approved = status != "DECLINED"
        installments = rng.choices(("1", "3", "6", "12"), weights=(92, 4, 2, 2))[0]
        rows.append({
            "transaction_id": "%08x-%04x-4%03x-%04x-%012x" % (
                rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                0x8000 | rng.getrandbits(14), rng.getrandbits(48)),
            "transaction_ts": when.isoformat(timespec="milliseconds"),
            "card_id": masked_pan,
            "card_token": card_token,
            "merchant_id": merchant["merchant_id"],
            "merchant_name": merchant["merchant_name"],
            "merchant_category": merchant["merchant_category"],
            "terminal_id": "" if channel in ("ECOM", "RECURRING", "MOTO") else
                           f"T{merchant['terminal_base']}{rng.randrange(1, 9):02d}",
            "amount": f"{amount:.2f}",
            "currency": "USD",
            "country": country,
            "channel": channel,
            "entry_mode": rng.choice(_ENTRY_MODES[channel]),
            "status": status,
            "response_code": "00" if approved else rng.choice(_DECLINE_CODES),
            # Declines carry no authorisation code: an empty field, i.e. null once in Spark.
            "auth_code": "".join(rng.choices(_ALNUM, k=6)) if approved else "",
            "rrn": f"{rng.randrange(10**12):012d}",
            "arn": _arn(rng, when) if approved else "",
            "installments": installments,
            "points_earned": str(int(amount)) if approved else "0",
            **{column: _ciphertext(rng, length) for column, length in _cardholder(seed, card_rank).items()},
        })
    return rows


def read_sample_csv(path: str | Path, limit: int | None = None) -> list[dict[str, str]]:
    """A user's own CSV sample, header row required; at most ``limit`` rows."""
    path = Path(path)
    if path.exists() and not path.is_dir():   # /dev/zero, a pipe: never ends (the one reader's check)
        try:
            regular_file(path, "")
        except ScenarioError as error:
            raise ValueError(f"CSV sample {error}.") from None
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            # A short row gets "" (null in Spark) for its missing columns, as Spark's reader does.
            reader = csv.DictReader(handle, restval="")
            if not reader.fieldnames:
                raise ValueError(f"CSV sample {path} is empty: it needs a header row and at least one data row.")
            rows = []
            for row in reader:
                if limit is not None and len(rows) >= limit:
                    break
                row.pop(None, None)  # extra trailing fields have no column, Spark drops them too
                rows.append(row)
    except FileNotFoundError:
        raise ValueError(f"CSV sample {path} does not exist.") from None
    except IsADirectoryError:
        raise ValueError(f"CSV sample {path} is a directory, not a CSV file.") from None
    except UnicodeDecodeError:
        raise ValueError(f"CSV sample {path} is not UTF-8 text.") from None
    except csv.Error as exc:
        raise ValueError(f"CSV sample {path} is not valid CSV: {exc}.") from None
    if not rows:
        raise ValueError(f"CSV sample {path} has a header but no data rows.")
    return rows


def csv_line(row: dict[str, str]) -> bytes:
    """The row as one line of the input file (minimal quoting, newline included)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(row.values())
    return buffer.getvalue().encode("utf-8")


def csv_text(rows: list[dict[str, str]]) -> bytes:
    """The rows as the input file holds them: ``csv_line`` of each, one after the other."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(row.values() for row in rows)
    return buffer.getvalue().encode("utf-8")


# Jackson's short escapes; every other control character becomes \\u00XX (upper-case hex).
_JSON_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_ESCAPES = str.maketrans({**{chr(c): f"\\u{c:04X}" for c in range(0x20)}, **_JSON_SHORT_ESCAPES})
# json's C encoder escapes as Jackson does (the short escapes, nothing else at or above U+0020)
# but writes \\u00XX's hex in lower case: a row holding such a character takes the table above.
_JSON_ROW = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _json_string(text: str) -> str:
    return '"' + text.translate(_JSON_ESCAPES) + '"'  # non-ASCII and '/' pass through unescaped


def to_json_value(row: dict[str, str | None]) -> bytes:
    """Exactly the bytes of Spark's ``to_json(struct(*))`` for this all-string CSV row.

    Spark's CSV reader turns an empty field into null, and ``to_json`` omits null fields
    (``spark.sql.jsonGenerator.ignoreNullFields`` defaults to true).
    """
    present = {k: v for k, v in row.items() if v}
    text = _JSON_ROW(present)
    if "\\u00" in text:   # json writes a control character's hex in lower case, Jackson in upper
        text = "{" + ",".join(f"{_json_string(k)}:{_json_string(v)}" for k, v in present.items()) + "}"
    return text.encode("utf-8")


@dataclass(frozen=True)
class RowShape:
    """Per-row byte sizes of a sample: what the simulator needs to size records."""

    rows: int
    mean_csv_bytes: float
    mean_value_bytes: float
    mean_key_bytes: float
    json_per_csv: float

    @classmethod
    def of(cls, rows: list[dict[str, str]], key_column: str | None, csv_bytes: int | None = None,
           values: list[bytes] | None = None) -> RowShape:
        """The sample's shape; ``csv_bytes`` (its CSV's length) and ``values`` (each row's
        ``to_json_value``) where the caller has them already."""
        if not rows:
            raise ValueError("cannot summarise an empty sample: it has no rows.")
        if key_column is not None and key_column not in rows[0]:
            raise ValueError(f"key column {key_column!r} is not a column of the sample "
                             f"(columns: {', '.join(rows[0])}).")
        if csv_bytes is None:
            csv_bytes = len(csv_text(rows))
        value_bytes = sum(len(value) for value in (values if values is not None else map(to_json_value, rows)))
        key_bytes = 0 if key_column is None else sum(len((row.get(key_column) or "").encode()) for row in rows)
        return cls(
            rows=len(rows),
            mean_csv_bytes=csv_bytes / len(rows),
            mean_value_bytes=value_bytes / len(rows),
            mean_key_bytes=key_bytes / len(rows),
            json_per_csv=value_bytes / csv_bytes,
        )
