"""``quietload`` (the console script) and ``python -m quietload``: the CLI, or one line where the
event core this install needs was never built (a checkout without ``make``, a wheel built without cargo)."""
from __future__ import annotations

import sys


def main() -> None:
    try:
        from quietload.cli import main as cli_main
    except ImportError as e:
        if e.name != "simulator._core":
            raise
        print(f"quietload: {e.msg}", file=sys.stderr)
        raise SystemExit(2) from None
    cli_main()


if __name__ == "__main__":
    main()
