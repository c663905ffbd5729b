import base64
import csv
import io
import json
import re
from html import unescape

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from reports.kit.tables import html_table
from reports.report import render_csv, render_json, render_markdown, write_report
from reports.sections.runs import run_figures
from reports.sections.batch_sizes import batch_size_plot, render_batch_size_csv
from reports.report import render_html
from reports.sections.runs import timeline_points
from simulator.contract import RunResult
from workloads import CATALOG

SUMMARY = {"produce_requests": 32104, "batches": 40250, "batches_per_request": 1.25377, "mean_batch_bytes": 61440.0,
           "mean_batch_wire_bytes": 30720.0, "records_per_request": 118.437, "compression_ratio": 0.498123,
           "load_seconds": 41.2638, "handler_idle_pct_during": 3.26471, "cpu_pct_during": 97.0412}


SIZES = {"source": "model", "bucket_upper_bytes": [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
         "wire_bytes": [4, 0, 6, 10, 20, 40, 160, 160], "record_bytes": [0, 0, 0, 4, 6, 10, 60, 320],
         "batches": 400, "records": 47375.0}


def _result(name: str, seed: int, tenants: list[dict], batch_sizes: dict | None = None, **summary) -> RunResult:
    return RunResult.from_dict({
        "schema_version": 1, "evaluator": "model", "seed": seed, "batch_sizes": batch_sizes,
        "scenario": {"name": name, "batch": {"producer": {"compression.type": "zstd", "batch.size": 131072}}},
        "summary": {**SUMMARY, **summary, "tenants": tenants},
        "mechanism": ["Batches were small.", "Handlers were busy."],
        "windows": {"before": [0.0, 2.0], "during": [2.0, 4.5], "after": [4.5, 6.5]},
        "timelines": {"second": [0, 1, 2, 3, 4, 5, 6],
                      "produce_requests_per_s": [10.0, 11.0, 900.0, 950.0, 400.0, 12.0, 10.0],
                      "handler_idle_pct_min": [99.0, 99.1, 4.0, 3.5, 60.0, 98.9, 99.0],
                      "tenant.payment-api.p99_ms": [4.0, 4.1, 900.5, 1234.56, 30.0, 12.0, 4.0],
                      "tenant.fraud.p99_ms": [2.0, None, 9.5, 9.1, None, 2.2, 2.0]},
    }, "hand-made")


PAYMENT = {"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 4.04321, "p99_ms_during": 1234.56,
           "p99_ms_after": 12.0}
FRAUD = {"name": "fraud", "sla_p99_ms": 10.0, "p99_ms_before": 2.0, "p99_ms_during": 9.5, "p99_ms_after": None}


@pytest.fixture
def glue():
    return _result("glue", 2, [PAYMENT, FRAUD], SIZES)


@pytest.fixture
def glue_fixed():
    return _result("glue-fixed", 2, [{**PAYMENT, "p99_ms_during": 9.87654}], produce_requests=3950,
                   mean_batch_bytes=262144.0, handler_idle_pct_during=None)


def test_markdown_shows_one_runs_figures_formatted_from_the_inputs(glue):
    lines = render_markdown(run_figures([glue])).splitlines()
    start = lines.index("## glue")
    assert lines[start:] == [
        "## glue", "",
        "Scenario: glue; evaluator: model; seed: 2.", "",
        "| figure | value |",
        "| --- | ---: |",
        "| produce requests | 32,104 |",
        "| batches / request | 1.25 |",
        "| mean batch (KB of records) | 60.0 |",
        "| records / request | 118.4 |",
        "| compression ratio | 0.50 |",
        "| load (s) | 41.3 |",
        "| handler idle during (%) | 3.3 |",
        "| CPU during (%) | 97.0 |", "",
        "| neighbour | p99 before (ms) | p99 during (ms) | p99 after (ms) | SLA p99 (ms) | verdict |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        "| payment-api | 4.0 | 1,234.6 | 12.0 | 10.0 | OVER SLA (during, after) |",
        "| fraud | 2.0 | 9.5 | n/a | 10.0 | within SLA |", "",
        "Batch sizes: 400 batches, the model's batches as sent; buckets end at the bound shown (1 KB = 1024 bytes).", "",
        "| batch size (KB) | batches (on the wire) | share (%) | batches (uncompressed records) |",
        "| --- | ---: | ---: | ---: |",
        "| <= 1 | 4 | 1.0 | 0 |",
        "| 1-2 | 0 | 0.0 | 0 |",
        "| 2-4 | 6 | 1.5 | 0 |",
        "| 4-8 | 10 | 2.5 | 4 |",
        "| 8-16 | 20 | 5.0 | 6 |",
        "| 16-32 | 40 | 10.0 | 10 |",
        "| 32-64 | 160 | 40.0 | 60 |",
        "| 64-128 | 160 | 40.0 | 320 |", "",
        "Mechanism:", "",
        "- Batches were small.",
        "- Handlers were busy.",
    ]
    assert "## Comparison" not in lines  # one run: nothing to compare


def test_markdown_compares_several_runs_in_one_table(glue, glue_fixed):
    lines = render_markdown(run_figures([glue, glue_fixed])).splitlines()
    table = lines[lines.index("## Comparison") + 2:][:4]
    assert table == [
        "| run | produce requests | batches / request | mean batch (KB of records) | records / request | compression ratio "
        "| load (s) | handler idle during (%) | CPU during (%) | payment-api p99 during (ms) | fraud p99 during (ms) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        "| glue | 32,104 | 1.25 | 60.0 | 118.4 | 0.50 | 41.3 | 3.3 | 97.0 | 1,234.6 | 9.5 |",
        "| glue-fixed | 3,950 | 1.25 | 256.0 | 118.4 | 0.50 | 41.3 | n/a | 97.0 | 9.9 | - |",
    ]
    assert [line for line in lines if line.startswith("## ")] == [
        "## Comparison", "## The brokers under their CloudWatch names", "## glue", "## glue-fixed"]


def test_runs_alike_in_everything_are_told_apart_by_their_files(glue):
    assert [run.label for run in run_figures([glue, glue], ["a/glue.json", "b/glue-again.json"])] == [
        "glue [glue.json]", "glue [glue-again.json]"]


def test_csv_holds_the_exact_input_figures(glue, glue_fixed):
    rows = list(csv.DictReader(io.StringIO(render_csv(run_figures([glue, glue_fixed])))))
    assert list(rows[0]) == ["run", "scenario", "evaluator", "seed", "produce_requests", "batches_per_request",
                             "mean_batch_bytes", "records_per_request", "compression_ratio", "load_seconds",
                             "handler_idle_pct_during", "cpu_pct_during", "p99_ms_during.payment-api",
                             "p99_ms_during.fraud"]
    assert rows[0] == {"run": "glue", "scenario": "glue", "evaluator": "model", "seed": "2",
                       "produce_requests": "32104", "batches_per_request": "1.25377", "mean_batch_bytes": "61440.0",
                       "records_per_request": "118.437", "compression_ratio": "0.498123",
                       "load_seconds": "41.2638", "handler_idle_pct_during": "3.26471", "cpu_pct_during": "97.0412",
                       "p99_ms_during.payment-api": "1234.56", "p99_ms_during.fraud": "9.5"}
    # A figure the run lacks (idle % of a short load, a neighbour it does not have) is an empty cell.
    assert (rows[1]["produce_requests"], rows[1]["handler_idle_pct_during"], rows[1]["p99_ms_during.fraud"]) \
        == ("3950", "", "")
    assert rows[1]["p99_ms_during.payment-api"] == "9.87654"


def test_json_holds_the_exact_input_figures(glue, glue_fixed):
    report = json.loads(render_json(run_figures([glue, glue_fixed])))
    assert report["schema"] == "quietload-report/1"
    first = report["runs"][0]
    assert (first["label"], first["scenario"], first["evaluator"], first["seed"]) == ("glue", "glue", "model", 2)
    assert first["summary"] == {key: SUMMARY[key] for key in first["summary"]}
    assert len(first["summary"]) == 8
    assert first["neighbours"] == [PAYMENT, FRAUD]
    assert first["mechanism"] == ["Batches were small.", "Handlers were busy."]
    assert first["batch_sizes"] == SIZES
    assert report["runs"][1]["summary"]["handler_idle_pct_during"] is None
    assert report["runs"][1]["batch_sizes"] is None


def test_timelines_skip_seconds_without_records(glue):
    run = run_figures([glue])[0]
    assert timeline_points(run, "tenant.fraud.p99_ms") == [(0, 2.0), (2, 9.5), (3, 9.1), (5, 2.2), (6, 2.0)]
    assert timeline_points(run, "no.such.timeline") == []


def _figures(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<figure><img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" alt="[^"]*">'
                      r"<figcaption>([^<]+)</figcaption></figure>", html)


def test_html_is_self_contained_with_a_captioned_image_per_plot(glue, glue_fixed):
    html = render_html(run_figures([glue, glue_fixed]))
    assert 'src="http' not in html and "<link" not in html and "<script" not in html
    figures = _figures(html)
    # Both runs on one plot each: each neighbour's p99 (2), produce requests, handler idle (the
    # hand-made results have no CPU or bytes timelines), the zoom near its SLA of the one neighbour
    # the baseline sends far over it; then the mean batch size bars and the batch-size distribution.
    assert len(figures) == html.count("<img") == 7
    assert all(base64.b64decode(svg).startswith(b"<?xml") for svg, _ in figures)
    assert all(caption.strip() and "\n" not in caption for _, caption in figures)
    assert [unescape(caption).split(" ")[0] for _, caption in figures] == [
        "payment-api's", "payment-api's", "fraud's", "Produce", "The", "Mean", "The"]
    assert "<p>No batch-size distribution in glue-fixed (" in html
    assert "1,234.6" in html and "32,104" in html and "Batches were small." in html


def test_html_of_one_run_has_no_comparison(glue):
    html = render_html(run_figures([glue]))
    # its neighbours' p99, produce requests, handler idle and batch-size distribution; no mean batch bars
    assert len(_figures(html)) == html.count("<img") == 5
    assert "Comparison" not in html


@pytest.fixture(scope="module")
def real_result(tmp_path_factory):
    """One real (shrunk) model run of the published baseline, written once for this module."""
    path = tmp_path_factory.mktemp("real") / "baseline.json"
    outcome = CliRunner().invoke(app, ["simulate", str(CATALOG / "paypay-glue-2gb.yaml"), "--json", str(path),
                                       "--set", "dataset.files.0.size=64MB",
                                       "--set", "windows.before=2s", "--set", "windows.after=2s"])
    assert outcome.exit_code == 0, outcome.output
    return RunResult.read(path)


def test_report_of_a_real_result_carries_its_figures(real_result, tmp_path):
    paths = write_report([real_result], tmp_path / "out")
    assert [p.name for p in paths] == ["report.md", "runs.csv", "report.json", "report.html", "batch_sizes.csv"]
    summary = real_result.summary
    run = json.loads(paths[2].read_text())["runs"][0]
    assert run["summary"] == {key: getattr(summary, key) for key in run["summary"]}
    assert run["neighbours"] == [{k: getattr(t, k) for k in ("name", "sla_p99_ms", "p99_ms_before", "p99_ms_during",
                                                     "p99_ms_after")} for t in summary.tenants]
    row = next(csv.DictReader(io.StringIO(paths[1].read_text())))
    assert int(row["produce_requests"]) == summary.produce_requests
    assert float(row["mean_batch_bytes"]) == summary.mean_batch_bytes
    for tenant in summary.tenants:
        assert float(row[f"p99_ms_during.{tenant.name}"]) == tenant.p99_ms_during
    markdown = paths[0].read_text()
    assert f"| produce requests | {summary.produce_requests:,} |" in markdown
    assert f"| mean batch (KB of records) | {summary.mean_batch_bytes / 1024:,.1f} |" in markdown
    assert all(f"- {sentence}" in markdown for sentence in real_result.mechanism)
    latency = summary.record_latency_ms   # the job's own records, as perf-test prints them
    assert f"| all | {latency['count']:,} | {latency['p50']:,.1f} | {latency['p95']:,.1f} | {latency['p99']:,.1f} | " \
           f"{latency['p999']:,.1f} | {latency['max']:,.1f} |" in markdown
    assert run["record_latency_ms"] == latency
    html = paths[3].read_text()
    # the two neighbours' p99, requests, CPU, handler idle, bytes in, the latency parts, replica lag and the
    # batch-size distribution
    assert len(_figures(html)) == html.count("<img") == 9 and 'src="http' not in html
    sizes = real_result.batch_sizes
    rows = list(csv.DictReader(io.StringIO(paths[4].read_text())))
    assert [int(r["bucket_upper_bytes"]) for r in rows] == list(sizes.bucket_upper_bytes)
    assert [int(r["wire_batches"]) for r in rows] == list(sizes.wire_bytes)
    assert [int(r["record_batches"]) for r in rows] == list(sizes.record_bytes)
    assert sum(sizes.wire_bytes) == sizes.batches == summary.batches
    assert f"Batch sizes: {summary.batches:,} batches, the model's batches as sent;" in markdown


def test_batch_sizes_csv_has_each_bucket_of_each_run_with_a_distribution(glue, glue_fixed):
    runs = run_figures([glue, glue_fixed, glue], ["1.json", "2.json", "3.json"])
    rows = list(csv.DictReader(io.StringIO(render_batch_size_csv(runs))))
    assert list(rows[0]) == ["run", "scenario", "evaluator", "seed", "source", "bucket_upper_bytes", "wire_batches",
                             "record_batches"]
    assert [r["run"] for r in rows] == ["glue [1.json]"] * 8 + ["glue [3.json]"] * 8   # glue-fixed has none
    assert [(int(r["bucket_upper_bytes"]), int(r["wire_batches"]), int(r["record_batches"])) for r in rows[:8]] \
        == list(zip(SIZES["bucket_upper_bytes"], SIZES["wire_bytes"], SIZES["record_bytes"]))


def test_a_distribution_without_record_sizes_leaves_them_empty():
    live = {**SIZES, "source": "broker log", "record_bytes": None}
    run = run_figures([_result("live", 1, [], live)])
    assert {r["record_batches"] for r in csv.DictReader(io.StringIO(render_batch_size_csv(run)))} == {""}
    assert "| 64-128 | 160 | 40.0 | n/a |" in render_markdown(run).splitlines()


def test_batch_size_plot_draws_each_run_in_its_own_panel_with_its_batch_size_line(glue, glue_fixed, monkeypatch):
    import reports.kit.plot as plot
    drawn = []
    monkeypatch.setattr(plot, "svg", lambda figure: drawn.append(figure) or b"<?xml")
    small = _result("small", 3, [], {**SIZES, "wire_bytes": [400], "bucket_upper_bytes": [1024], "record_bytes": [400]})
    batch_size_plot(run_figures([glue, glue_fixed, small]))
    top, bottom = drawn[0].axes          # glue-fixed has no distribution: two panels, none hidden behind another
    steps = [[patch.get_data() for patch in axes.patches] for axes in (top, bottom)]
    assert [[list(s.edges) for s in panel] for panel in steps] == [[[0.5, 1, 2, 4, 8, 16, 32, 64, 128]], [[0.5, 1]]]
    assert list(steps[0][0].values) == [1.0, 0.0, 1.5, 2.5, 5.0, 10.0, 40.0, 40.0]   # % of 400 batches
    assert list(steps[1][0].values) == [100.0]
    assert [[list(line.get_xdata()) for line in axes.lines] for axes in (top, bottom)] == [[[128, 128]]] * 2   # batch.size in KB
    assert [axes.get_title(loc="left") for axes in (top, bottom)] == [
        "glue (seed 2): 400 batches, the model's batches as sent", "small (seed 3): 400 batches, the model's batches as sent"]
    assert bottom.get_xscale() == "log" and bottom.get_xlabel().startswith("batch size (KB on the wire, log2 buckets")
    assert [axes.get_ylim() for axes in (top, bottom)] == [(0, 100)] * 2
    assert [t.get_text() for t in bottom.get_xticklabels()] == ["0.5", "1", "2", "4", "8", "16", "32", "64", "128"][1:]


def test_no_plot_when_no_run_has_a_distribution(glue_fixed):
    assert batch_size_plot(run_figures([glue_fixed])) is None
    html = render_html(run_figures([glue_fixed]))
    assert "<h3>Batch-size distribution</h3>" in html and "No batch-size distribution in glue-fixed (" in html


def test_a_breach_is_the_one_cell_the_html_tables_mark():
    table = html_table(["neighbour", "verdict"], [["api", "OVER SLA (during)"], ["fraud", "within SLA"]])
    assert '<td class="over">OVER SLA (during)</td>' in table and '<td class="text">within SLA</td>' in table
