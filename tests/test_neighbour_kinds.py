"""Neighbour kinds by registration (workloads.kinds): each evaluator registers every streaming kind
under its name, and no module outside the registries chooses what to do by a tenant's kind, by
``isinstance`` on its value class or by comparing its name."""
import ast
from pathlib import Path

from simulator.live.pipelines import LAUNCHERS
from simulator.model.pipelines import PIPELINES
from workloads import streaming
from workloads.kinds import KINDS, PIPELINE_KINDS, kind_of
from workloads.tenant import Tenant

ROOT = Path(__file__).parent.parent
PACKAGES = ("workloads", "simulator", "judging", "tuner", "reports", "quietload")
REGISTRIES = {"workloads/kinds.py", "simulator/model/pipelines.py", "simulator/live/pipelines.py"}
KIND_CLASSES = {kind.value.__name__ for kind in KINDS} | {
    name for name, value in vars(streaming).items() if isinstance(value, type) and issubclass(value, Tenant)}
KIND_NAMES = set(PIPELINE_KINDS)


def choices_by_kind(source: str) -> list[str]:
    """Where ``source`` chooses by a neighbour kind: ``isinstance`` on a kind's value class, a
    comparison with a kind's name (or a prefix of one, ``startswith("spark-")``), a table keyed by them."""
    def names(node: ast.AST) -> list[str]:
        items = node.elts if isinstance(node, ast.Tuple) else [node]
        return [item.id if isinstance(item, ast.Name) else item.attr if isinstance(item, ast.Attribute) else ""
                for item in items]

    def kind_name(node: ast.AST | None) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(kind_name(item) for item in node.elts)
        return isinstance(node, ast.Constant) and node.value in KIND_NAMES

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2 and KIND_CLASSES & set(names(node.args[1])):
            found.append(f"line {node.lineno}: isinstance on {ast.unparse(node.args[1])}")
        elif isinstance(node, ast.Compare) and any(kind_name(side) for side in [node.left, *node.comparators]):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith") and node.args and isinstance(node.args[0], ast.Constant) \
                and any(name.startswith(str(node.args[0].value)) for name in KIND_NAMES):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and any(kind_name(key) for key in node.keys):
            found.append(f"line {node.lineno}: a table keyed by kind")
    return found


def test_every_streaming_kind_has_its_model_pipeline_and_its_live_app():
    assert set(PIPELINES) == set(LAUNCHERS) == KIND_NAMES
    assert KIND_NAMES == {kind.name for kind in KINDS} - {"producer"}


def test_a_tenant_s_record_is_found_by_its_value():
    for kind in KINDS:
        assert kind_of(object.__new__(kind.value)) is kind


def test_no_module_outside_the_registries_chooses_by_kind():
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if name not in REGISTRIES and (choices := choices_by_kind(path.read_text())):
                found[name] = choices
    assert found == {}


def test_the_check_sees_each_way_of_choosing():
    source = ("if isinstance(tenant, (SparkContinuous, SparkRealTime)): pass\n"
              "if isinstance(t, streaming.StreamingTenant): pass\n"
              "if tenant.kind == 'flink': pass\n"
              "if tenant.kind.startswith('spark-'): pass\n"
              "MAIN = {'kafka-streams': 'Main'}\n"
              "if isinstance(x, dict) and job.kind == 'producer': pass\n")
    assert [line.split(":")[0] for line in choices_by_kind(source)] == [f"line {n}" for n in (1, 2, 3, 4, 5)]
