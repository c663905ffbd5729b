"""The model's hot modules compiled with mypyc, used only while they match their sources.

``python -m simulator.model._native`` compiles copies of the modules into ``.build/mypyc``
(with the contract's histograms, which the model fills on its hot path) and writes a digest
of their sources (``simulator.contract._compiled``). On import each package puts the compiled modules first
when the digest still matches, so an edited source never runs as stale compiled code; with
no build (or ``QUIETLOAD_PURE_PYTHON=1``) the same modules run as plain Python, with the
same results.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from simulator.contract._compiled import BUILD, MANIFEST, ROOT, source_digest

COMPILED = ("engine", "metrics", "request", "quota", "fetcher", "broker",
            "accumulator", "producer", "job", "consumer", "microbatch", "streaming", "compression")
SUPPORT = ("spark", "client")
CONTRACT = ("histograms",)     # compiled with the model: its batches' and neighbours' counters
PACKAGE = Path(__file__).resolve().parent
SOURCES = [f"simulator/model/{name}.py" for name in COMPILED] + [f"simulator/contract/{name}.py" for name in CONTRACT]
CORE_TYPES = "simulator/_core.pyi"   # the event core's types (core/, Rust): what mypyc compiles calls to


def build() -> int:
    digest = source_digest([*SOURCES, CORE_TYPES])   # of the sources as copied below: one edited meanwhile leaves the build stale, never wrong
    if BUILD.exists():
        shutil.rmtree(BUILD)
    target = BUILD / "simulator" / "model"
    contract = BUILD / "simulator" / "contract"
    target.mkdir(parents=True)
    contract.mkdir()
    for package in (BUILD / "simulator", target, contract):
        (package / "__init__.py").write_text("")
    for name in COMPILED + SUPPORT:
        shutil.copy2(PACKAGE / f"{name}.py", target / f"{name}.py")
    for path in (ROOT / "simulator" / "contract").glob("*.py"):
        if path.name != "__init__.py":
            shutil.copy2(path, contract / path.name)
    shutil.copy2(ROOT / CORE_TYPES, BUILD / CORE_TYPES)
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mypyc", "--follow-imports=silent", *SOURCES],
                          cwd=BUILD, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        print(done.stdout[-3000:], file=sys.stderr)
        print("mypyc failed: the model runs as plain Python", file=sys.stderr)
        return 1
    for path in [*target.glob("*.py"), *contract.glob("*.py")]:   # keep only the compiled modules
        if path.name != "__init__.py":
            path.unlink()
    (BUILD / CORE_TYPES).unlink()
    MANIFEST.write_text("\n".join([digest, *SOURCES, CORE_TYPES]) + "\n")
    print(f"compiled {', '.join(COMPILED + CONTRACT)} into {BUILD}")
    return 0


if __name__ == "__main__":
    sys.exit(build())
