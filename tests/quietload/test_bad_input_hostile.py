"""The third hostile pass's shapes: numbers past their field's range, values of the wrong kind where a
traceback was, cross-field rules, a cluster that cannot carry the load, an SLA that cannot be judged.
Each is refused before any work with one line naming the field, exit 2, nothing left behind."""
import pytest
from _bad_input import BASE, assert_refused, changed, write_yaml

THREE = changed("cluster|replication.factor", 3, changed("cluster|brokers", 3))   # three brokers, every topic on each
HAND_WRITTEN_POLICY = """\
name: night
classes:
  - name: loads
    match: {client.id: ["*"]}
    quota: {request_percentage: %s}
"""

# (scenario: a mapping changed from BASE, a text the error line contains)
SCENARIOS = {
    "request_percentage inf": (changed("batch|quota", {"request_percentage": float("inf")}),
                               "batch.quota.request_percentage: expected a finite number, got inf"),
    "request_percentage 1e309 as a text": (changed("batch|quota", {"request_percentage": "1e309"}),
                                           "batch.quota.request_percentage: 1e309"),
    "request_percentage inf%": (changed("batch|quota", {"request_percentage": "inf%"}),
                                "batch.quota.request_percentage: expected a finite number, got 'inf%'"),
    "linger.ms past a Java long": (changed("batch|producer|linger.ms", 1e308),
                                   "batch.producer.linger.ms: 1e+308 is more milliseconds than Kafka takes (2^63-1, a Java long)"),
    "linger.ms past a Java long, in seconds": (changed("batch|producer|linger.ms", "99999999999999999s"),
                                               "batch.producer.linger.ms: 99999999999999999s is more milliseconds than Kafka takes"),
    "replica.fetch.wait.max.ms past a Java int": (changed("cluster|broker", {"replica.fetch.wait.max.ms": 3_000_000_000}),
                                                  "cluster.broker.replica.fetch.wait.max.ms: 3000000000 is more milliseconds than "
                                                  "Kafka takes (2^31-1, a Java int)"),
    "batch.key a list": (changed("batch|key", ["a", "b"]), "batch.key: expected a non-empty text, got ['a', 'b']"),
    "batch.key a mapping": (changed("batch|key", {"a": 1}), "batch.key: expected a non-empty text, got {'a': 1}"),
    "plan.load_gb past any size": (changed("plan", {"load_gb": [1e300]}),
                                   "plan.load_gb[0]: 1e+300 GB is more bytes than Kafka and Spark take (2^63-1)"),
    "extends a list": (changed("extends", ["a", "b"]), "s.yaml: extends: expected the path of one scenario file, got ['a', 'b']"),
    "extends a mapping": (changed("extends", {"a": 1}), "extends: expected the path of one scenario file, got {'a': 1}"),
    "a 1 B/s NIC": (changed("cluster|broker", {"nic_bandwidth": "1B/s"}),
                    "cluster.broker.nic_bandwidth: the load of 8.0 MB would take at least 97 days (1 B/s on each of 1 brokers)"),
    "a 1 B/s disk": (changed("cluster|broker", {"disk_bandwidth": "1B/s"}), "cluster.broker.disk_bandwidth: the load of 8.0 MB"),
    "a round trip of an hour": (changed("cluster|network_rtt", "1h"),
                                "cluster.network_rtt: the load of 8.0 MB would take at least 96 minutes (8 produce requests each a "
                                "round trip of 60 minutes, 5 at once on each of 1 connections)"),
    "a millionth of a vCPU": (changed("cluster|broker", {"vcpus": 0.000001}),
                              "cluster.broker.vcpus: the load of 8.0 MB would take at least"),
    "a relative SLA on a neighbour that sends nothing alone": (
        changed("tenants|0|sla_p99", "1.5x", changed("tenants|0|rate", "0.0001/s")),
        "tenants[0].sla_p99: 1.5x its p99 alone needs a p99 alone, but at 0.0001/s api sends no record in windows.before's 1 s"),
    "min.insync.replicas past the replication factor": (changed("cluster|min.insync.replicas", 5, THREE),
                                                        "cluster.min.insync.replicas: 5 is more than replication.factor 3"),
}


@pytest.mark.parametrize("case", SCENARIOS)
def test_a_scenario_past_its_fields_range_is_refused_naming_the_field(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario, expected = SCENARIOS[case]
    assert_refused(["simulate", write_yaml(tmp_path, "s.yaml", scenario)], expected)
    assert [p.name for p in tmp_path.iterdir()] == ["s.yaml"]


# (arguments, with {s} a small scenario and {dir} the case's directory; the line's text)
OPTIONS = {
    "check --deadline 0s": (["check", "{s}", "--deadline", "0s"], "--deadline: must be greater than zero, got '0s'"),
    "check --policy with request_percentage inf": (["check", "{s}", "--policy", "{dir}/inf.yaml"],
                                                   "classes[0].quota.request_percentage: expected a finite number"),
    "check --policy with request_percentage 1e309": (["check", "{s}", "--policy", "{dir}/big.yaml"],
                                                     "classes[0].quota.request_percentage: 1e309"),
    "simulate --json with a line break": (["simulate", "{s}", "--json", "{dir}/a\nFAKE LINE: PASS.json"],
                                          "--json: {dir}/a\\nFAKE LINE: PASS.json holds a line break or a control character"),
    "policy --out with an escape": (["policy", "{s}", "--out", "{dir}/out\x1b[2J"],
                                    "--out: {dir}/out\\x1b[2J holds a line break or a control character"),
    "check --policy proven on a billion seeds": (["check", "{s}", "--policy", "{dir}/seeds.yaml"],
                                                 "classes[0].proven.seeds: '1-999999999' is 999,999,999 seeds, more than a proof "
                                                 "runs (at most 100,000)"),
    "policy on a neighbour that sends nothing during the load": (["policy", "{dir}/slow.yaml", "--out", "{dir}/out"],
                                                                 "tenants[0].rate: api sent no record during the load on seed 1: "
                                                                 "too few records to judge its SLA"),
    "import --prometheus not a URL": (["import", "--prometheus", "not a url", "--out", "{dir}/o.yaml"],
                                      "--prometheus: 'not a url' is no http:// or https:// URL with a host"),
    "import --prometheus with a port no number": (["import", "--prometheus", "http://h:port/m", "--out", "{dir}/o.yaml"],
                                                  "--prometheus: 'http://h:port/m' is no http:// or https:// URL"),
}


@pytest.mark.parametrize("case", OPTIONS)
def test_an_option_past_its_range_is_refused_naming_it(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_yaml(tmp_path, "s.yaml", BASE)
    (tmp_path / "inf.yaml").write_text(HAND_WRITTEN_POLICY % ".inf")
    (tmp_path / "big.yaml").write_text(HAND_WRITTEN_POLICY % '"1e309"')
    write_yaml(tmp_path, "slow.yaml", changed("tenants|0|rate", "0.0001/s"))
    (tmp_path / "seeds.yaml").write_text(HAND_WRITTEN_POLICY % "50" + "    proven: {jobs_at_once: 1, seeds: 1-999999999}\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    args, expected = OPTIONS[case]
    assert_refused([a.format(s=tmp_path / "s.yaml", dir=tmp_path) for a in args], expected.format(dir=tmp_path))
    # a model run's cache of generated rows (.quietload/rows) is all a refusal after the run leaves
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".quietload") == before
