"""The report's first screen: one verdict per job on the strictest SLA its files used, who makes each
change, and the lines to paste by kind (issue 25, problem 8; issue 36, item 5)."""
import copy

from reports.kit.shell import continued
from reports.sections.ship import ship_html, ship_markdown
from reports.sections.study import pick_knob_rows
from workloads.snippets import paste_blocks

PARAMS = {"linger.ms": 10.0, "acks": "all", "producer_byte_rate": 6920602.0}
TENANTS = {"api": {"p99_ms_during": 10.3, "sla_p99_ms": 11.7}, "fraud": {"p99_ms_during": 10.9, "sla_p99_ms": 12.0}}
STUDY = {"scenario": {"name": "glue", "overrides": ["tenants.0.sla_p99=1.5x", "tenants.1.sla_p99=1.5x"]}, "pick": 3,
         "pareto_front": [3], "trials": [{"number": 3, "params": PARAMS, "constraints": {}, "figures": {"tenants": TENANTS}}],
         "recommended": {"trial": 3, "meets_constraints": True, "missed": [], "wider_lever": None, "params": PARAMS}}
MISSED = {**STUDY, "pick": None, "recommended": {**STUDY["recommended"], "meets_constraints": False,
                                                 "missed": ["api p99 12.4 ms > SLA 11.7 ms"],
                                                 "wider_lever": "it passes on the model with the cluster's operator "
                                                                "setting num.replica.fetchers = 4"}}
SLAS_10MS = [{"name": "api", "sla_p99": "10ms", "sla_p99_ms": [10.0]}, {"name": "fraud", "sla_p99": "10ms", "sla_p99_ms": [10.0]}]
FAILS = {"scenario": "glue", "evaluator": "model", "seed": 1, "verdicts": [{"rule": "neighbour_sla", "status": "fail"}],
         "recommendations": ["no job or quota change tried passes on the model; the closest ..."], "paste": [],
         "slas": SLAS_10MS}
FETCHERS = ('kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --command-config client.properties --alter '
            "--entity-type brokers --entity-default --add-config num.replica.fetchers=4")
WIDER = {**FAILS, "change": ["batch.producer.linger.ms=10", "cluster.broker.num.replica.fetchers=4"],
         "paste_needs": "the cluster's operator",
         "paste": ['.option("kafka.linger.ms", "10")', "num.replica.fetchers=4  # MSK configuration", FETCHERS]}


def test_a_passing_pick_alone_ships_with_its_sla_who_changes_what_and_a_block_per_kind():
    lines = ship_markdown([STUDY], [])
    assert lines[:9] == [
        "## What to ship", "",
        "**glue: SHIP WITH THE CHANGES BELOW, if the cluster's owner agrees.**", "",
        "tune's trial 3 meets every constraint on the model.", "",
        "SLA (each neighbour's p99 during the load) used by tune's trial 3: 1.5x its p99 alone for each neighbour: api 11.7 ms, "
        "fraud 12.0 ms.", "",
        "- the job's owner: linger.ms = 10 ms, acks = all"]
    assert lines[9] == ("- the cluster's owner, as a quota for the job's client.id, if they agree: "
                        "producer_byte_rate = 6.6 MB/s per broker")
    assert lines[11:20] == ["PySpark, in the job's write (the job's owner):", "", "```python",
                            '.option("kafka.acks", "all")', '.option("kafka.enable.idempotence", "true")',
                            '.option("kafka.linger.ms", "10")', '.option("kafka.client.id", "batch-load")', "```", ""]
    assert lines[20:23] == ["Shell, the quota for the job's client.id, held on each broker (the cluster's owner, if they agree):",
                            "", "```sh"]


def test_a_pick_passing_only_at_a_looser_sla_than_a_failing_check_is_not_shipped():
    """The issue's first screen: tune's pick at 1.5x alone (11.7 ms) beside check failing the job at 10 ms."""
    lines = ship_markdown([STUDY], [FAILS])
    assert lines[2:9] == [
        "**glue: DO NOT SHIP.**", "",
        "check fails it (neighbour_sla); no job or quota change tried passes on the model; the closest ....", "",
        "SLA (each neighbour's p99 during the load) used by tune's trial 3: 1.5x its p99 alone for each neighbour: api 11.7 ms, "
        "fraud 12.0 ms; check: api 10.0 ms, fraud 10.0 ms. The verdict holds each to the strictest: api 10.0 ms, fraud 10.0 ms.", "",
        "Not shipped: tune's trial 3: it passed at a looser SLA (1.5x its p99 alone for each neighbour: api 11.7 ms, fraud 12.0 ms) "
        "than the strictest of this report's files (api 10.0 ms, fraud 10.0 ms); run it against api 10.0 ms, fraud 10.0 ms "
        "before shipping it."]
    assert not any("SHIP WITH" in line or line.startswith(("- ", "```")) for line in lines)


