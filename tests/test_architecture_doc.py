"""docs/architecture.md's table of packages is the tree's: every package and subpackage, its one
job (the first sentence of its ``__init__`` docstring) and what it may import (the layers below it
in pyproject.toml's contract, and its own package's modules without a cycle). A new subpackage, a
new layer or a new job fails here until the table is written again:

    .venv/bin/python tests/test_architecture_doc.py --write
"""
import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- packages: written by tests/test_architecture_doc.py --write -->"
END = "<!-- end of packages -->"


def layers() -> list[str]:
    """The packages from the top layer down (pyproject.toml's layers contract)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return next(contract["layers"] for contract in contracts if contract["type"] == "layers")


def job(package: Path) -> str:
    """The first sentence of the package's docstring."""
    text = " ".join((ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or "").split())
    return re.split(r"(?<=\.)\s", text, maxsplit=1)[0].rstrip(".").replace("``", "`").replace("|", "/")


def table() -> str:
    order = layers()
    rows = ["| package | its one job | may import |", "|---|---|---|"]
    for i, top in enumerate(order):
        below = ", ".join(f"`{name}`" for name in order[i + 1:]) or "nothing of quietload's"
        for init in sorted((ROOT / top).rglob("__init__.py")):
            package = init.parent
            name = str(package.relative_to(ROOT)).replace("/", ".")
            own = f"`{top}`'s modules (no cycle)"
            rows.append(f"| `{name}` | {job(package)} | {below}; {own} |" if below != "nothing of quietload's"
                        else f"| `{name}` | {job(package)} | {own} |")
    return "\n".join(rows)


def written() -> str:
    text = DOC.read_text()
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip("\n")


def test_the_doc_names_every_package_its_job_and_its_imports():
    assert written() == table(), "run: .venv/bin/python tests/test_architecture_doc.py --write"


def test_every_package_has_a_job_of_its_own():
    jobs = [line.split(" | ")[1] for line in table().splitlines()[2:]]
    assert all(jobs) and len(set(jobs)) == len(jobs)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    text = DOC.read_text()
    DOC.write_text(text[:text.index(BEGIN) + len(BEGIN)] + "\n" + table() + "\n" + text[text.index(END):])
