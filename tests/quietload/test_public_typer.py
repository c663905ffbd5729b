"""The command line uses typer's public API only: no module of the packages imports one of typer's
private modules (typer._click, typer._coercion, ...) or a private name, or assigns into typer."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
PACKAGES = ("workloads", "simulator", "judging", "tuner", "reports", "quietload")
SOURCES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split(".")[1:])


def _typer_names(tree: ast.Module) -> set[str]:
    """The names a module binds to typer, its modules or what they hold."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] == "typer"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "typer":
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _typer_uses(path: Path) -> list[str]:
    """Where ``path`` reaches into typer's private parts or changes typer."""
    text = path.read_text()
    tree = ast.parse(text)
    typer_names = _typer_names(tree)
    found = [f"{path.name}: {match}" for match in re.findall(r"\btyper\._\w+", text)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names
                      if a.name.split(".")[0] == "typer" and _private(a.name)]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "typer":
            found += [f"{path.name}:{node.lineno} from {node.module} import {a.name}" for a in node.names
                      if _private(node.module or "") or a.name.startswith("_")]
        targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        found += [f"{path.name}:{node.lineno} assigns {ast.unparse(t)}" for t in targets
                  if isinstance(t, (ast.Attribute, ast.Subscript)) and _root(t) in typer_names]
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("setattr", "delattr") and node.args \
                and _root(node.args[0]) in typer_names:
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_module_uses_typers_private_api_or_changes_typer():
    assert [use for path in SOURCES for use in _typer_uses(path)] == []


def test_the_check_finds_each_way_into_typer(tmp_path):
    module = tmp_path / "reaching.py"
    module.write_text("import typer\nimport typer._click.exceptions\nfrom typer import _coercion, core\n"
                      "from typer.core import TyperGroup\nfrom typer._param_types import coerce_cli_path\n"
                      "core.build_runtime_param = None\ntyper.echo = print\nTyperGroup.invoke = None\n"
                      "setattr(core, 'x', 1)\nparam = object()\nparam.x = 1\n")
    assert _typer_uses(module) == [
        "reaching.py: typer._click", "reaching.py: typer._param_types", "reaching.py:2 import typer._click.exceptions",
        "reaching.py:3 from typer import _coercion", "reaching.py:5 from typer._param_types import coerce_cli_path",
        "reaching.py:6 assigns core.build_runtime_param", "reaching.py:7 assigns typer.echo",
        "reaching.py:8 assigns TyperGroup.invoke", "reaching.py:9 setattr(core, 'x', 1)"]