def test_at_the_same_sla_the_pick_ships_and_the_failing_check_is_the_job_as_it_is():
    study = copy.deepcopy(STUDY)
    study["scenario"]["overrides"] = []
    study["trials"][0]["figures"]["tenants"] = {name: {"sla_p99_ms": 10.0} for name in ("api", "fraud")}
    lines = ship_markdown([study], [FAILS])
    assert lines[2:6] == ["**glue: SHIP WITH THE CHANGES BELOW, if the cluster's owner agrees.**", "",
                          "tune's trial 3 meets every constraint on the model.",
                          "check fails it (neighbour_sla); no job or quota change tried passes on the model; the closest ...."]


def test_checks_wider_change_ships_if_the_operator_agrees_its_msk_line_and_command_in_blocks_of_their_own():
    lines = ship_markdown([STUDY], [WIDER])
    assert lines[2] == "**glue: SHIP WITH THE CHANGES BELOW, if the cluster's operator agrees.**"
    assert lines[4] == ("check fails it as it is (neighbour_sla); with the change below (the cluster's operator's too) "
                        "the model predicts every rule passes.")
    assert "- the cluster's operator, if they agree: num.replica.fetchers = 4" in lines
    msk = lines.index("Amazon MSK configuration (a new revision) or server.properties (the cluster's operator, if they agree):")
    assert lines[msk + 1:msk + 5] == ["", "```properties", "num.replica.fetchers=4", "```"]
    shell = lines.index("Shell, the same at once on every broker, without a new revision (the cluster's operator, if they agree):")
    block = lines[shell + 3:lines.index("```", shell + 3)]
    assert block == continued(FETCHERS) and len(block) == 3 and all(len(line) <= 76 for line in block)
    assert lines[-2].startswith("Not shipped: tune's trial 3: it passed at a looser SLA")


def test_a_long_command_is_continued_as_lines_a_shell_reads_as_one():
    assert "".join(line.removesuffix(" \\").removeprefix("  ") + " " for line in continued(FETCHERS)).strip() == FETCHERS


def test_a_gate_that_passes_ships_as_checked_and_one_without_neighbours_has_nothing_to_judge():
    passing = {**FAILS, "verdicts": [{"rule": "neighbour_sla", "status": "pass"}], "recommendations": []}
    unjudged = {**FAILS, "scenario": "solo", "verdicts": [{"rule": "neighbour_sla", "status": "skipped"}], "slas": []}
    lines = ship_markdown([], [passing, unjudged])
    assert lines[2:5] == ["**glue: SHIP AS CHECKED.**", "", "check passes it as checked."]
    assert "**solo: NOTHING TO JUDGE.**" in lines
    assert ("SLA (each neighbour's p99 during the load) used by check: not in the file (written before quietload "
            "recorded it).") in lines


def test_a_gate_result_written_before_change_ships_its_so_line():
    gate = {**FAILS, "recommendations": ["linger.ms=10 (the job's owner): ...", "so: --set batch.producer.linger.ms=10"],
            "paste": ['.option("kafka.linger.ms", "10")']}
    lines = ship_markdown([], [gate])
    assert lines[2] == "**glue: SHIP WITH THE CHANGES BELOW.**" and "- the job's owner: linger.ms = 10 ms" in lines


def test_no_passing_trial_names_the_closest_and_the_wider_lever_with_nothing_to_paste():
    lines = ship_markdown([MISSED], [])
    assert lines[2:5] == ["**glue: DO NOT SHIP.**", "",
                          "nothing tune tried passes; the closest, trial 3, missed api p99 12.4 ms > SLA 11.7 ms; it passes "
                          "on the model with the cluster's operator setting num.replica.fetchers = 4."]
    assert not any(line.startswith("```") for line in lines)


def test_the_page_marks_the_verdict_the_sla_and_the_changes_and_each_block_by_kind():
    html = "\n".join(ship_html([STUDY], [WIDER]))
    assert '<p class="verdict"><span class="pass">glue: SHIP WITH THE CHANGES BELOW, if the cluster&#x27;s operator agrees.' in html
    assert html.count('<p class="sla">') == 1 and html.count('<ul class="changes">') == 1
    assert [kind for kind in ("python", "properties", "sh") if f'data-kind="{kind}"' in html] == ["python", "properties", "sh"]


def test_paste_lines_group_by_where_they_go():
    assert paste_blocks(WIDER["paste"]) == [("pyspark", ['.option("kafka.linger.ms", "10")']),
                                            ("msk_configuration", ["num.replica.fetchers=4"]),
                                            ("cluster_commands", [FETCHERS])]


def test_a_quota_reads_per_broker_in_the_studys_section_too():
    assert pick_knob_rows(STUDY) == [["linger.ms", "10 ms"], ["acks", "all"], ["producer_byte_rate", "6.6 MB/s per broker"]]


def test_a_relative_sla_beside_an_absolute_one_is_named_for_its_neighbour():
    study = copy.deepcopy(STUDY)
    study["scenario"]["overrides"] = ["tenants.0.sla_p99=1.5x", "tenants.1.sla_p99=10ms"]
    study["trials"][0]["figures"]["tenants"]["fraud"]["sla_p99_ms"] = 10.0
    assert ship_markdown([study], [])[6] == ("SLA (each neighbour's p99 during the load) used by tune's trial 3: "
                                             "api 11.7 ms, fraud 10.0 ms (api: 1.5x its p99 alone).")
