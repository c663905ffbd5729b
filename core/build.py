"""Build the event core (the Rust crate beside this file) into ``simulator/_core<EXT_SUFFIX>``.

Run by ``make native`` and by the wheel build (``hatch_build.py``) with the Python the extension
is for: ``python core/build.py``. Needs a Rust toolchain (cargo); without one it says what to
install and exits 2. Imports nothing outside the standard library.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

CRATE = Path(__file__).resolve().parent
ROOT = CRATE.parent
TARGET = ROOT / ".build" / "core"
NO_CARGO = ("quietload's event core is Rust and no Rust toolchain was found (cargo): install one "
            "(https://rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh, or your system's "
            "rustc and cargo packages, Rust 1.74 or newer) and build again")


def extension_path() -> Path:
    return ROOT / "simulator" / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"


def cargo() -> str | None:
    return shutil.which("cargo") or next((str(p) for p in [Path.home() / ".cargo" / "bin" / "cargo"] if p.is_file()), None)


def build() -> Path:
    """Compile the crate (release, lto) for this Python and put the extension in the package."""
    found = cargo()
    if found is None:
        raise SystemExit(NO_CARGO)
    env = {**os.environ, "PYO3_PYTHON": sys.executable}
    subprocess.run([found, "build", "--release", "--quiet", "--manifest-path", str(CRATE / "Cargo.toml"),
                    "--target-dir", str(TARGET)], check=True, env=env)
    built = TARGET / "release" / ("_core.dll" if os.name == "nt" else
                                  "lib_core.dylib" if sys.platform == "darwin" else "lib_core.so")
    target = extension_path()
    shutil.copyfile(built, target.with_suffix(".tmp"))
    os.replace(target.with_suffix(".tmp"), target)   # a running process keeps the file it loaded
    return target


if __name__ == "__main__":
    try:
        print(f"built {build().relative_to(ROOT)}")
    except subprocess.CalledProcessError as e:
        print(f"cargo failed ({e.returncode}): the event core is not built", file=sys.stderr)
        sys.exit(1)
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
