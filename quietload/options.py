"""The options several commands share, declared once: the same name, value and help everywhere."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Overrides = Annotated[list[str] | None, typer.Option(
    "--set", metavar="KEY=VALUE",
    help="Override a scenario key (repeatable), e.g. batch.producer.linger.ms=10.")]

PastLimits = Annotated[bool, typer.Option(
    "--force", help="Run even a scenario past the model's limits of time and memory (see docs/scenarios.md: Limits).")]

BootstrapServers = Annotated[str | None, typer.Option(
    "--bootstrap-servers", metavar="HOST:PORT,...",
    help="Run against this cluster (e.g. a staging one) instead of the local stack; client security settings "
         "come from QUIETLOAD_KAFKA_* variables (e.g. QUIETLOAD_KAFKA_SECURITY_PROTOCOL=SASL_SSL).")]

Metrics = Annotated[list[str] | None, typer.Option(
    "--metrics", metavar="URL",
    help="With --bootstrap-servers: a broker's Prometheus endpoint, once per broker (the brokers' own idle and "
         "CPU figures).")]

RunDir = Annotated[Path, typer.Option("--run-dir", metavar="DIR", help="The local stack's run directory (state, data, logs).")]

ReplaceProfile = Annotated[bool, typer.Option("--force", help="Replace a profile of that name.")]

Prune = Annotated[bool, typer.Option(
    "--prune/--no-prune", help="Stop each trial at its verdict: a neighbour's p99 over its SLA beyond doubt, "
                               "the load past check.deadline, a seed that missed (the seeds after it not run), "
                               "or the requests of --prune-factor (see docs/tuning.md: Pruning).")]

PruneFactor = Annotated[float, typer.Option(
    min=0.0, help="Prune a trial once its produce requests exceed this many times the best trial that held's; 0: never.")]

MaxMinutes = Annotated[float, typer.Option(
    min=0.0, help="Refuse, before it starts, a study this machine cannot end within this many minutes "
                  "(trials x seeds x the least a run takes, over the workers); 0: no limit.")]

MarginOption = Annotated[float | None, typer.Option(
    "--margin", min=1.0, metavar="FACTOR",
    help="A pass (or a pick) whose neighbour p99 times FACTOR is over its SLA is marginal, and a study prefers picks "
         "that hold with it; 1: no margin [default: the profile's neighbour p99 error at the model's latest "
         "validation, error.neighbour_p99_during] (see docs/gate.md: Marginal).")]
