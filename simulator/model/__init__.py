"""The embedded request-level model: fast, deterministic, the default evaluator."""
from simulator.model._native import use_compiled

COMPILED = use_compiled(__path__)
