"""Decides on the model: Optuna studies over batch-job knobs (tune), the cluster's policy, the model's calibration and fidelity.

Importing this package does not import Optuna; a study does, when it runs.
"""
from tuner.objective import OBJECTIVES, Objective, Outcome
from tuner.recommend import Recommendation, render_snippets, snippets
from tuner.space import KnobRange, SearchSpace, search_space
from tuner.storage import open_storage
from tuner.study import StudySettings, StudySummary, TrialRecord, closest_miss, pareto_front, pick, run_study
from tuner.tune import TuneOutcome, TuneRequest, tune as run_tune

__all__ = ["KnobRange", "OBJECTIVES", "Objective", "Outcome", "Recommendation", "SearchSpace", "StudySettings",
           "StudySummary", "TrialRecord", "TuneOutcome", "TuneRequest", "closest_miss", "open_storage", "pareto_front",
           "pick", "render_snippets", "run_study", "run_tune", "search_space", "snippets"]
