"""The embedded request-level model: fast, deterministic, the default evaluator."""
from simulator.contract._compiled import use_compiled

COMPILED = use_compiled(__path__, "simulator.model")
