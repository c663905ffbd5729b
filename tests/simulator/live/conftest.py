"""Stacks that several live test modules start alike."""
import pytest

from simulator.live import KafkaCluster
from stack_probes import PASSWORD, USER


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    """One broker that wants SASL/PLAIN credentials (stack_probes.USER, PASSWORD), as a user's cluster would."""
    with KafkaCluster(tmp_path_factory.mktemp("sasl") / "stack", brokers=1, sasl_plain=(USER, PASSWORD)) as cluster:
        yield cluster
