"""One machine, one live stack at a time: the modules with live tests take the machine's live lock
(the file the benches take with ``flock /tmp/quietload-live.lock``) for as long as their stacks run,
so a second test suite (or a bench) on the machine waits for it rather than sharing the cores with it."""
from __future__ import annotations

import fcntl
from collections.abc import Iterator

import pytest

LIVE_LOCK = "/tmp/quietload-live.lock"
_LIVE_MODULES = pytest.StashKey[set]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    config.stash[_LIVE_MODULES] = {item.module.__name__ for item in items
                                   if item.get_closest_marker("live") is not None and item.module is not None}


@pytest.fixture(scope="module", autouse=True)
def _one_live_stack_at_a_time(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.module.__name__ not in request.config.stash.get(_LIVE_MODULES, set()):
        yield
        return
    with open(LIVE_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
