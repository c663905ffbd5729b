"""Where a study is kept, apart from the study (as Optuna's ``storages/``): a ``--storage`` URL
opened as an Optuna RDB storage (SQLite files on a write-ahead log, PostgreSQL with a connect
timeout, tables created by whichever tuner comes first) and shown without its secrets."""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote

from workloads import ScenarioError
from workloads.reader import not_a_file
from workloads.urls import MASK, mask_secrets, mask_url, secret_key, url_password

CONNECT_TIMEOUT_S = 10   # a PostgreSQL host that drops packets fails in seconds, not after minutes of TCP retries
TABLE_CREATION_ATTEMPTS = 3   # tuners starting at once on a new database race to create its tables: the losers retry


def display_url(url: str) -> str:
    """The storage URL without its secrets, whatever its shape: SQLAlchemy's rendering with the
    password hidden where the URL parses as SQLAlchemy and the URL's own text agree (secret query
    keys such as ``password``, ``pwd`` and ``sslpassword`` masked too), else masked by hand; any
    secret left in the text is then replaced."""
    shown = None
    try:
        from sqlalchemy.engine import make_url
        parsed = make_url(url)
        if parsed.password == (unquote(url_password(url)) if url_password(url) is not None else None):
            query = {key: MASK if secret_key(key) else value for key, value in parsed.query.items()}
            shown = parsed.set(query=query).render_as_string(hide_password=True).replace("%2A%2A%2A", MASK)
    except Exception:   # SQLAlchemy refuses the URL (a port that is no number, no scheme)
        pass
    return mask_secrets(shown if shown is not None else mask_url(url), url)


@dataclass(frozen=True)
class Kept:
    """An opened study storage: Optuna's object, and where it is as a person may be shown it."""

    optuna: Any
    shown: str


@contextmanager
def kept_in(url: str) -> Iterator[Kept]:
    """The storage of ``url``, open while the study runs, closed after (a SQLite file's write-ahead
    log then folded back into it)."""
    storage = open_storage(url)
    try:
        yield Kept(storage, display_url(url))
    finally:
        storage.remove_session()
        storage.engine.dispose()


def open_storage(url: str) -> Any:
    """An Optuna RDB storage, or one ``--storage`` error line saying why it cannot be opened."""
    shown = display_url(url)
    if url.split("?")[0] in ("sqlite://", "sqlite:///:memory:", "memory", ":memory:"):
        raise ScenarioError("--storage", f"{url}: a study is kept in a database file or server; a database in memory "
                                         "is new to every connection (e.g. sqlite:///results/study.db)")
    if url.startswith("sqlite:///"):
        database = Path(url[len("sqlite:///"):].split("?")[0])
        if not database.parent.is_dir():
            raise ScenarioError("--storage", f"{shown}: directory {database.parent} does not exist")
        if database.exists() and (kind := not_a_file(database.stat().st_mode)) is not None:   # SQLite would say "disk I/O error"
            raise ScenarioError("--storage", f"{database} is {kind}; name a database file")
    try:
        return _rdb_storage(url)
    except ImportError as error:   # Optuna re-raises the driver's ModuleNotFoundError with its own words
        missing = error if isinstance(error, ModuleNotFoundError) else error.__cause__ or error.__context__
        name = getattr(missing, "name", None) or "for this URL"
        raise ScenarioError("--storage", f"{shown}: needs the database driver {name!r}, which is not installed") from None
    except Exception as error:  # SQLAlchemy's errors for bad URLs and unreachable servers vary by driver
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise ScenarioError("--storage", f"cannot open {shown}: {mask_secrets(reason, url)}") from None


def _rdb_storage(url: str) -> Any:
    """Optuna's storage for ``url``: a PostgreSQL connection attempt gives up after
    ``CONNECT_TIMEOUT_S`` unless the URL sets ``connect_timeout``."""
    import optuna
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
    parsed = make_url(url)
    engine_kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        engine_kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
    for attempt in range(1, TABLE_CREATION_ATTEMPTS + 1):
        try:
            storage = optuna.storages.RDBStorage(url, engine_kwargs=engine_kwargs)
            if parsed.get_backend_name() == "sqlite":
                _write_ahead(storage.engine)
            return storage
        except (IntegrityError, ProgrammingError, OperationalError) as error:
            # another tuner created the same table first (SQLite says so as an OperationalError)
            lost_race = not isinstance(error, OperationalError) or "already exists" in str(error.orig)
            if attempt == TABLE_CREATION_ATTEMPTS or not lost_race:
                raise
            time.sleep(0.2 * attempt)


def _write_ahead(engine: Any) -> None:
    """Every connection of ``engine`` (a SQLite file's) commits to a write-ahead log without
    waiting for the disk (``journal_mode=WAL``, ``synchronous=NORMAL``): a commit then costs no
    ``fsync``, where SQLite's default waits for one or two, a study's ~25 commits a trial. A
    commit still survives the process's crash; a power cut or an OS crash can lose the last
    commits, never the file's consistency, and a resumed study reruns a trial it lost. SQLite's
    write-ahead log needs the file on a local disk (not a network file system)."""
    from sqlalchemy import event

    def on_connect(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    event.listen(engine, "connect", on_connect)
    engine.dispose()   # the connections opened while creating the tables reconnect with the pragmas
