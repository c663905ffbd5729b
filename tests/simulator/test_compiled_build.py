"""A compiled model that no longer matches its sources is not used, and says so once on stderr;
no build at all (an installed package, QUIETLOAD_PURE_PYTHON=1) says nothing."""
from __future__ import annotations

from simulator.contract import _compiled


def _matches(monkeypatch, tmp_path, manifest: str | None, pure: bool = False) -> bool:
    path = tmp_path / "manifest"
    if manifest is not None:
        path.write_text(manifest)
    monkeypatch.setattr(_compiled, "MANIFEST", path)
    if pure:
        monkeypatch.setenv("QUIETLOAD_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("QUIETLOAD_PURE_PYTHON", raising=False)
    _compiled.build_matches.cache_clear()
    try:
        return _compiled.build_matches()
    finally:
        _compiled.build_matches.cache_clear()


def test_a_stale_build_runs_as_plain_python_and_says_so_once(monkeypatch, tmp_path, capsys):
    sources = ["simulator/model/engine.py"]
    assert _matches(monkeypatch, tmp_path, "\n".join(["0" * 64, *sources])) is False
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no longer matches its sources" in err and "make native" in err


def test_a_matching_build_is_used_silently(monkeypatch, tmp_path, capsys):
    sources = ["simulator/model/engine.py"]
    assert _matches(monkeypatch, tmp_path, "\n".join([_compiled.source_digest(sources), *sources])) is True
    assert capsys.readouterr().err == ""


def test_no_build_or_pure_python_says_nothing(monkeypatch, tmp_path, capsys):
    assert _matches(monkeypatch, tmp_path, None) is False
    assert _matches(monkeypatch, tmp_path, "\n".join(["0" * 64, "simulator/model/engine.py"]), pure=True) is False
    assert capsys.readouterr().err == ""


def test_a_build_whose_source_is_gone_is_stale(monkeypatch, tmp_path, capsys):
    assert _matches(monkeypatch, tmp_path, "\n".join(["0" * 64, "simulator/model/no_such_module.py"])) is False
    assert "no longer matches" in capsys.readouterr().err
