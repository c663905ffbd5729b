"""Runs on common axes, the brokers under CloudWatch's names, and the parts of the neighbours' latency."""
import base64
import dataclasses
import json
import re

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from reports.sections.batch_sizes import batch_size_figure
from reports.sections.overlay import (aligned, breakdown_figure, breakdown_rows, cloudwatch_figures, cloudwatch_rows,
                                      neighbour_series, overlay_figure)
from reports.report import report_files
from reports.sections.runs import run_figures
from simulator.contract import RunResult
from workloads import CATALOG


def _broker(total_mean: float, queue_p99: float) -> dict:
    return {"id": 0, "produce_requests": 10, "fetch_requests": 1, "bytes_in": 1.0, "bytes_out": 1.0,
            "RequestQueueSize_max": 1, "RequestHandlerAvgIdlePercent": {"during": 70.0},
            "NetworkProcessorAvgIdlePercent": {"during": 90.0}, "cpu_percent": {"during": 65.0},
            "produce_time_ms": {"RequestQueueTimeMs": {"mean": 0.1, "p99": queue_p99},
                                "TotalTimeMs": {"mean": total_mean, "p99": 30.0}}}


def _run(linger: float, start: float, p99s: list, remote: float) -> RunResult:
    return RunResult.from_dict({
        "schema_version": 1, "evaluator": "model", "seed": 1,
        "scenario": {"name": "glue", "batch": {"producer": {"compression.type": "none", "linger.ms": linger,
                                                            "batch.size": 131072}}},
        "summary": {"cpu_pct_during": 65.0, "handler_idle_pct_during": 70.0, "replica_lag_bytes_max_during": 3 * 1024 ** 2,
                    "tenants": [{"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 4.0, "p99_ms_during": 80.0,
                                 "p99_ms_after": 4.0, "broker_time_ms_p99_during":
                                     {"LocalTimeMs": 2.0, "RemoteTimeMs": remote, "TotalTimeMs": remote + 3.0}}]},
        "brokers": [_broker(1.5, 0.5), _broker(2.5, 4.0)],
        "windows": {"before": [0.0, start], "during": [start, start + 2.5], "after": [start + 2.5, start + 4.0]},
        "timelines": {"second": list(range(6)),
                      # two brokers: 4 MiB/s and 6 MiB/s in the load's two whole seconds
                      "bytes_in_per_s": [0.0, 0.0, 8 * 1024 ** 2, 12 * 1024 ** 2, 1.0, 0.0][:6],
                      "tenant.payment-api.p99_ms": p99s}}, "hand-made")


@pytest.fixture
def runs():
    return run_figures([_run(0.0, 2.0, [4.0, 4.0, 90.0, None, 5.0, 4.0], remote=40.0),
                        _run(10.0, 1.0, [4.0, 9.0, 8.0, 4.0, 4.0, 4.0], remote=3.0)])


def test_time_counts_from_each_runs_load_start(runs):
    assert aligned(runs[0], "tenant.payment-api.p99_ms") == [(-2.0, 4.0), (-1.0, 4.0), (0.0, 90.0), (2.0, 5.0), (3.0, 4.0)]
    assert [s.points[0] for s in neighbour_series(runs, "payment-api")] == [(-2.0, 4.0), (-1.0, 4.0)]
    assert [s.label for s in neighbour_series(runs, "payment-api")] == ["linger.ms=0", "linger.ms=10"]
    assert [s.load_seconds for s in neighbour_series(runs, "payment-api")] == [2.5, 2.5]


def test_the_brokers_figures_under_cloudwatch_names(runs):
    assert cloudwatch_figures(runs[0]) == {
        "CpuUser + CpuSystem": 65.0, "ProduceTotalTimeMsMean": 2.5,   # the busiest broker's mean
        "RequestHandlerAvgIdlePercent": 70.0,
        "bytes in": 5 * 1024 ** 2}   # the load's whole seconds 2 and 3, over 2 brokers
    assert cloudwatch_rows(runs)[0][-2:] == ["5.0", "BytesInPerSec + ReplicationBytesInPerSec"]   # a model run's


