"""The `quietload` command line."""

import typer

from quietload import __version__

app = typer.Typer(no_args_is_help=True, help="Simulate and tune batch-job workloads.")


@app.callback()
def _root() -> None:
    """Simulate and tune batch-job workloads."""
    # An explicit callback keeps Typer in multi-command mode even while only one
    # command exists (otherwise `quietload version` would not parse).


@app.command()
def version() -> None:
    """Print the quietload version."""
    typer.echo(__version__)


def main() -> None:
    app()
