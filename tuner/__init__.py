"""Optuna studies over batch-job knobs."""