def test_the_neighbours_latency_by_part_names_the_largest(runs):
    assert breakdown_rows(runs) == [
        ["linger.ms=0", "payment-api", "80.0", "43.0", "4.0", "2.0", "40.0", "3.0", "remote: waiting for followers to fetch"],
        ["linger.ms=10", "payment-api", "80.0", "6.0", "4.0", "2.0", "3.0", "3.0",
         "outside the brokers' timing"]]
    in_brokers = [_run(0.0, 2.0, [4.0] * 6, remote=1.0)]
    summary = in_brokers[0].summary
    tenant = dataclasses.replace(summary.tenants[0], p99_ms_during=7.0)   # within 2x of the brokers' 4 ms: the largest part
    in_brokers = [dataclasses.replace(in_brokers[0], summary=dataclasses.replace(summary, tenants=(tenant,)))]
    assert breakdown_rows(run_figures(in_brokers))[0][-1] == "queue: waiting for a handler thread"


def _boxes(figure, artists):
    renderer = figure.canvas.get_renderer()
    return [a.get_window_extent(renderer) for a in artists]


def test_legends_sit_off_the_data(runs):
    overlay = overlay_figure(neighbour_series(runs, "payment-api"), "p99", "ms", lines=((10.0, "SLA"),))
    parts = breakdown_figure(runs)
    for figure in (overlay, parts):
        figure.canvas.draw()
        (axes,) = figure.axes
        (legend,) = figure.legends
        assert axes.get_legend() is None
        (legend_box,) = _boxes(figure, [legend])
        assert not legend_box.overlaps(axes.get_window_extent())
    # every run is drawn and named: none left out of the plot or its legend
    assert [t.get_text() for t in overlay.legends[0].get_texts()] == ["load starts", "linger.ms=0", "linger.ms=10", "SLA"]
    assert [t.get_text().split(" ")[0] for t in parts.legends[0].get_texts()] == [
        "TotalTimeMs", "p99", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs"]
    assert [t.get_text() for t in parts.axes[0].get_yticklabels()] == ["linger.ms=0: payment-api", "linger.ms=10: payment-api"]


def test_batch_size_panels_have_one_run_each_and_tick_labels_apart():
    sizes = {"source": "model", "bucket_upper_bytes": [1024 * 2 ** i for i in range(11)], "wire_bytes": [1] * 11,
             "record_bytes": None, "batches": 11, "records": 11}
    results = [RunResult.from_dict({"schema_version": 1, "evaluator": "model", "seed": seed, "batch_sizes": sizes,
                                    "scenario": {"name": "glue", "batch": {"producer": {"compression.type": "none",
                                                                                        "batch.size": 1048576}}},
                                    "summary": {"tenants": []}}, "hand-made") for seed in (1, 2, 3)]
    figure = batch_size_figure(run_figures(results))
    figure.canvas.draw()
    assert len(figure.axes) == 3 and all(len(axes.patches) == 1 for axes in figure.axes)
    labels = [t for t in figure.axes[-1].get_xticklabels() if t.get_text()]
    assert [t.get_text() for t in labels] == ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1,024"]
    boxes = _boxes(figure, labels)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


@pytest.fixture(scope="module")
def model_runs(tmp_path_factory):
    """Two real (shrunk) model runs of the published baseline: as it is and with linger.ms=10, zstd; and the
    gate's result of the first."""
    out = tmp_path_factory.mktemp("runs")
    small = ["--set", "dataset.files.0.size=48MB", "--set", "windows.before=2s", "--set", "windows.after=2s"]
    scenario = str(CATALOG / "paypay-glue-2gb.yaml")
    runner = CliRunner()
    for name, extra in (("baseline", []), ("tuned", ["--set", "batch.producer.linger.ms=10",
                                                    "--set", "batch.producer.compression.type=zstd"])):
        outcome = runner.invoke(app, ["simulate", scenario, "--json", str(out / f"{name}.json"), *small, *extra])
        assert outcome.exit_code == 0, outcome.output
    outcome = runner.invoke(app, ["check", "--result", str(out / "baseline.json"), "--json", str(out / "check.json")])
    assert outcome.exit_code in (0, 1), outcome.output
    return out


def test_report_takes_gate_results_and_labels_runs_by_what_differs(model_runs, tmp_path):
    outcome = CliRunner().invoke(app, ["report", *(str(model_runs / f) for f in ("baseline.json", "tuned.json", "check.json")),
                                       "--out", str(tmp_path)])
    assert outcome.exit_code == 0, outcome.output
    report = json.loads((tmp_path / "report.json").read_text())
    gate = json.loads((model_runs / "check.json").read_text())
    assert report["gates"] == [gate] and report["plans"] == [] and report["studies"] == []
    assert [r["label"] for r in report["runs"]] == ["linger.ms=0, no compression", "linger.ms=10, zstd"]
    verdicts = report["header"]["verdicts"]
    assert [(v["run"], v["source"], v["passed"]) for v in verdicts] == [
        ("linger.ms=0, no compression", "check --json", gate["passed"]), ("linger.ms=10, zstd", "the gate's rules", verdicts[1]["passed"])]
    assert [i["holds"].split(" ")[0] for i in report["header"]["inputs"]] == ["run", "run", "gate"]
    markdown = (tmp_path / "report.md").read_text()
    assert "(#" not in markdown and "## Gate result: paypay-glue-2gb" in markdown
    html = (tmp_path / "report.html").read_text()
    svgs = [base64.b64decode(s) for s in re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)]
    assert svgs and 'src="data:image/png' not in html
    # the overlaid p99 plot names both runs in its legend, as text
    assert all(b"linger.ms=0, no compression" in svg and b"linger.ms=10, zstd" in svg for svg in svgs[:2])


