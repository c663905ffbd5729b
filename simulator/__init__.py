"""Evaluators that turn a scenario into a RunResult."""

try:
    from simulator import _core  # noqa: F401  (the event core: core/, Rust)
except ImportError:
    raise ImportError("quietload's event core (simulator._core, Rust) is not built: `make native` builds it, "
                      "or `pip install .` with a Rust toolchain (cargo, https://rustup.rs)", name="simulator._core") from None
