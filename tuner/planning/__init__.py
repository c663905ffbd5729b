"""Capacity planning and the night's schedule: how much batch ingest each cluster option absorbs
with every neighbour within SLA, and when each job of a night may start.

``capacity`` sweeps a grid of batch loads over the cluster options ``whatif`` builds and judges
each option; ``search`` extends the grid until each option's first breach is bracketed and
bisects between; the points run on ``tuner.runner`` (inline, a process pool or Spark).
"""
from tuner.planning.capacity import (GIB, Grid, current_load, evaluate_point, ingest_gb_per_hour, option_verdict,
                                     plan_path, run_plan, sized, within_sla, write_plan)
from tuner.planning.search import LoadPoint, bracket, extend, refine
from tuner.planning.whatif import ClusterOption, cluster_options

__all__ = ["ClusterOption", "GIB", "Grid", "LoadPoint", "bracket", "cluster_options", "current_load", "evaluate_point",
           "extend", "ingest_gb_per_hour", "option_verdict", "plan_path", "refine", "run_plan", "sized", "within_sla",
           "write_plan"]