def test_the_same_results_give_the_same_report_bytes(model_runs, tmp_path):
    from datetime import datetime, timezone
    files = [model_runs / "baseline.json", model_runs / "tuned.json"]
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    first = [p.read_bytes() for p in report_files(files, tmp_path / "a", now=when)]
    assert first == [p.read_bytes() for p in report_files(files, tmp_path / "b", now=when)]


def test_the_broker_plots_draw_each_runs_own_check_thresholds():
    """A scenario whose check: asks for 45 % handler idle is drawn at 45 %, not the default 30 %; its CPU line,
    unstated, at the default 60 %; two runs with different thresholds get a line each."""
    from reports.sections.overlay import cloudwatch_html

    def run(linger: float, check: dict) -> RunResult:
        data = _run(linger, 1.0, [4.0] * 6, remote=3.0).to_dict()
        data["scenario"]["check"] = check
        data["timelines"] |= {"handler_idle_pct_min": [90.0, 50.0, 40.0, 60.0, 90.0, 90.0],
                              "cpu_pct_max": [10.0, 50.0, 70.0, 30.0, 10.0, 10.0]}
        return RunResult.from_dict(data)

    def texts(runs: list[RunResult]) -> list[str]:
        html = "".join(cloudwatch_html(run_figures(runs)))
        svgs = [base64.b64decode(s).decode() for s in re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)]
        return [" ".join(re.findall(r"check threshold [0-9.]+ %", svg)) for svg in svgs]

    cpu, idle = texts([run(0.0, {"handler_idle_min": 45.0})])[:2]
    assert (cpu, idle) == ("check threshold 60 %", "check threshold 45 %")
    assert texts([run(0.0, {"handler_idle_min": 45.0}), run(10.0, {})])[1] == "check threshold 30 % check threshold 45 %"


def test_a_run_far_over_the_sla_adds_a_linear_zoom_where_the_deciding_lines_part(runs):
    """Issue 25: on a log scale 90 ms squeezes 8 and 9 ms together; the zoom shows 0-20 ms linearly."""
    from reports.sections.overlay import overlay_html
    html = "".join(overlay_html(runs))
    assert html.count("payment-api p99 per second near its SLA, every run") == 1
    calm = run_figures([_run(10.0, 1.0, [4.0, 9.0, 8.0, 4.0, 4.0, 4.0], remote=3.0)])
    assert "near its SLA" not in "".join(overlay_html(calm))   # nothing far over it: one plot says it all
