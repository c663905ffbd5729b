"""Evaluators that turn a scenario into a RunResult."""
