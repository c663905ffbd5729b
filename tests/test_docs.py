"""The README is a front page: short, and every link into docs/ lands on a page and heading."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    # GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def local_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def test_readme_is_a_front_page_under_15_kb():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) < 15 * 1024
    # the README's two commands; CI runs the second
    assert "make demo" in readme and "make test" in readme


def test_every_docs_page_is_in_the_readme_table_of_contents():
    linked = {Path(t.split("#")[0]).name for t in local_links(ROOT / "README.md")}
    expected = {"model.md", "fidelity.md", "live.md", "tuning.md", "planning.md", "gate.md",
                "scenarios.md", "reports.md", "schema.md", "speed.md", "architecture.md"}
    assert expected <= {p.name for p in PAGES}
    assert {p.name for p in PAGES if p.parent.name == "docs"} <= linked


def test_every_local_link_resolves_to_a_file_and_heading():
    broken = []
    for page in PAGES:
        for target in local_links(page):
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_slug_follows_github():
    assert slug("What the model captures") == "what-the-model-captures"
    assert slug("Limits, and `--force`") == "limits-and---force"
