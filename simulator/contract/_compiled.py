"""Where the compiled build of the model (``simulator.model._native``) lives and whether it still
matches its sources. The contract's histograms are compiled with the model, so this package
checks the build too, without importing the model: the manifest names the sources it digests.
"""
from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / ".build" / "mypyc"
MANIFEST = BUILD / "manifest"


def source_digest(sources: list[str]) -> str:
    """The digest of the Python version and of the sources (paths from the project's root)."""
    digest = hashlib.sha256(sys.version.encode())
    for source in sources:
        digest.update((ROOT / source).read_bytes())
    return digest.hexdigest()


@functools.cache
def build_matches() -> bool:
    """Whether a build exists and still matches its sources: read and digested once per process,
    though both packages ask."""
    if os.environ.get("QUIETLOAD_PURE_PYTHON") or not MANIFEST.is_file():
        return False
    recorded, *sources = MANIFEST.read_text().split() or [""]
    try:
        matches = bool(sources) and source_digest(sources) == recorded
    except OSError:   # a source the build was made from is gone
        matches = False
    if not matches:   # a build that was made and no longer fits: said once, for it costs 5-10x the time
        print(f"quietload: the compiled model in {BUILD} no longer matches its sources; the model runs as "
              "plain Python (the same results, several times slower) until `make native` builds it again",
              file=sys.stderr)
    return matches


def use_compiled(package_path: list[str], package: str) -> bool:
    """Put the package's compiled modules first on its path while the build matches its sources."""
    if not build_matches():
        return False
    if str(BUILD) not in sys.path:
        sys.path.append(str(BUILD))   # mypyc's shared library is a top-level module
    package_path.insert(0, str(BUILD.joinpath(*package.split("."))))
    return True
