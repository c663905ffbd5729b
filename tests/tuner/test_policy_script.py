"""The quota script ``quietload policy`` writes runs, under ``sh``, the kafka-configs.sh commands of the
policy and nothing else, whatever the scenario's path and the policy's name hold; and the snippets'
code quotes a key column's name as the language's own literal."""
import ast
import copy
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "quietload"))
from _bad_input import BASE   # noqa: E402  (the small scenario the bad-input cases break)

from tuner.policy import quota_script   # noqa: E402
from workloads.snippets import glue_code, pyspark_code   # noqa: E402
from workloads.policy import JobClass, Match, Policy, Template   # noqa: E402
from workloads.quota import Quota   # noqa: E402

HOSTILE = "x\ntouch PWNED-newline\n$(touch PWNED-subst)`touch PWNED-tick`; touch PWNED-semicolon #"
STUB = "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$LOG\"\n"


def _night() -> dict:
    base = copy.deepcopy(BASE)
    base["batch"] = [{**base["batch"], "name": "daily-cards"}, {**base["batch"], "name": "refunds"}]
    return base


def test_the_quota_script_runs_the_policys_commands_and_nothing_else(tmp_path):
    quota = Quota(producer_byte_rate=20 * 1024**2, request_percentage=50.0)
    job_class = JobClass(name="card-loads", match=Match(client_id=("*",)), producer=Template(), quota=quota)
    policy = Policy(name=HOSTILE + "-policy", classes=(job_class,))   # as a file read without the name's rule would hold it
    script = tmp_path / "quotas.sh"
    script.write_text(quota_script(policy, {"source": HOSTILE + ".yaml"}, _night()))
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "kafka-configs.sh").write_text(STUB)
    (stubs / "kafka-configs.sh").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "LOG": str(tmp_path / "calls.log"), "BOOTSTRAP_SERVERS": "b1:9092"}
    done = subprocess.run(["sh", str(script)], cwd=work, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert os.listdir(work) == []     # no touch ran
    common = "--bootstrap-server b1:9092 --command-config client.properties --alter --entity-type clients --entity-name"
    assert (tmp_path / "calls.log").read_text().splitlines() == [
        f"{common} daily-cards --add-config producer_byte_rate=20971520,request_percentage=50",
        f"{common} refunds --add-config producer_byte_rate=20971520,request_percentage=50"]
    assert script.read_text().splitlines()[1].startswith("# the client quotas of policy x\\ntouch PWNED-newline\\n$(touch")


def test_a_key_column_with_quotes_and_a_newline_stays_one_string_literal_in_the_code():
    key = 'id")\nimport os; os.system("touch PWNED") #'
    code = pyspark_code({"linger.ms": 10.0}, key)
    calls = [node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == "col"]
    assert [call.args[0].value for call in calls] == [key]
    assert not any(isinstance(node, ast.Import) for node in ast.walk(ast.parse(code)))
    glue = glue_code({"linger.ms": 10.0}, key)
    assert not any(isinstance(node, ast.Import) for node in ast.walk(ast.parse(glue)))
