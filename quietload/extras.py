"""The optional parts of quietload (pyproject's extras) and the one line a missing one gives:
the model needs none of them; live runs, AWS imports and a PostgreSQL study storage do."""
from __future__ import annotations

# top-level module -> the extra that installs it
EXTRA_OF = {"confluent_kafka": "live", "pyspark": "live", "py4j": "live",
            "boto3": "aws", "botocore": "aws", "psycopg": "postgres", "psycopg_binary": "postgres"}


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """One line naming the extra to install, for a module one of them provides; else None."""
    module = (error.name or "").split(".")[0]
    extra = EXTRA_OF.get(module)
    if extra is None:
        return None
    return f"this needs {module}, which the '{extra}' extra installs: pip install 'quietload[{extra}]'"


def _absent(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is None
    except ImportError:
        return True


def require(extra: str, command: str) -> None:
    """Refuse ``command`` in one line before it starts when a module of ``extra`` is missing."""
    from workloads import ScenarioError

    missing = sorted(module for module, of in EXTRA_OF.items() if of == extra and module != "psycopg_binary"
                     and _absent(module))
    if extra == "live":   # the live extra brings the aws one
        missing += sorted(module for module in ("boto3", "botocore") if _absent(module))
    if missing:
        raise ScenarioError(command, f"needs {', '.join(missing)}, which the '{extra}' extra installs: "
                                     f"pip install 'quietload[{extra}]'")
