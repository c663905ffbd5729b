"""Bad scenario files and ``--set`` values: each is refused with one line naming what is wrong,
exit code 2, no traceback, before anything runs (the cases of the other kinds are in
test_bad_input_options.py and test_bad_input_results.py)."""
import pytest
import yaml
from _bad_input import BASE, assert_refused, changed, write_yaml

from workloads import CATALOG

DEEP_LIST = "name: " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_MAP = "name: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n"
LAUGHS = """\
name: bomb
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
{field}: [*e, *e, *e, *e, *e, *e, *e, *e, *e]
"""
DIGITS = "9" * 400


def _raw(path: str, text: str) -> str:
    """BASE as YAML with the value at ``path`` written as ``text``, unquoted (YAML 1.1's surprises)."""
    return yaml.safe_dump(changed(path, "@@"), sort_keys=False).replace("'@@'", text)


# (scenario: a mapping changed from BASE, or raw text; a text the error line contains)
SCENARIOS = {
    "linger.ms 1:30 (base 60 in YAML 1.1)": (_raw("batch|producer|linger.ms", "1:30"),
                                             "batch.producer.linger.ms: expected a duration like 10ms, 2s or 5min, got '1:30'"),
    "partitions 010 (octal in YAML 1.1)": (_raw("cluster|topics|0|partitions", "010"),
                                           "cluster.topics[0].partitions: expected a whole number of at least 1, got '010'"),
    "a name no (a boolean in YAML 1.1)": (_raw("name", "no"), "name: expected a non-empty text, got False (YAML reads an unquoted yes, no, on or off as a boolean: quote a text)"),
    "a codec off (a boolean in YAML 1.1)": (_raw("batch|producer|compression.type", "off"), "batch.producer.compression.type"),
    "a key twice at the top": (_raw("name", "small") + "name: other\n", "scenario.yaml: name is given twice (lines 1 and 35)"),
    "a key twice in a list item": (_raw("tenants|0|rate", "100/s\n  rate: 5/s"), "scenario.yaml: tenants[0].rate is given twice"),
    "empty file": ("", "must hold a mapping of scenario keys"),
    "a list": ("- 1\n- 2\n", "must hold a mapping of scenario keys"),
    "a scalar": ("just words\n", "must hold a mapping of scenario keys"),
    "YAML syntax": ("name: [unclosed\n", "is not valid YAML at line"),
    "tab indentation": ("name: x\n\tcluster: 1\n", "is not valid YAML"),
    "deeply nested list": (DEEP_LIST, "nested more than 32 levels deep"),
    "deeply nested mapping": (DEEP_MAP, "nested more than 32 levels deep"),
    "alias bomb in description": (LAUGHS.format(field="description"), "aliases (*name) are not allowed"),
    "alias bomb in assumptions": (LAUGHS.format(field="assumptions"), "aliases (*name) are not allowed"),
    "one alias": ("name: &n small\ndescription: *n\n", "aliases (*name) are not allowed"),
    "description a mapping": (changed("description", {"a": 1}), "description: expected a text, got dict"),
    "description a list": (changed("description", ["a", "b"]), "description: expected a text, got list"),
    "description a number": (changed("description", 12), "description: expected a text, got int"),
    "assumptions a text": (changed("assumptions", "one"), "assumptions: expected a list of sentences, got str"),
    "assumption a mapping": (changed("assumptions", [{"a": 1}]), "assumptions[0]: expected a text, got dict"),
    "unknown top key": (changed("colour", "blue"), "colour: unknown key"),
    "unknown cluster key": (changed("cluster|racks", 3), "cluster.racks: unknown key"),
    "misspelt producer property": (changed("batch|producer|lingerms", 5), "batch.producer.lingerms: unknown key"),
    "missing name": (changed("name", ...), "name: required but missing"),
    "missing cluster": (changed("cluster", ...), "cluster: required but missing"),
    "missing dataset files": (changed("dataset|files", ...), "dataset.files: required but missing"),
    "cluster a list": (changed("cluster", [1, 2]), "cluster: expected a mapping, got list"),
    "placement on a host not listed": (changed("placement", {"neighbours": "nowhere"}),
                                       "placement.neighbours: no host named 'nowhere' in hosts (hosts: none)"),
    "a cpuset backwards": (changed("hosts", [{"name": "node", "cpuset.cpus": "3-1"}]),
                           "hosts[0].cpuset.cpus: expected a cpuset like \"0\", \"0-1\" or \"0,2-3\", got '3-1'"),
    "linger.ms in parsecs": (changed("batch|producer|linger.ms", "5 parsecs"), "batch.producer.linger.ms"),
    "window without a unit": (changed("windows|before", 10), "windows.before: expected a duration with a unit"),
    "unknown size unit": (changed("dataset|files|0|size", "2XB"), "unknown size unit 'XB'"),
    "negative size": (changed("dataset|files|0|size", -5), "dataset.files[0].size: must not be negative"),
    "negative size text": (changed("dataset|files|0|size", "-5MB"), "dataset.files[0].size: expected a size"),
    "zero size": (changed("dataset|files|0|size", 0), "dataset.files[0].size: must be greater than zero"),
    "zero partitions": (changed("cluster|topics|0|partitions", 0), "cluster.topics[0].partitions: expected a whole number of at least 1"),
    "negative partitions": (changed("cluster|topics|0|partitions", -3), "cluster.topics[0].partitions"),
    "partitions a fraction": (changed("cluster|topics|0|partitions", 2.5), "cluster.topics[0].partitions"),
    "no brokers": (changed("cluster|brokers", 0), "cluster.brokers: expected a whole number of at least 1"),
    "batch.size over max.request.size": (changed("batch|producer|batch.size", "2MB"), "is larger than max.request.size"),
    "buffer.memory under batch.size": (changed("batch|producer|buffer.memory", "1KB"), "cannot hold one batch"),
    "unknown codec": (changed("batch|producer|compression.type", "brotli"), "unknown codec 'brotli'"),
    "acks 2": (changed("batch|producer|acks", 2), "batch.producer.acks: expected 0, 1 or all"),
    "idempotence with acks=1": (changed("batch|producer", {"acks": 1, "enable.idempotence": True}), "enable.idempotence: true requires that acks must be all"),
    "librdkafka property on java": (changed("batch|producer|batch.num.messages", 10), "is a librdkafka property"),
    "unknown client kind": (changed("batch|client|kind", "go"), "batch.client.kind: expected one of java, librdkafka"),
    "bad client version": (changed("batch|client|version", "three"), "expected a version like 2.8.1"),
    "replication over brokers": (changed("cluster|replication.factor", 3), "3 is more than the 1 brokers"),
    "min.insync over replication": (changed("cluster|min.insync.replicas", 2), "min.insync.replicas: 2 is more than replication.factor 1"),
    "leaders too few": (changed("cluster|topics|0|leaders", [0]), "lists 1 leaders for 4 partitions"),
    "leader not a broker": (changed("cluster|topics|0|leaders", [0, 0, 0, 7]), "broker 7 does not exist"),
    "batch topic unknown": (changed("batch|topic", "nowhere"), "batch.topic: topic 'nowhere' is not in cluster.topics"),
    "tenant topic unknown": (changed("tenants|0|topic", "nowhere"), "tenants[0].topic: topic 'nowhere' is not in cluster.topics"),
    "tenant record over max.request.size": (changed("tenants|0|record_size", "2MB"), "is larger than the tenant's max.request.size"),
    "topic twice": (changed("cluster|topics|1|name", "bulk"), "topic 'bulk' is listed twice"),
    "tenant twice": (changed("tenants", [BASE["tenants"][0]] * 2), "tenant 'api' is listed twice"),
    "tenant named as the job's client.id": (changed("tenants|0|name", "batch-load"),
                                            "tenants[0].name: 'batch-load' is the batch job's client.id"),
    "repartition zero": (changed("batch|spark|repartition", 0), "batch.spark.repartition"),
    "no executors": (changed("batch|spark|spark.executor.instances", 0), "spark.executor.instances: expected a whole number"),
    "jitter of 1.5": (changed("jitter", {"append_rate": 1.5}), "jitter.append_rate: expected a fraction"),
    "cpu_max of 150 %": (changed("check", {"cpu_max": 150}), "check.cpu_max: expected a percentage from 0 to 100"),
    "unknown tune knob": (changed("tune", {"knobs": {"lingr.ms": [0, 5]}}), "tune.knobs.lingr.ms: unknown knob"),
    "tune range upside down": (changed("tune", {"knobs": {"linger.ms": [50, 5]}}), "empty search range"),
    "unknown profile": (changed("profile", "m9.huge"), "no cost profile 'm9.huge'"),
    "tenants a text": (changed("tenants", "api"), "tenants[0]: expected a mapping, got str"),
    "rows from /dev/zero": (changed("dataset|rows", "/dev/zero"), "dataset.rows: CSV sample /dev/zero is a character device, not a file"),
    # numbers that are no numbers
    "linger.ms .nan": (changed("batch|producer|linger.ms", float("nan")), "batch.producer.linger.ms: expected a finite number, got nan"),
    "linger.ms .inf": (changed("batch|producer|linger.ms", float("inf")), "batch.producer.linger.ms: expected a finite number, got inf"),
    "linger.ms -.inf": (changed("batch|producer|linger.ms", float("-inf")), "expected a finite number, got -inf"),
    "jitter .nan": (changed("jitter", {"service_time": float("nan")}), "jitter.service_time: expected a finite number"),
    "plan load .nan": (changed("plan", {"load_gb": [1, float("nan")]}), "plan.load_gb[1]: expected a finite number"),
    "quota .inf": (changed("batch|quota", {"request_percentage": float("inf")}), "batch.quota.request_percentage: expected a finite number"),
    "description .nan": (changed("description", float("nan")), "description: expected a finite number, got nan"),
    "400-digit size": (changed("dataset|files|0|size", int(DIGITS)), "dataset.files[0].size (line 14): 999999999999... (400 digits) is past the largest number"),
    "400-digit size text": (changed("dataset|files|0|size", DIGITS), "dataset.files[0].size: 99999999999999999999... is too large"),
    "400-digit size in KB": (changed("dataset|files|0|size", DIGITS + "KB"), "is too large a number"),
    "400-digit partitions": (changed("cluster|topics|0|partitions", int(DIGITS)), "cluster.topics[0].partitions (line 9): 999999999999... (400 digits) is past"),
    "400-digit linger.ms": (changed("batch|producer|linger.ms", int(DIGITS)), "batch.producer.linger.ms (line 25): 999999999999... (400 digits) is past"),
    "400-digit rate": (changed("tenants|0|rate", DIGITS + "/s"), "tenants[0].rate"),
    "400-digit window": (changed("windows|after", DIGITS + "s"), "windows.after"),
    # past what the model runs (docs/scenarios.md: Limits)
    "a hundred million brokers": (changed("cluster|brokers", 100_000_000), "cluster.brokers: the model run would need at least"),
    "1e8 partitions": (changed("cluster|topics|0|partitions", 100_000_000), "the model run would need at least"),
    "a rate of 1e12/s": (changed("tenants|0|rate", "1000000000000/s"), "tenants[0].rate: the model run would"),
    "a million files": (changed("dataset|files|0", {"size": "8MB", "count": 1_000_000}), "dataset.files: the model run would"),
    "a petabyte": (changed("dataset|files|0|size", "1000TB"), "dataset.files: the model run would"),
    "a billion keys": (changed("tenants|0|keys", 1_000_000_000), "tenants[0].keys: the model run would need"),
    "a billion sample rows": (changed("dataset|sample_rows", 1_000_000_000), "dataset.sample_rows: the model run would need"),
    "a window of a million hours": (changed("windows", {"before": "1000000h", "max_duration": "2000000h"}), "windows.before: the model run would"),
    "load after the run's end": (changed("windows|before", "1000000h"), "windows.before: the load would start at 3.6e+09 s"),
    "start after the run's end": (changed("batch|start", "2h"), "batch.start: the load would start at 7200 s"),
}


