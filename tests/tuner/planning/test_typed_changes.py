"""The planner's changes are typed edits of the night's mapping: each equals the ``--set`` text a
person would paste for it (``quietload simulate --set``), on every catalog scenario, refusals too."""
import pytest

from tuner.planning.night import alone
from tuner.planning.night_change import job_changes, job_overrides, nearest_first
from tuner.planning.whatif import cluster_options
from workloads import CATALOG, Scenario, ScenarioError
from workloads.scenario import Plan, apply_overrides, load_mapping, with_file_values

SCENARIOS = sorted(CATALOG.glob("*.yaml"))


def _outcome(build):
    try:
        return Scenario.from_mapping(build())
    except ScenarioError as refused:
        return str(refused)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_change_of_a_job_alone_is_the_scenario_its_set_values_make(path):
    mapping = load_mapping(path, [])
    listed = isinstance(mapping["batch"], list)
    night = mapping if listed else {**mapping, "batch": [{**mapping["batch"], "name": "batch"}]}
    scenario = Scenario.from_mapping(night)
    compared = refused = 0
    for index in range(len(scenario.jobs)):
        solo = alone(night, index, scenario.job_start(scenario.jobs[index]))
        for _, name, value in nearest_first(Scenario.from_mapping(solo)):
            for where, at in ((solo, 0), (night, index)):
                typed = _outcome(lambda: with_file_values(where, job_changes(name, value, at)))
                text = _outcome(lambda: apply_overrides(where, job_overrides(name, value, at)))
                assert typed == text, (name, value, at)
                compared += 1
                refused += isinstance(typed, str)
    assert compared > 40 * len(scenario.jobs)


def test_a_typed_change_refused_names_the_field_as_its_set_value_would():
    mapping = load_mapping(CATALOG / "night-three-jobs.yaml", [])
    with pytest.raises(ScenarioError, match=r"batch\[1\].producer.batch.size: .*max.request.size"):
        Scenario.from_mapping(with_file_values(mapping, job_changes("batch.size", 8 * 1024**2, 1)))
    with pytest.raises(ScenarioError, match=r"^batch.7: no such list item$"):
        with_file_values(mapping, job_changes("linger.ms", 10, 7))
    with pytest.raises(ScenarioError, match=r"^batch.7: no such list item$"):
        apply_overrides(mapping, job_overrides("linger.ms", 10, 7))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_what_if_is_the_scenario_its_set_values_make(path):
    mapping = load_mapping(path, [])
    if isinstance(mapping["batch"], list):
        mapping = {**mapping, "batch": mapping["batch"][0]}
        mapping["batch"] = {k: v for k, v in mapping["batch"].items() if k not in ("name", "client.id", "start")}
    plan = Plan(brokers=(6, 9), broker_types=("kafka.m5.4xlarge", "express.m7g.large"), quota=(20 * 1024**2,))
    for option in cluster_options(mapping, plan)[1:]:
        if option.name.startswith(("replication", "broker_down")):
            continue
        text = apply_overrides(mapping, [f"{k}={v}" for k, v in option.changes.items()])
        assert Scenario.from_mapping(option.mapping) == Scenario.from_mapping(text), option.name


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_change_the_gate_tries_is_the_scenario_its_set_values_make(path):
    """check's changes (``judging.advice``), a night's job's addressed to it, run as typed values."""
    from judging.advice import _change, _for_job
    mapping = load_mapping(path, [])
    scenario = Scenario.from_mapping(mapping)
    night = [(i, job.name) for i, job in enumerate(scenario.jobs)] if scenario.listed else [None]
    for _, name, value in nearest_first(Scenario.from_mapping({**mapping, "batch": mapping["batch"][0]})
                                        if scenario.listed else scenario):
        for job in night:
            change = _change(name, value, "", "") if job is None else _for_job(_change(name, value, "", ""), *job)
            typed = _outcome(lambda: with_file_values(mapping, change.changes()))
            assert typed == _outcome(lambda: apply_overrides(mapping, list(change.overrides))), change.label
