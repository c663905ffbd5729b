from reports.summary import render_summary
from simulator.contract import RunResult, Summary


def _result(handler_idle, tenants) -> RunResult:
    summary = {"produce_requests": 32104, "batches": 40250, "batches_per_request": 1.2538, "mean_batch_bytes": 61440.0,
               "mean_batch_wire_bytes": 30720.0, "records_per_request": 118.4, "compression_ratio": 0.5,
               "load_seconds": 41.26, "handler_idle_pct_during": handler_idle, "cpu_pct_during": 97.04,
               "tenants": tenants}
    scenario = {"name": "glue", "batch": {"producer": {"compression.type": "zstd"}}}
    return RunResult(evaluator="model", scenario=scenario, seed=2, summary=Summary.from_dict(summary),
                     mechanism=["Batches were small.", "Handlers were busy."])


def test_summary_lines():
    tenants = [{"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 4.0, "p99_ms_during": 1234.56,
                "p99_ms_after": 12.0},
               {"name": "fraud", "sla_p99_ms": 10.0, "p99_ms_before": 2.0, "p99_ms_during": 9.5, "p99_ms_after": None}]
    assert render_summary(_result(3.26, tenants)).splitlines() == [
        "glue (model, seed 2)",
        "  produce requests      32,104",
        "  batches               40,250 (1.25 per request)",
        "  mean batch size       60.0 KB of records, 30.0 KB on the wire",
        "  records per request   118",
        "  compression ratio     0.50 (wire / value bytes, zstd)",
        "  load duration         41.3 s",
        "  busiest broker        handler idle 3.3 %, CPU 97.0 % during the load",
        "",
        "  neighbour p99 (ms)     before     during      after        SLA",
        "  payment-api               4.0    1,234.6       12.0       10.0  OVER SLA (during, after)",
        "  fraud                     2.0        9.5        n/a       10.0  within SLA",
        "",
        "mechanism",
        "  - Batches were small.",
        "  - Handlers were busy.",
    ]


def test_load_shorter_than_a_second_has_no_idle_figure_and_no_neighbours():
    lines = render_summary(_result(None, [])).splitlines()
    assert "  busiest broker        handler idle n/a, CPU 97.0 % during the load" in lines
    assert "  no neighbours in this scenario" in lines
