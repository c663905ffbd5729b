"""The contract of every evaluator and every reader: the result schema and the files quietload writes.

``RunResult`` is one run, model or live; its ``summary`` is a typed ``Summary`` (a ``TenantFigures``
per neighbour), its ``brokers`` are ``BrokerFigures`` and its ``batch_sizes`` ``BatchSizeFigures``. Each class has one codec
(``to_dict``/``from_dict``) and the file's bytes follow the classes' field order. This package
imports only ``workloads``, so the simulator, the tuner and the reports all build on it.
"""
from simulator.contract._compiled import use_compiled

COMPILED = use_compiled(__path__, "simulator.contract")   # the histograms, compiled with the model

from simulator.contract.errors import ResultError
from simulator.contract.figures import BatchSizeFigures, BrokerFigures, JobFigures, Summary, TenantFigures
from simulator.contract.histograms import LatencyHistogram, SizeHistogram, batch_size_section
from simulator.contract.names import file_part, result_path, scenario_path, scenario_stem, spread_path
from simulator.contract.result import PERCENTILES, SCHEMA_VERSION, WINDOWS, RunResult, read_document

__all__ = ["BatchSizeFigures", "BrokerFigures", "JobFigures", "LatencyHistogram", "PERCENTILES", "ResultError", "RunResult", "SCHEMA_VERSION",
           "SizeHistogram", "Summary", "TenantFigures", "WINDOWS", "batch_size_section", "file_part", "read_document",
           "result_path", "scenario_path", "scenario_stem", "spread_path"]
