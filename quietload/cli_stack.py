"""`quietload stack`: a real Kafka cluster (and S3) on this machine for live runs; the live stack's
modules load when one of its commands runs."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from quietload.coercion import PlainTyper
from quietload.extras import require
from quietload import progress
from quietload.options import RunDir
from simulator.contract.names import STACK_RUN_DIR
from quietload.terminal import echo

stack_app = PlainTyper(no_args_is_help=True, rich_markup_mode=None, help=(
    "A real Kafka cluster on this machine for live runs: KRaft brokers from the Maven Central jars "
    "(or KAFKA_HOME) with the Prometheus JMX exporter on each, on 127.0.0.1 only; state, data and "
    "logs in one run directory."))


@stack_app.command("up")
def stack_up(
    brokers: Annotated[int | None, typer.Option(min=1, max=3, help="Brokers to run, 1 to 3 (default: the scenario's count, else 1).")] = None,
    scenario_file: Annotated[Path | None, typer.Option("--scenario", metavar="FILE",
                                                       help="Take broker settings, replication factor and min.insync.replicas from this scenario's cluster.")] = None,
    port: Annotated[int | None, typer.Option(help="First broker's listener port; the next brokers take the ports after it (default: free ports).")] = None,
    s3: Annotated[bool, typer.Option("--s3/--no-s3", help="Also run S3 (LocalStack) for the job's input.")] = True,
    s3_port: Annotated[int | None, typer.Option(help="LocalStack's S3 port (default: a free port).")] = None,
    run_dir: RunDir = STACK_RUN_DIR,
) -> None:
    """Start the Kafka brokers (and their KRaft controller) and S3 (LocalStack) unless they already run; wait until each serves.

    Example: quietload stack up --brokers 3 --scenario workloads/catalog/paypay-glue-2gb.yaml
    """
    require("live", "quietload stack up")
    from simulator.live import KafkaCluster, render_status
    from simulator.live.s3 import LocalStackS3, render_s3_status
    from simulator.live.service import up_all
    from workloads import Scenario

    options: dict[str, Any] = {"run_dir": run_dir, "port": port, "progress": progress.echo}
    cluster = (KafkaCluster.for_scenario(Scenario.from_yaml(scenario_file), brokers, **options) if scenario_file
               else KafkaCluster(brokers=brokers or 1, **options))
    storage = LocalStackS3(run_dir, s3_port, progress=progress.echo) if s3 else None
    started = up_all([cluster, storage] if storage else [cluster])
    echo(("" if started else "already up\n") + render_status(cluster, cluster.status())
               + (f"\n{render_s3_status(storage, storage.status())}" if storage else ""))


@stack_app.command("status")
def stack_status(run_dir: RunDir = STACK_RUN_DIR) -> None:
    """Show the stack's processes and ports. Exit 0 if it is up, 1 if a process of it has exited, 3 if it is down.

    Example: quietload stack status
    """
    from simulator.live import KafkaCluster, render_status
    from simulator.live.s3 import LocalStackS3, render_s3_status

    cluster, storage = KafkaCluster(run_dir), LocalStackS3(run_dir)
    statuses, s3_status = cluster.status(), storage.status()
    echo(render_status(cluster, statuses) + (f"\n{render_s3_status(storage, s3_status)}" if s3_status else ""))
    running = [s.running for s in statuses] + ([s3_status.running] if s3_status else [])
    raise typer.Exit(3 if not running else 0 if all(running) else 1)


@stack_app.command("down")
def stack_down(run_dir: RunDir = STACK_RUN_DIR) -> None:
    """Stop the stack and remove its run directory: no process, port or data is left behind.

    Example: quietload stack down
    """
    from simulator.live import KafkaCluster, render_stopped
    from simulator.live.s3 import LocalStackS3, render_s3_stopped

    cluster, storage = KafkaCluster(run_dir), LocalStackS3(run_dir)
    s3_status = storage.down()
    echo(render_stopped(cluster, cluster.down()) + (f"\n{render_s3_stopped(storage, s3_status)}" if s3_status else ""))
