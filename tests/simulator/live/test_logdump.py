"""The batch-size distribution from the brokers' logs (simulator/live/logdump.py).

The live test writes batches of known record counts and sizes into a real broker (one flush a
batch, linger.ms far longer than the test, so each flush is one batch) and reads them back with
Kafka's DumpLogSegments; the others read DumpLogSegments' own output format from text.
"""
import dataclasses

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from simulator.contract import BatchSizeFigures
from simulator.live import logdump
from simulator.live.kafka import KafkaCluster
from simulator.live.outcome import build
from simulator.live.logdump import DumpedBatch, batch_sizes, broker_log_dirs, parse_dump, topic_batches
from test_live_outcome import _run

# (partition, records, value bytes) of each batch; a v2 record of these values takes its value
# and 7-12 bytes of framing (varints), after the batch's 61-byte header
BATCHES = [(0, 1, 100), (0, 20, 100), (1, 6, 10_000), (1, 3, 40_000), (0, 2, 100)]
#          <= 1 KB      2-4 KB        32-64 KB        64-128 KB        <= 1 KB


def _line(base: int, count: int, size: int, codec: str = "none", control: str = "false") -> str:
    """One batch line as DumpLogSegments (Kafka 4.1) prints it."""
    return (f"baseOffset: {base} lastOffset: {base + count - 1} count: {count} baseSequence: -1 lastSequence: -1 "
            f"producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: {control} "
            f"deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1795375964663 size: {size} magic: 2 "
            f"compresscodec: {codec} crc: 2432419131 isvalid: true")


def test_the_dump_gives_each_segments_data_batches():
    text = "\n".join(["Dumping /data/bulk-0/00000000000000000000.log", "Log starting offset: 0",
                      _line(0, 1, 170), _line(1, 8, 933), _line(9, 1, 78, control="true"),
                      "Dumping /data/bulk-1/00000000000000000000.log", "Log starting offset: 0",
                      _line(0, 50, 202, codec="zstd"), ""])
    assert {str(path): batches for path, batches in parse_dump(text).items()} == {
        "/data/bulk-0/00000000000000000000.log": [DumpedBatch(170, 1, "none"), DumpedBatch(933, 8, "none")],
        "/data/bulk-1/00000000000000000000.log": [DumpedBatch(202, 50, "zstd")]}


def test_each_partition_is_read_from_its_fullest_replica(tmp_path, monkeypatch):
    dumps = {}
    for broker, partition, sizes in ((0, 0, [500, 600]), (1, 0, [500]), (1, 1, [3000]), (0, 1, [3000])):
        segment = tmp_path / f"broker-{broker}" / "data" / f"bulk-{partition}" / "00000000000000000000.log"
        segment.parent.mkdir(parents=True)
        segment.touch()
        dumps[segment.resolve()] = "\n".join([f"Dumping {segment.resolve()}",
                                              *(_line(i, 1, size) for i, size in enumerate(sizes))])
    other = tmp_path / "broker-0" / "data" / "bulk-extra-0" / "00000000000000000000.log"   # another topic
    other.parent.mkdir(parents=True)
    other.touch()
    asked = []
    monkeypatch.setattr(logdump, "dump_segments", lambda segments, jars=None: asked.append(segments) or
                        "\n".join(dumps[s] for s in segments))
    batches = topic_batches([tmp_path / "broker-0" / "data", tmp_path / "broker-1" / "data"], "bulk")
    # partition 0 from broker 0 (a follower behind holds a prefix), partition 1 once
    assert sorted(b.size for b in batches) == [500, 600, 3000]
    assert len(asked) == 1 and other.resolve() not in asked[0]


def test_a_live_run_carries_the_distribution_into_its_result():
    sizes = BatchSizeFigures(source="broker log", bucket_upper_bytes=(1024, 2048), wire_bytes=(3, 1),
                             record_bytes=None, batches=4, records=40)
    assert build(dataclasses.replace(_run(), batch_sizes=sizes)).batch_sizes == sizes
    assert build(_run()).batch_sizes is None       # a cluster given by --bootstrap-servers
    assert batch_sizes(None, "bulk") is None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with KafkaCluster(tmp_path_factory.mktemp("logdump") / "stack", brokers=1) as running:
        yield running


def _produce(cluster: KafkaCluster, topic: str, batches: list[tuple[int, int, int]], codec: str) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(timeout=30)
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "linger.ms": 60_000,
                         "compression.type": codec, "batch.size": 1_000_000})
    for partition, records, value in batches:
        for _ in range(records):
            producer.produce(topic, b"v" * value, partition=partition)
        assert producer.flush(30) == 0


@pytest.mark.live
def test_the_brokers_log_holds_the_batches_written(cluster):
    _produce(cluster, "bulk", BATCHES, "none")
    assert broker_log_dirs(cluster) == [cluster.run_dir / "broker-0" / "data"]
    sizes = batch_sizes(cluster, "bulk")
    assert sizes.source == "broker log"
    assert sizes.bucket_upper_bytes == (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
    assert sizes.wire_bytes == (2, 0, 1, 0, 0, 0, 1, 1)
    assert sizes.record_bytes == (2, 0, 1, 0, 0, 0, 1, 1)
    assert (sizes.batches, sizes.records) == (len(BATCHES), sum(records for _, records, _ in BATCHES))
    written = topic_batches(broker_log_dirs(cluster), "bulk")
    in_log_order = sorted(BATCHES, key=lambda batch: batch[0])     # each partition's batches as written
    assert [batch.records for batch in written] == [records for _, records, _ in in_log_order]
    for batch, (_, records, value) in zip(written, in_log_order):
        assert 61 + records * (value + 7) <= batch.size <= 61 + records * (value + 12)


@pytest.mark.live
def test_compressed_batches_have_wire_sizes_only(cluster):
    _produce(cluster, "compressed", [(0, 20, 1000), (1, 1, 100)], "zstd")
    sizes = batch_sizes(cluster, "compressed")
    # 20 KB of one repeated byte compress to well under 1 KB
    assert sizes.wire_bytes == (2,) and sizes.record_bytes is None
    assert (sizes.batches, sizes.records) == (2, 21)
