"""Compression ratios of Kafka record batches, measured with the real codecs.

Kafka compresses only the *records section* of a v2 record batch; the 61-byte batch
header stays plain. So ratios here are records-section compressed / uncompressed, and
the model adds ``BATCH_HEADER_BYTES`` on top.

What each codec emulates (Java producer defaults, apache/kafka clients):

- ``gzip``: ``GzipCompression`` wraps ``java.util.zip.GZIPOutputStream`` at
  ``compression.gzip.level`` = -1 (``Deflater.DEFAULT_COMPRESSION``, i.e. zlib level 6;
  ``record/internal/CompressionType.java``). Same zlib, same deflate stream.
- ``snappy``: ``SnappyCompression`` wraps xerial ``SnappyOutputStream`` at its default
  32 KB block size: a 16-byte header, then per block a big-endian int length and a raw
  snappy block. cramjam's snappy is a port, so block sizes match closely, not bit for bit.
- ``lz4``: ``Lz4BlockOutputStream``: an LZ4 frame with independent 64 KB blocks, no
  checksums, no content size. ``compression.lz4.level`` defaults to 9 and at the default
  level Kafka uses lz4-java's *fast* compressor (as older ``KafkaLZ4BlockOutputStream``
  always did), i.e. plain ``LZ4_compress_default``.
- ``zstd``: ``ZstdCompression`` wraps zstd-jni ``ZstdOutputStreamNoFinalizer`` at
  ``compression.zstd.level`` = 3, streamed in 16 KB writes, so the frame has no content
  size and no checksum.
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import cramjam
import lz4.block  # type: ignore[import-untyped]
import lz4.frame  # type: ignore[import-untyped]
import zstandard

from simulator._core import CompressionRatios

BATCH_HEADER_BYTES = 61
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
# A Spark task's producer sends in a tight loop: about this many records share a millisecond.
RECORDS_PER_MS = 16
LADDER = tuple(k * 1024 for k in (2, 8, 32, 64, 128, 256, 512, 1024))
# Bytes compressed per ladder size, at most 8 windows: small sizes get several windows
# so one odd window does not decide the ratio; big sizes get one or two, to stay cheap.
_BYTES_PER_SIZE = 512 * 1024
_MAX_WINDOWS = 8

_GZIP_LEVEL = 6
_ZSTD_LEVEL = 3
_ZSTD_WRITE_BYTES = 16 * 1024  # Kafka's BufferedOutputStream in front of zstd-jni
_SNAPPY_BLOCK = 32 * 1024
_SNAPPY_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)  # magic, version, min compatible version
_LZ4_BLOCK = 64 * 1024
# Magic 0x184D2204 (LE), FLG 0x60 (version 1, independent blocks), BD 0x40 (64 KB), header checksum.
_LZ4_HEADER = b"\x04\x22\x4d\x18\x60\x40\x82"
_LZ4_UNCOMPRESSED = 0x80000000


def _varint(n: int) -> bytes:
    """Kafka's zigzag varint/varlong (``ByteUtils.writeVarint``/``writeVarlong``)."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _varint_len(n: int) -> int:
    z = (n << 1) ^ (n >> 63)
    return max(1, (z.bit_length() + 6) // 7)


def encode_records(values: list[bytes], keys: list[bytes | None] | None = None,
                   timestamp_deltas: list[int] | None = None) -> bytes:
    """The records section of a v2 batch, as ``DefaultRecord.writeTo`` lays it out.

    Without ``timestamp_deltas`` each record is ``index // RECORDS_PER_MS`` ms after the first.
    """
    if keys is not None and len(keys) != len(values):
        raise ValueError(f"got {len(keys)} keys for {len(values)} values; they must pair up.")
    out = bytearray()
    for offset, value in enumerate(values):
        key = None if keys is None else keys[offset]
        delta = offset // RECORDS_PER_MS if timestamp_deltas is None else timestamp_deltas[offset]
        body = b"".join((
            b"\x00",  # attributes: unused in v2 records
            _varint(delta),
            _varint(offset),
            _varint(-1) if key is None else _varint(len(key)) + key,
            _varint(len(value)) + value,
            b"\x00",  # no headers
        ))
        out += _varint(len(body)) + body
    return bytes(out)


def record_overhead(value_len: int, key_len: int | None = None,
                    offset_delta: int = 0, timestamp_delta: int = 0) -> int:
    """Bytes a record adds beyond its key and value (a null key costs what an empty one does)."""
    key_len = key_len or 0
    body = (1 + _varint_len(timestamp_delta) + _varint_len(offset_delta)
            + _varint_len(key_len) + key_len + _varint_len(value_len) + value_len + 1)
    return _varint_len(body) + body - key_len - value_len


def compress(codec: str, data: bytes) -> bytes:
    """``data`` compressed as the Java producer's default ``codec`` stream writes it."""
    if codec == "none":
        return data
    if codec == "gzip":
        deflater = zlib.compressobj(_GZIP_LEVEL, zlib.DEFLATED, 31)  # wbits 31: gzip wrapper
        return deflater.compress(data) + deflater.flush()
    if codec == "snappy":
        blocks = [_SNAPPY_HEADER]
        for start in range(0, len(data), _SNAPPY_BLOCK):
            block = bytes(cramjam.snappy.compress_raw(data[start:start + _SNAPPY_BLOCK]))
            blocks += [struct.pack(">i", len(block)), block]
        return b"".join(blocks)
    if codec == "lz4":
        blocks = [_LZ4_HEADER]
        for start in range(0, len(data), _LZ4_BLOCK):
            raw = data[start:start + _LZ4_BLOCK]
            block = lz4.block.compress(raw, mode="default", store_size=False)
            if len(block) >= len(raw):  # Kafka stores an incompressible block as is
                blocks += [struct.pack("<I", len(raw) | _LZ4_UNCOMPRESSED), raw]
            else:
                blocks += [struct.pack("<I", len(block)), block]
        return b"".join(blocks) + b"\x00\x00\x00\x00"  # end mark, no content checksum
    if codec == "zstd":
        stream = zstandard.ZstdCompressor(level=_ZSTD_LEVEL).compressobj()
        parts = [stream.compress(data[s:s + _ZSTD_WRITE_BYTES]) for s in range(0, len(data), _ZSTD_WRITE_BYTES)]
        return b"".join(parts) + stream.flush()
    raise ValueError(f"unknown compression codec {codec!r}; expected one of {', '.join(CODECS)}.")


def decompress(codec: str, data: bytes) -> bytes:
    """The inverse of ``compress``, using each codec's reference decoder."""
    if codec == "none":
        return data
    if codec == "gzip":
        return zlib.decompress(data, 31)
    if codec == "snappy":
        if not data.startswith(_SNAPPY_HEADER):
            raise ValueError("snappy stream does not start with the xerial header.")
        out, pos = bytearray(), len(_SNAPPY_HEADER)
        while pos < len(data):
            (size,) = struct.unpack_from(">i", data, pos)
            out += bytes(cramjam.snappy.decompress_raw(data[pos + 4:pos + 4 + size]))
            pos += 4 + size
        return bytes(out)
    if codec == "lz4":
        return lz4.frame.decompress(data)  # validates our frame header and block framing
    if codec == "zstd":
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    raise ValueError(f"unknown compression codec {codec!r}; expected one of {', '.join(CODECS)}.")


@dataclass(frozen=True)
class CompressionCurve:
    """Records-section compression ratio as a function of uncompressed batch size."""

    codec: str
    points: tuple[tuple[int, float], ...]  # (uncompressed bytes, compressed/uncompressed), sizes ascending

    def __reduce__(self) -> tuple[type[CompressionCurve], tuple[str, tuple[tuple[int, float], ...]]]:
        # compiled, a frozen dataclass cannot be rebuilt field by field: a worker process gets it whole
        return (CompressionCurve, (self.codec, self.points))

    @property
    def ratio_at(self) -> CompressionRatios:
        """The ratio by uncompressed batch size, as the event core reads it (core/src/compression.rs):
        interpolated in log(size); clamped to the measured ends."""
        return CompressionRatios([(float(size), ratio) for size, ratio in self.points])


def _windows(record_sizes: list[int], size: int, count: int) -> list[list[int]]:
    """Indices of ``count`` consecutive windows of at least ``size`` bytes, cycling through the sample."""
    windows, index = [], 0
    for _ in range(count):
        chosen, total = [], 0
        while total < size:
            chosen.append(index % len(record_sizes))
            total += record_sizes[chosen[-1]]
            index += 1
        windows.append(chosen)
    return windows


def measure_curve(values: list[bytes], keys: list[bytes | None] | None, codec: str) -> CompressionCurve:
    """Compress real record sections built from consecutive sample values at each ladder size.

    Each point's size is the mean size of the sections actually compressed (a window ends
    on a record boundary). Sizes larger than the whole sample are left out: repeating a
    short sample inside one batch would let zstd match the repeats and flatter the ratio.
    """
    if not values:
        raise ValueError("cannot measure compression without sample values.")
    if codec not in CODECS:
        raise ValueError(f"unknown compression codec {codec!r}; expected one of {', '.join(CODECS)}.")
    key_of = (lambda i: None) if keys is None else keys.__getitem__
    # Sizes at offset 0 are within a byte or two of the in-batch ones: close enough to cut windows.
    record_sizes = [len(encode_records([v], [key_of(i)])) for i, v in enumerate(values)]
    sizes = [s for s in LADDER if s <= sum(record_sizes)] or [sum(record_sizes)]
    points: list[tuple[int, float]] = []
    for size in sizes:
        plain = packed = 0
        count = max(1, min(_MAX_WINDOWS, _BYTES_PER_SIZE // size))
        for chosen in _windows(record_sizes, size, count):
            section = encode_records([values[i] for i in chosen], [key_of(i) for i in chosen])
            plain += len(section)
            packed += len(compress(codec, section))
        mean_size = round(plain / count)
        if points and mean_size <= points[-1][0]:
            continue  # huge records: this window is the previous one again
        points.append((mean_size, packed / plain))  # "none": packed == plain, exactly 1.0
    return CompressionCurve(codec=codec, points=tuple(points))
