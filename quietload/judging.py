"""A command that proves or plans for the neighbours' SLAs (policy, plan, plan --schedule) ends as
check does when the scenario has no neighbour: nothing to judge, exit 3, before any run, no file written."""
from __future__ import annotations

import typer

from quietload.terminal import echo


def exit_without_neighbours(scenario, command: str) -> None:
    """Exit 3 with check's one line when ``scenario`` lists no tenants; else nothing."""
    if scenario.tenants:
        return
    from judging.gate import EXIT_CODES, NOTHING_TO_JUDGE, without_neighbours
    echo(without_neighbours(scenario.name, command))
    raise typer.Exit(EXIT_CODES[NOTHING_TO_JUDGE])
