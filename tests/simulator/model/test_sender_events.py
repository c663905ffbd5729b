"""A producer's sender in the event core: its events are the engine's own, named as the Python
methods they replaced, and its requests and responses pass between it and its brokers natively."""
from __future__ import annotations

from collections import Counter

import pytest

from simulator._core import Connection, NativeAction, Sender


def events_by_name(run) -> Counter[tuple[str, bool]]:
    seen: Counter[tuple[str, bool]] = Counter()
    run.engine.observers.append(
        lambda action, argument: seen.update([(action.__qualname__, isinstance(action, NativeAction))]))
    run.execute()
    return seen


@pytest.mark.parametrize("acks, answered", [("1", True), ("0", False)])
def test_a_senders_events_are_native_and_named_as_before(make_scenario, traced_run, acks, answered):
    run = traced_run(make_scenario({"batch": {"producer": {"acks": acks}}}))
    seen = events_by_name(run)
    sender_events = {name for name, _ in seen if name.startswith("Sender.")}
    assert ("Sender._run", True) in seen
    assert (("Sender.on_response", True) in seen) is answered
    assert (("Sender._written", True) in seen) is not answered
    assert all(native for name, native in seen if name in sender_events)
    assert run.engine.native_events > 0.99 * run.engine.events


def test_a_sender_is_the_client_of_its_requests_and_its_connections_count_them(make_scenario, traced_run,
                                                                               watch_requests):
    run = traced_run(make_scenario())
    log = watch_requests(run)
    run.execute()
    (load,) = run.loads
    (executor,) = load.executors
    sender = executor.producer.sender
    assert isinstance(sender, Sender)
    requests = log.of(executor.producer)
    assert requests and all(isinstance(r.connection, Connection) for r in requests)
    assert sender.metrics.requests == len(requests)
    # every request was answered and read: nothing is in flight once the run is done
    assert set(executor.producer.inflight.values()) == {0}
    assert all(c.send_done > 0.0 for c in sender.connections.values())
