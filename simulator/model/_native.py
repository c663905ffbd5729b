"""The model's hot modules compiled with mypyc, used only while they match their sources.

``python -m simulator.model._native`` compiles copies of the modules into ``.build/mypyc``
and writes a digest of their sources. On import the package puts the compiled modules first
when the digest still matches, so an edited source never runs as stale compiled code; with
no build (or ``QUIETLOAD_PURE_PYTHON=1``) the same modules run as plain Python, with the
same results.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

COMPILED = ("engine", "metrics", "quota", "cpu", "shared", "request", "broker", "batch", "partitioner",
            "accumulator", "sender", "producer", "job", "consumer", "microbatch", "streaming", "compression")
SUPPORT = ("spark", "client")
PACKAGE = Path(__file__).resolve().parent
BUILD = PACKAGE.parents[1] / ".build" / "mypyc"
MANIFEST = BUILD / "manifest"


def source_digest() -> str:
    digest = hashlib.sha256(sys.version.encode())
    for name in COMPILED:
        digest.update((PACKAGE / f"{name}.py").read_bytes())
    return digest.hexdigest()


def use_compiled(package_path: list[str]) -> bool:
    if os.environ.get("QUIETLOAD_PURE_PYTHON") or not MANIFEST.is_file():
        return False
    if MANIFEST.read_text().strip() != source_digest():
        return False
    if str(BUILD) not in sys.path:
        sys.path.append(str(BUILD))   # mypyc's shared library is a top-level module
    package_path.insert(0, str(BUILD / "simulator" / "model"))
    return True


def build() -> int:
    if BUILD.exists():
        shutil.rmtree(BUILD)
    target = BUILD / "simulator" / "model"
    target.mkdir(parents=True)
    (BUILD / "simulator" / "__init__.py").write_text("")
    (target / "__init__.py").write_text("")
    for name in COMPILED + SUPPORT:
        shutil.copy2(PACKAGE / f"{name}.py", target / f"{name}.py")
    files = [f"simulator/model/{name}.py" for name in COMPILED]
    env = {**os.environ, "MYPYPATH": str(PACKAGE.parents[1])}
    done = subprocess.run([sys.executable, "-m", "mypyc", "--follow-imports=silent", *files],
                          cwd=BUILD, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        print(done.stdout[-3000:], file=sys.stderr)
        print("mypyc failed: the model runs as plain Python", file=sys.stderr)
        return 1
    for name in COMPILED + SUPPORT:   # keep only the compiled modules
        (target / f"{name}.py").unlink()
    MANIFEST.write_text(source_digest() + "\n")
    print(f"compiled {', '.join(COMPILED)} into {BUILD}")
    return 0


if __name__ == "__main__":
    sys.exit(build())
