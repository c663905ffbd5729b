"""What a newcomer can rely on: every module imports, the packages depend on each other in one
order (workloads <- simulator <- judging <- tuner <- reports <- quietload) with no import cycle inside any
package (the contracts in pyproject.toml, checked by import-linter; function-level imports count),
and no module is over 400 lines."""
import importlib
import pkgutil
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).parent.parent
PACKAGES = ("workloads", "simulator", "judging", "tuner", "reports", "quietload")
MODULES = sorted(name for package in PACKAGES
                 for name in [package, *(m.name for m in pkgutil.walk_packages([str(ROOT / package)], f"{package}."))])


@pytest.mark.parametrize("module", MODULES)
def test_every_module_imports(module):
    importlib.import_module(module)


def test_the_import_contracts_hold(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename="pyproject.toml", no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


def test_no_module_is_over_400_lines():
    sizes = {str(path.relative_to(ROOT)): len(path.read_text().splitlines())
             for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    assert {path: n for path, n in sizes.items() if n > 400} == {}
