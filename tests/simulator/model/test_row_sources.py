"""A user's own CSV sample replaces the generator: sizes and ratios come from its rows."""
import pytest

from simulator.model.model import ModelEvaluator
from workloads import ScenarioError
from workloads.rows import csv_line, to_json_value


def _write_sample(path, rows: int) -> None:
    lines = ["order_id,customer,note"]
    lines += [f"{i:08d},customer-{i % 97},{'x' * (i % 40)}" for i in range(rows)]
    path.write_text("\n".join(lines) + "\n")


def test_a_csv_sample_sets_record_sizes_and_task_bytes(tmp_path, make_scenario):
    sample = tmp_path / "orders.csv"
    _write_sample(sample, 300)
    scenario = make_scenario({"dataset": {"rows": str(sample), "files": [{"size": "1MB"}]}})
    result = ModelEvaluator().evaluate(scenario, seed=1)
    rows = [{"order_id": f"{i:08d}", "customer": f"customer-{i % 97}", "note": "x" * (i % 40)} for i in range(300)]
    csv_bytes = sum(len(csv_line(r)) for r in rows) / 300
    value_bytes = sum(len(to_json_value({k: v or None for k, v in r.items()})) for r in rows) / 300
    assert result.spark["csv_row_bytes"] == pytest.approx(csv_bytes)
    assert result.spark["value_row_bytes"] == pytest.approx(value_bytes)
    # the whole 1 MB of CSV becomes Kafka records at the sample's record-per-CSV-row ratio
    records = result.spark["record_bytes"]
    assert value_bytes < records < value_bytes + 16       # the value plus the record's varint header
    assert result.summary.record_bytes == pytest.approx(1024**2 * records / csv_bytes, rel=1e-6)


def test_a_missing_sample_names_the_field(tmp_path, make_scenario):
    scenario = make_scenario({"dataset": {"rows": str(tmp_path / "nowhere.csv")}})
    with pytest.raises(ScenarioError, match=r"^dataset\.rows: "):
        ModelEvaluator().evaluate(scenario, seed=1)
