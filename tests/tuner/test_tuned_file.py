"""The tuned scenario file is written from the pick's typed values: the same mapping, to the byte, as
the ``--set`` values a person repeats the pick with, on every catalog scenario of one job."""
import pytest

from tuner.recommend import Recommendation
from tuner.space import search_space
from workloads import CATALOG, Scenario, ScenarioError
from workloads.reader import dump_yaml
from workloads.scenario import apply_overrides, load_mapping
from workloads.tuning import LEVERS

SINGLE = [p for p in sorted(CATALOG.glob("*.yaml")) if not isinstance(load_mapping(p, [])["batch"], list)]
GIVEN = ["windows.before=1s"]


def _picks(scenario: Scenario) -> list[dict]:
    """Each knob at either end of its default range, then all at their highest at once."""
    space = search_space(scenario, LEVERS)
    ends = [{r.name: end} for r in space.ranges for end in ((r.low, r.high) if r.knob.kind != "choice" else r.choices[-1:])]
    return ends + [{r.name: r.high if r.knob.kind != "choice" else r.choices[-1] for r in space.ranges}]


@pytest.mark.parametrize("given", [GIVEN, GIVEN + ["dataset.files.0.size=64MB"]], ids=["keys", "a-list-item"])
@pytest.mark.parametrize("path", SINGLE, ids=lambda p: p.stem)
def test_the_tuned_file_is_the_mapping_the_picks_set_values_make(path, given, tmp_path):
    base = load_mapping(path, given)
    space = search_space(Scenario.from_mapping(base), LEVERS)
    for params in _picks(Scenario.from_mapping(base)):
        overrides = given + space.overrides(params)
        for sources in ([], ["payment-api: 2x its p99 before"]):   # a relative SLA: the whole file
            pick = Recommendation(path.stem, str(path), 1, 0, True, params, overrides, {}, {}, [], given=given,
                                  sla_sources=sources)
            written = pick.scenario_fragment(tmp_path, base)
            assert dump_yaml(written) == dump_yaml(_by_text(base, overrides, sources, written)), params


def _by_text(base: dict, overrides: list[str], sources: list[str], written: dict) -> dict:
    """The file as the --set values make it: the whole scenario when an SLA is relative or a value
    addresses a list item (``dataset.files.0.size``), else the file it extends and the values."""
    whole = {**apply_overrides(base, overrides), "name": written["name"]}
    if sources:
        return whole
    try:
        fragment = apply_overrides({}, overrides)
    except ScenarioError:
        return whole
    return {"extends": written["extends"], "name": written["name"], **fragment}

