"""The file that keeps a dataset's measured rows: read by later evaluators, missed by another
dataset or code version, and a broken one measured again and rewritten, never a traceback."""
import pytest

import simulator.model.rows as rows_module
from simulator.model.model import ModelEvaluator
from simulator.model.rows import row_figures

SMALL = {"dataset": {"sample_rows": 300}, "batch": {"producer": {"compression.type": "zstd"}}}


def _refuse(*_args, **_kwargs):
    raise AssertionError("measured again instead of read from the cache")


def _kept(cache):
    return sorted(cache.iterdir())


def test_a_second_evaluator_reads_the_rows_the_first_kept_and_runs_the_same_bytes(tmp_path, make_scenario, monkeypatch):
    scenario = make_scenario(SMALL)
    first = ModelEvaluator(row_cache=tmp_path).evaluate(scenario, seed=1)
    assert len(_kept(tmp_path)) == 1
    monkeypatch.setattr(rows_module, "generate_rows", _refuse)
    monkeypatch.setattr(rows_module, "measure_curve", _refuse)
    second = ModelEvaluator(row_cache=tmp_path).evaluate(scenario, seed=1)
    assert second.to_json() == first.to_json()


@pytest.mark.parametrize("key", [None, "card_id"])
def test_the_kept_figures_equal_the_measured_ones_exactly(tmp_path, make_scenario, key):
    scenario = make_scenario(SMALL, {"batch": {"key": key}})
    measured = row_figures(scenario, cache=None)
    measured.curve("zstd"), measured.curve("gzip")
    kept = row_figures(scenario, tmp_path)
    kept.curve("zstd"), kept.curve("gzip")   # the second codec is added to the file
    read = row_figures(scenario, tmp_path)
    assert (read.shape, read.values, read.keys, read.csv_gzip_ratio) == \
        (measured.shape, measured.values, measured.keys, measured.csv_gzip_ratio)
    assert read.curves == measured.curves and set(read.curves) == {"zstd", "gzip"}


@pytest.mark.parametrize("change", [
    {"dataset": {"sample_rows": 301}},
    {"batch": {"key": "card_id"}},
])
def test_another_sample_or_key_column_misses_the_kept_file(tmp_path, make_scenario, change):
    row_figures(make_scenario(SMALL), tmp_path)
    other = row_figures(make_scenario(SMALL, change), tmp_path)
    assert len(_kept(tmp_path)) == 2
    assert other.shape != row_figures(make_scenario(SMALL), tmp_path).shape


def test_a_changed_csv_sample_misses_the_kept_file(tmp_path, make_scenario):
    sample = tmp_path / "sample.csv"
    sample.write_text("id,note\n1,a\n2,bb\n")
    scenario = make_scenario({"dataset": {"rows": str(sample)}})
    assert row_figures(scenario, tmp_path / "cache").shape.mean_csv_bytes == 4.5   # "1,a\n" 4, "2,bb\n" 5
    sample.write_text("id,note\n1,a\n2,bbb\n")
    assert row_figures(scenario, tmp_path / "cache").shape.mean_csv_bytes == 5.0   # "2,bbb\n" 6
    assert len(_kept(tmp_path / "cache")) == 2


def test_another_code_version_misses_the_kept_file(tmp_path, make_scenario, monkeypatch):
    row_figures(make_scenario(SMALL), tmp_path)
    monkeypatch.setattr(rows_module, "code_version", lambda: "another")
    row_figures(make_scenario(SMALL), tmp_path)
    assert len(_kept(tmp_path)) == 2


@pytest.mark.parametrize("damage", [
    lambda data: b"",
    lambda data: data[: len(data) // 2],                                   # cut short
    lambda data: b"\x00\xff" * 100,                                        # not text
    lambda data: data.replace(b'"shape"', b'"shapes"', 1),                 # its CRC no longer matches
    lambda data: data[:-1],                                                # the last key or value cut short
    lambda data: b'{"kind": "quietload-rows", "version": 1, "crc32": 0}\n[1, 2',
    lambda data: b"[" * 100_000,                                           # nested past the reader
])
def test_a_damaged_file_is_measured_again_and_rewritten(tmp_path, make_scenario, damage):
    scenario = make_scenario(SMALL)
    measured = row_figures(scenario, cache=None)
    row_figures(scenario, tmp_path)
    (path,) = _kept(tmp_path)
    whole = path.read_bytes()
    path.write_bytes(damage(whole))
    again = row_figures(scenario, tmp_path)
    assert (again.shape, again.values) == (measured.shape, measured.values)
    assert path.read_bytes() == whole


@pytest.mark.parametrize("change", [
    lambda table: table["shape"].update(mean_value_bytes="many"),
    lambda table: table["value_bytes"].__setitem__(0, -1),
    lambda table: table["value_bytes"].__setitem__(0, 10**9),
    lambda table: table.pop("curves"),
])
def test_a_file_whose_crc_holds_but_whose_figures_do_not_is_rewritten(tmp_path, make_scenario, change):
    import json
    import zlib
    scenario = make_scenario(SMALL)
    row_figures(scenario, tmp_path)
    (path,) = _kept(tmp_path)
    whole = path.read_bytes()
    head, table, data = whole.split(b"\n", 2)
    figures = json.loads(table)
    change(figures)
    body = json.dumps(figures).encode() + b"\n" + data
    path.write_bytes(json.dumps({**json.loads(head), "crc32": zlib.crc32(body)}).encode() + b"\n" + body)
    assert row_figures(scenario, tmp_path).shape == row_figures(scenario, cache=None).shape
    assert path.read_bytes() == whole


def test_an_unwritable_cache_directory_leaves_the_run_as_it_is(tmp_path, make_scenario):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    scenario = make_scenario(SMALL)
    assert ModelEvaluator(row_cache=blocked / "rows").evaluate(scenario, seed=1).to_json() == \
        ModelEvaluator(row_cache=None).evaluate(scenario, seed=1).to_json()
