"""The README's path, run as a new user runs it: every command of its code blocks, in order, in a
fresh clone, each timed, each output checked against what the README shows.

A block's ``$ `` lines are commands (a trailing backslash continues one); the lines after a command,
up to the next, are what the README shows it print. Each shown line must appear in the command's
output, in order; ``...`` stands for whatever the README leaves out (a line of its own skips lines,
inside a line it skips characters). A command that exits other than 0 fails its step, unless the
README shows its exit code (``; echo "exit $?"``, and then the ``exit N`` line it shows must be
printed). A command's comment ``# 8 s here`` is the time the README says it took on this machine;
it is printed beside the time it took now, never judged (the machine's other work moves it). The
commands run with this checkout's ``.venv/bin`` first on PATH, in a clone of its last commit;
`quietload live` only with --live; --until N stops after the README's step N.

    .venv/bin/python bench/readme_path.py [--live] [--until N] [--readme README.md] [--keep DIR]

Printed: one line per command (its step, its time now and the README's, ok or what differs), then
the whole path's time. Exit 1 when a command did not do what the README shows.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELIDED = "..."
STOP_GRACE_S = 30      # a stopped command's time to end its workers before they are killed


TIME_SHOWN = re.compile(r"\s+#\s*([0-9][0-9.,]*\s*(?:s|min|h))\s+here\s*$")   # ``# 8 s here`` after a command


@dataclass(frozen=True)
class Command:
    step: str            # the README's bold step it follows ("1. simulate")
    line: str            # the command, continuation lines joined
    shown: tuple[str, ...]
    took_here: str = ""  # the time the README shows beside it ("8 s"), if any

    @property
    def number(self) -> int:
        """The README's step number (0 before its first step)."""
        return int(self.step.split(".")[0]) if self.step[:1].isdigit() else 0


def commands(readme: str) -> list[Command]:
    """Every ``$ `` command of the README's plain code blocks, with the output lines it shows."""
    found: list[Command] = []
    step = ""
    fenced = in_block = False        # inside any fenced block; inside a plain one (its fence bare)
    current, shown = None, []

    def close() -> None:
        nonlocal current, shown
        if current is not None:
            took = TIME_SHOWN.search(current)
            found.append(Command(step, current[:took.start()] if took else current, tuple(shown),
                                 " ".join(took.group(1).split()) if took else ""))
        current, shown = None, []

    lines = readme.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            close()
            fenced = not fenced
            in_block = fenced and line.strip() == "```"
            index += 1
            continue
        if not in_block:
            if match := re.match(r"\*\*(\d+\. [^*]+)\*\*", line):
                step = match.group(1).rstrip(":")
        elif line.startswith("$ "):
            close()
            command = line[2:]
            while command.endswith("\\") and index + 1 < len(lines):
                index += 1
                command = command[:-1].rstrip() + " " + lines[index].strip()
            current = command
        elif current is not None:
            shown.append(line)
        index += 1
    return found


def _line_matches(shown: str, actual: str) -> bool:
    """``shown`` in ``actual``, its ``...`` standing for any characters (spaces compared loosely)."""
    parts = [re.escape(" ".join(part.split())) for part in shown.strip().split(ELIDED)]
    return re.search(".*".join(parts), " ".join(actual.split())) is not None


def differs(shown: tuple[str, ...], output: str) -> str | None:
    """The first shown line the output lacks (in order), or None when all are there."""
    actual = output.splitlines()
    at = 0
    for line in shown:
        if not line.strip() or line.strip() == ELIDED:
            continue
        while at < len(actual) and not _line_matches(line, actual[at]):
            at += 1
        if at == len(actual):
            return f"the README shows {line.strip()[:160]!r}; not in the output (in order)"
        at += 1
    return None


def run(command: Command, where: Path, env: dict[str, str]) -> tuple[float, str | None, str]:
    began = time.monotonic()
    # a group of its own: stopped, the command and every worker it started get SIGTERM and end as they do on Ctrl-C
    with subprocess.Popen(["bash", "-c", command.line], cwd=where, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True) as done:
        try:
            output = done.communicate()[0]
        except KeyboardInterrupt:
            os.killpg(done.pid, signal.SIGTERM)
            try:
                done.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                os.killpg(done.pid, signal.SIGKILL)
            raise
    took = time.monotonic() - began
    problem = None
    if done.returncode != 0 and "echo \"exit $?\"" not in command.line:
        problem = f"exit {done.returncode}: {(output.strip().splitlines() or [''])[-1][:200]}"
    return took, problem or differs(command.shown, output), output


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--live", action="store_true", help="run the live step too (a Kafka broker, LocalStack and Spark)")
    options.add_argument("--until", type=int, metavar="N", help="stop after the README's step N (e.g. 6: all but the night)")
    options.add_argument("--readme", type=Path, default=ROOT / "README.md")
    options.add_argument("--keep", type=Path, help="clone into this directory and keep it (default: a temporary one)")
    args = options.parse_args()
    steps = [c for c in commands(args.readme.read_text()) if args.until is None or c.number <= args.until]
    work = args.keep or Path(tempfile.mkdtemp(prefix="quietload-readme-"))
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(work)], check=True)
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    failed, began = 0, time.monotonic()
    try:
        for command in steps:
            if "quietload live" in command.line and not args.live:
                print(f"{command.step:<14} {'-':>8} {'':>14}  not run (live: --live runs it)  $ {command.line[:80]}", flush=True)
                continue
            took, problem, output = run(command, work, env)
            failed += problem is not None
            here = f"(README {command.took_here})" if command.took_here else "(README: none)"
            print(f"{command.step:<14} {took:7.1f}s {here:>14}  {'ok' if problem is None else 'DIFFERS: ' + problem}"
                  f"  $ {command.line[:80]}", flush=True)
            if problem is not None:
                print("  " + "\n  ".join(output.splitlines()[-12:]), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"the README's path: {len(steps)} commands, {failed} not as shown, {time.monotonic() - began:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    from quietload.stopping import stop_signals_interrupt
    with stop_signals_interrupt():      # SIGTERM unwinds as Ctrl-C does: the clone is removed
        try:
            sys.exit(main())
        except KeyboardInterrupt as stop:
            print(f"the README's path: stopped ({stop or 'SIGINT'})", file=sys.stderr)
            sys.exit(130)
