import yaml

from simulator.contract.files import read_recommendation
from simulator.evaluator import model_evaluator
from tuner import TuneRequest, render_snippets, run_tune, snippets
from workloads import Scenario

PARAMS = {"repartition": 60, "compression.type": "zstd", "linger.ms": 50, "batch.size": 1048576,
          "buffer.memory": 67108864, "max.in.flight.requests.per.connection": 5}


def test_producer_settings_are_writer_options_and_repartition_is_job_code():
    parts = snippets(PARAMS)
    assert parts["pyspark"] == """\
from pyspark.sql.functions import struct, to_json

(df.repartition(60).select(to_json(struct("*")).alias("value"))  # 60 write tasks
    .write.format("kafka")
    .option("kafka.bootstrap.servers", "<bootstrap-servers>")
    # MSK with IAM, SCRAM or TLS: also the kafka.security.protocol and kafka.sasl.* / kafka.ssl.* options of your clients
    .option("kafka.batch.size", "1048576")
    .option("kafka.buffer.memory", "67108864")
    .option("kafka.compression.type", "zstd")
    .option("kafka.linger.ms", "50")
    .option("kafka.max.in.flight.requests.per.connection", "5")
    .option("topic", "<topic>")
    .mode("append")
    .save())
"""
    assert parts["spark_submit_conf"] == [] and parts["kafka_configs"] == []
    assert "df.repartition(60)" in parts["glue_dynamic_frame"] and '"kafka.linger.ms": "50",' in parts["glue_dynamic_frame"]


def test_a_quota_is_set_on_the_brokers_for_the_jobs_client_id():
    parts = snippets({"repartition": None, "linger.ms": 10, "producer_byte_rate": 20 * 1024**2 + 0.4})
    assert "(df.select(" in parts["pyspark"] and "repartition" not in parts["glue_dynamic_frame"]
    assert parts["spark_writer_options"] == ['.option("kafka.linger.ms", "10")', '.option("kafka.client.id", "batch-load")']
    assert parts["kafka_configs"] == ['kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --command-config client.properties '
                                      "--alter --entity-type clients --entity-name batch-load --add-config producer_byte_rate=20971520"]
    assert "--command-config client.properties" in render_snippets(parts)


def test_the_recommendation_reproduces_the_picked_figures(tiny, tmp_path):
    scenario_file = tmp_path / "tiny.yaml"
    scenario_file.write_text(yaml.safe_dump(tiny))
    out = tmp_path / "out"
    outcome = run_tune(TuneRequest(scenario_file, trials=4, out_dir=out))
    assert [p.name for p in outcome.paths] == ["tiny-study.json", "tiny-recommendation.yaml", "tiny-tuned.yaml",
                                               "tiny-snippets.txt"]
    recommendation = read_recommendation(out / "tiny-recommendation.yaml")
    assert recommendation["kind"] == "quietload-recommendation" and recommendation["meets_constraints"] is True
    picked = recommendation["predicted"]["after"]
    # trial 1's sizes as the sampler drew them, and as the recommendation gives them
    assert (outcome.summary.pick.params["batch.size"], outcome.summary.pick.params["buffer.memory"]) == (631621, 36201606)
    assert (recommendation["params"]["batch.size"], recommendation["params"]["buffer.memory"]) == (512 * 1024, 32 * 1024**2)
    assert recommendation["explanation"][-1] == (
        "rounded to what a person types (batch.size 631621 -> 524288, buffer.memory 36201606 -> 33554432, "
        "producer_byte_rate 4017603 -> 3984589, request_percentage 116.151 -> 120): on model seeds 1-23 the model "
        "predicts, at the worst seed, 14 produce requests, load 0.2 s, api p99 during 5.77 ms of its 10 ms SLA")
    assert picked["produce_requests"] == 14 and outcome.summary.pick.produce_requests == 12
    assert recommendation["predicted"]["before"]["produce_requests"] == 1669
    assert recommendation["explanation"][0].startswith(f"produce requests 1,669 -> {picked['produce_requests']:,} because batches fill to ")
    evaluator = model_evaluator()
    # as --set overrides on the original file, and as the tuned scenario file that extends it
    again = evaluator.evaluate(Scenario.from_yaml(scenario_file, recommendation["overrides"]), 1)
    tuned_file = Scenario.from_yaml(out / "tiny-tuned.yaml")
    assert tuned_file.name == "tiny-tuned"
    assert yaml.safe_load((out / "tiny-tuned.yaml").read_text())["extends"] == "../tiny.yaml"
    for result in (again, evaluator.evaluate(tuned_file, 1)):
        assert result.summary.produce_requests == picked["produce_requests"]
        assert round(result.summary.load_seconds, 2) == picked["load_seconds"]


def test_a_trial_over_its_constraints_at_its_worst_of_three_seeds_is_not_recommended(tiny_with, tmp_path):
    # every knob pinned to the job as it is: within its 5.803 ms SLA on seed 1 (5.787 ms),
    # over it on seed 3 (5.805 ms), which the candidates are judged on before the held-out seeds
    pinned = {"repartition": ["none"], "compression.type": ["none"], "linger.ms": [0], "batch.size": ["16KB"],
              "buffer.memory": ["32MB"], "max.in.flight.requests.per.connection": [5]}
    raw = tiny_with({"jitter": {"append_rate": 0.2, "service_time": 0.2}, "tune": {"knobs": pinned}})
    raw = tiny_with(raw, {"tenants": [{**raw["tenants"][0], "sla_p99": "5.803ms"}]})
    scenario_file = tmp_path / "tiny.yaml"
    scenario_file.write_text(yaml.safe_dump(raw))
    lines = []
    outcome = run_tune(TuneRequest(scenario_file, trials=1, out_dir=tmp_path / "out"), progress_line=lines.append)
    assert outcome.summary.trials[0].feasible and outcome.summary.pick is None
    assert lines == ["1 feasible trials at their worst on model seeds 1-3: 0 still within their constraints"]
    recommendation = outcome.recommendation
    assert not recommendation.feasible and recommendation.model_seeds == [1, 2, 3]
    assert recommendation.missed == ["api p99 5.80 ms > SLA 5.80 ms", "over its constraints at its worst on model seeds 1-3"]
    assert recommendation.render().startswith("no trial met the constraints; closest (trial 0) missed: api p99 5.80 ms > "
                                              "SLA 5.80 ms, over its constraints at its worst on model seeds 1-3\n")
    # no candidate was left for the held-out seeds, which start after the three
    assert recommendation.validation == {"seeds": list(range(4, 24)), "held": False, "pick": 0, "tried": []}
