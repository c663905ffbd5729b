"""A user's own Glue job, MSK cluster and metrics as a scenario (``quietload import``)."""
from workloads.imports.history import History, Neighbour, Window, baseline, find_loads, neighbours
from workloads.imports.scenario_writer import Imported, Imports, build, write
from workloads.imports.sources import Request, gather

__all__ = ["History", "Imported", "Imports", "Neighbour", "Request", "Window", "baseline", "build", "find_loads",
           "gather", "neighbours", "write"]
