"""Capacity planning: how much batch ingest each cluster option absorbs with every neighbour within SLA.

``capacity`` sweeps a grid of batch loads over the cluster options ``whatif`` builds and judges
each option; the points run on ``tuner.runner`` (inline, a process pool or Spark).
"""
from tuner.planning.capacity import (GIB, Grid, LoadPoint, bracket, current_load, evaluate_point, ingest_gb_per_hour,
                                     option_verdict, plan_path, refine, run_plan, sized, within_sla, write_plan)
from tuner.planning.whatif import ClusterOption, cluster_options

__all__ = ["ClusterOption", "GIB", "Grid", "LoadPoint", "bracket", "cluster_options", "current_load", "evaluate_point",
           "ingest_gb_per_hour", "option_verdict", "plan_path", "refine", "run_plan", "sized", "within_sla", "write_plan"]