@pytest.mark.parametrize("case", SCENARIOS, ids=list(SCENARIOS))
def test_a_bad_scenario_is_refused_in_one_line(case, tmp_path):
    scenario, expected = SCENARIOS[case]
    assert_refused(["simulate", write_yaml(tmp_path, "scenario.yaml", scenario), "--json", str(tmp_path / "r.json")], expected)
    assert not (tmp_path / "r.json").exists()


def test_a_missing_scenario_file(tmp_path):
    assert_refused(["simulate", str(tmp_path / "none.yaml")], "none.yaml: no such file")


def test_a_directory_as_scenario(tmp_path):
    assert_refused(["simulate", str(tmp_path)], f"scenario: {tmp_path} is a directory, not a file")


def test_a_binary_file_as_scenario(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_bytes(bytes(range(256)) * 8)
    assert_refused(["simulate", str(path)], "scenario.yaml is not a UTF-8 text file")


def test_a_scenario_file_of_gigabytes_is_not_read(tmp_path):
    path = tmp_path / "scenario.yaml"
    with path.open("wb") as sparse:   # a sparse file: its size without the disk
        sparse.truncate(10 * 1024**3)
    assert_refused(["simulate", str(path)], "scenario.yaml holds 10,737,418,240 bytes; a file of this kind is at most 4,194,304")


def test_a_binary_cost_profile(tmp_path):
    (tmp_path / "profile.yaml").write_bytes(b"\xff\xfe\x00" * 100)
    scenario = write_yaml(tmp_path, "scenario.yaml", changed("profile", str(tmp_path / "profile.yaml")))
    assert_refused(["simulate", scenario], "profile: ")


def test_an_alias_in_a_cost_profile(tmp_path):
    (tmp_path / "profile.yaml").write_text("name: &n x\nprovenance: *n\n")
    scenario = write_yaml(tmp_path, "scenario.yaml", changed("profile", str(tmp_path / "profile.yaml")))
    assert_refused(["simulate", scenario], "aliases (*name) are not allowed")


def test_a_scenario_that_extends_itself(tmp_path):
    assert_refused(["simulate", write_yaml(tmp_path, "loop.yaml", {"extends": "loop.yaml", "name": "x"})], "extends itself")


def test_a_scenario_that_extends_a_missing_file(tmp_path):
    assert_refused(["simulate", write_yaml(tmp_path, "child.yaml", {"extends": "gone.yaml"})], "gone.yaml: no such file")


BASELINE = str(CATALOG / "paypay-glue-2gb.yaml")

# (--set values, a text the error line contains)
OVERRIDES = {
    "no equals sign": (["name"], "--set: expected key=value, got 'name'"),
    "no key": (["=x"], "--set: expected key=value"),
    "unknown key": (["colour=blue"], "colour: unknown key"),
    "unknown nested key": (["batch.producer.lingerms=5"], "batch.producer.lingerms: unknown key"),
    "unclosed list": (["name=[oops"], "--set name: '[oops' is not valid YAML"),
    "unclosed mapping": (["cluster={brokers: 3"], "--set cluster: '{brokers: 3' is not valid YAML"),
    "an alias": (["description=*a"], "is not valid YAML"),
    "a nested bomb": (["description=" + "[" * 100 + "]" * 100], "nested more than 32 levels deep"),
    "no such list item": (["tenants.9.rate=1/s"], "tenants.9: no such list item"),
    "a list index that is no number": (["tenants.x.rate=1/s"], "tenants.x: no such list item"),
    "a key under a text": (["name.first=x"], "has no key 'first'"),
    "linger.ms .nan": (["batch.producer.linger.ms=.nan"], "--set batch.producer.linger.ms: expected a finite number, got nan"),
    "linger.ms .inf": (["batch.producer.linger.ms=.inf"], "expected a finite number, got inf"),
    "brokers a word": (["cluster.brokers=three"], "cluster.brokers: expected a whole number"),
    "brokers 1e8": (["cluster.brokers=100000000"], "cluster.brokers: the model run would need at least"),
    "batch.size over max.request.size": (["batch.producer.batch.size=2GB"], "is larger than max.request.size"),
    "window of a million hours": (["windows.before=1000000h"], "windows.before: the load would start"),
    "a size of 400 digits": (["dataset.files.0.size=" + DIGITS], "(400 digits) is past the largest number quietload reads"),
    "a description that is a list": (["description=[a, b]"], "description: expected a text, got list"),
    "an unknown codec": (["batch.producer.compression.type=brotli"], "unknown codec 'brotli'"),
}


@pytest.mark.parametrize("case", OVERRIDES, ids=list(OVERRIDES))
def test_a_bad_set_value_is_refused_in_one_line(case):
    values, expected = OVERRIDES[case]
    assert_refused(["simulate", BASELINE, *(arg for value in values for arg in ("--set", value))], expected)
