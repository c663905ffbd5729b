"""gzip CSV input: sizes are what the files take on S3, and tasks pay to inflate them."""
import pytest

from workloads import CostProfile


def test_a_gzip_file_holds_the_csv_its_ratio_implies_and_costs_inflate_time(make_scenario, evaluator):
    rows = evaluator.rows(make_scenario())
    plain = make_scenario({"dataset": {"files": [{"size": "4MB"}]}})
    gzipped_size = round(4 * 1024**2 * rows.csv_gzip_ratio)
    gzipped = make_scenario({"dataset": {"files": [{"size": gzipped_size}], "compression": "gzip"}})
    a, b = (evaluator.evaluate(s, seed=1) for s in (plain, gzipped))
    # the same CSV bytes become the same Kafka records
    assert b.summary.record_bytes == pytest.approx(a.summary.record_bytes, rel=1e-4)
    # each core pays the profile's gzip inflate cost per CSV byte on top of parsing
    profile = CostProfile.load("default")
    per_value_byte = 1 / profile.spark.append_rate + (
        profile.broker.decompress_byte_ns["gzip"] * 1e-9 * rows.shape.mean_csv_bytes / a.spark["record_bytes"])
    assert b.summary.append_rate_bytes_per_s == pytest.approx(1 / per_value_byte, rel=1e-3)
    assert a.summary.append_rate_bytes_per_s == pytest.approx(profile.spark.append_rate, rel=1e-3)

