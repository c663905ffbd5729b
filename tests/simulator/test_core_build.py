"""The event core (core/, Rust) where it cannot be built or was not: one line, exit 2, nothing half done."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A meta-path finder that finds no `simulator._core`: the package as a checkout without `make` has it.
WITHOUT_CORE = """
import sys
class NoCore:
    def find_spec(self, name, path=None, target=None):
        if name == "simulator._core":
            raise ModuleNotFoundError("No module named 'simulator._core'", name=name)
sys.meta_path.insert(0, NoCore())
sys.argv = ["quietload", *sys.argv[1:]]
from quietload.__main__ import main
main()
"""


def _run(args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_a_command_without_the_event_core_says_how_to_build_it_in_one_line(tmp_path: Path) -> None:
    scenario = ROOT / "workloads" / "catalog" / "paypay-glue-2gb.yaml"
    for args in (["simulate", str(scenario)], ["--help"]):
        done = _run(["-c", WITHOUT_CORE, *args], cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        [line] = done.stderr.splitlines()
        assert line.startswith("quietload: quietload's event core (simulator._core, Rust) is not built: `make native`")
        assert "cargo" in line
    assert list(tmp_path.iterdir()) == []


def test_building_without_cargo_names_what_to_install_and_builds_nothing(tmp_path: Path) -> None:
    # no cargo on PATH and no ~/.cargo: the toolchain a machine without Rust lacks
    done = _run([str(ROOT / "core" / "build.py")], env={"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert "no Rust toolchain was found (cargo)" in line and "rustup" in line
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_the_console_script_is_the_entry_that_says_so() -> None:
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"quietload": "quietload.__main__:main"}


def test_the_wheel_carries_the_event_core_built_for_its_python(tmp_path: Path) -> None:
    # `pip install .` builds this wheel through the same backend and hook (hatchling, hatch_build.py)
    import sysconfig
    import zipfile
    done = _run(["-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path / "dist")])
    assert done.returncode == 0, done.stderr
    [wheel] = (tmp_path / "dist").glob("*.whl")
    tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheel.name.endswith(f"-cp{sys.version_info[0]}{sys.version_info[1]}-cp{sys.version_info[0]}"
                               f"{sys.version_info[1]}-{tag}.whl"), wheel.name   # not py3-none-any
    extension = f"simulator/_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert [n for n in names if n.startswith("simulator/_core")] == ["simulator/_core.pyi", extension]
        archive.extractall(tmp_path / "site")
    # the extracted wheel's event core is the one that loads and runs a draw
    probe = ("import simulator._core as c, sys; print(c.__file__); "
             "import random; r = c.Random(random.Random(7).getstate()); print(r.random() == random.Random(7).random())")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(tmp_path / "site")})
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.splitlines() == [str(tmp_path / "site" / extension), "True"]
