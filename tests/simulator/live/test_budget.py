"""CPU budgets: the arithmetic on its own, then (live marker, as root) a quota the kernel enforces
on a CPU-bound child and groups gone afterwards, and bad budgets refused before anything starts."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from simulator.live.budget import (CGROUP_ROOT, PARENT, Budget, CpuBudgets, cgroups_available, placement_of,
                                   plan_budgets, remove_leftovers)
from workloads import CATALOG, Scenario, ScenarioError

SMALL = ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
         "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1"]


def scenario(*overrides: str) -> Scenario:
    return Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", [*SMALL, *overrides])


def test_a_fraction_of_a_cpu_is_a_quota_of_a_short_period():
    assert (Budget("broker-0", 0.5, (0,)).period_us, Budget("broker-0", 0.5, (0,)).quota_us) == (5000, 2500)
    assert (Budget("job", 2, (0, 1)).period_us, Budget("job", 2, (0, 1)).quota_us) == (5000, 10000)
    # the kernel's quota is at least 1 ms: a tenth of a CPU needs a 10 ms period
    assert (Budget("broker-0", 0.1, (0,)).period_us, Budget("broker-0", 0.1, (0,)).quota_us) == (10000, 1000)
    assert Budget("controller", None, (0,)).quota_us == -1


def test_on_two_cores_the_broker_keeps_one_and_everything_else_runs_on_the_jobs():
    plan = {b.component: b for b in plan_budgets(scenario("cluster.broker.vcpus=0.5", "tenant_host.vcpus=0.5"), [0, 1], 1)}
    assert plan["job"] == Budget("job", 1, (1,))
    assert plan["broker-0"] == Budget("broker-0", 0.5, (0,))
    assert plan["neighbours"] == Budget("neighbours", 0.5, (1,))      # first on wake-up there (lay_out)
    assert plan["controller"].cores == (1,) and plan["storage"].cores == (1,)   # off the brokers' core
    # the user's brokers: no core of the run's is theirs, the neighbours keep the one the job leaves
    plan = {b.component: b for b in plan_budgets(scenario("tenant_host.vcpus=0.5"), [0, 1], None)}
    assert plan["neighbours"].cores == (0,) and plan["job"].cores == (1,)


def test_a_run_writes_its_budgets_as_the_scenarios_hosts_and_placement():
    # two cores: the broker (0.5) on core 0; the job (1) and the neighbours (0.5) share core 1, one host
    # of their quotas' sum, at most its one core
    plan = plan_budgets(scenario("cluster.broker.vcpus=0.5", "tenant_host.vcpus=0.5"), [0, 1], 1)
    hosts, placement = placement_of(plan, 1)
    assert [(h.name, h.cpuset, h.quota_us, h.period_us, h.vcpus) for h in hosts] == [
        ("cores-0", (0,), 2500, 5000, 0.5), ("cores-1", (1,), 5000, 5000, 1.0)]
    assert (placement.broker(0), placement.executor(0), placement.neighbour("payment-api")) == ("cores-0", "cores-1", "cores-1")
    # the user's brokers are no host of the run's
    hosts, placement = placement_of(plan_budgets(scenario(), [0, 1], None), 0)
    assert placement.brokers is None and [h.name for h in hosts] == ["cores-1", "cores-0"]


def test_on_four_cores_brokers_neighbours_and_job_are_apart():
    plan = {b.component: b for b in plan_budgets(scenario("cluster.broker.vcpus=1", "tenant_host.vcpus=1",
                                                          "batch.spark.spark.executor.cores=2"), [0, 1, 2, 3], 1)}
    assert (plan["broker-0"].cores, plan["neighbours"].cores, plan["job"].cores) == ((0,), (1,), (2, 3))


def test_three_brokers_each_get_their_budget_on_the_brokers_cores():
    plan = plan_budgets(Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml",
                                           ["batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
                                            "cluster.broker.vcpus=0.25"]), [0, 1, 2, 3], 3)
    brokers = [b for b in plan if b.component.startswith("broker-")]
    assert [(b.vcpus, b.cores) for b in brokers] == [(0.25, (0,))] * 3


def test_a_budget_larger_than_the_cores_a_component_could_be_given_says_so():
    plan = {b.component: b for b in plan_budgets(scenario("cluster.broker.vcpus=2"), [0, 1], 1)}
    assert plan["broker-0"].render() == "broker-0 2 vCPU (at most 1: the cores it could be given) on core 0"


def test_a_job_on_every_core_shares_them_all():
    plan = {b.component: b for b in plan_budgets(scenario("batch.spark.spark.executor.cores=2", "cluster.broker.vcpus=1"),
                                                 [0, 1], 1)}
    assert plan["job"].cores == (0, 1) and plan["broker-0"].cores == (0,)


def test_against_the_users_brokers_only_the_job_and_the_neighbours_get_budgets():
    plan = plan_budgets(scenario("cluster.broker.vcpus=64"), [0, 1], None)
    assert [b.component for b in plan] == ["job", "neighbours", "storage"]


@pytest.mark.parametrize("overrides, field", [
    (["cluster.broker.vcpus=3"], "cluster.broker.vcpus"),
    (["batch.spark.spark.executor.cores=2", "batch.spark.spark.executor.instances=2"], "batch.spark"),
    (["tenant_host.vcpus=2.5"], "tenant_host.vcpus"),
])
def test_a_budget_above_the_machines_cores_names_its_field(overrides, field):
    with pytest.raises(ScenarioError) as error:
        plan_budgets(scenario(*overrides), [0, 1], 1)
    assert str(error.value).startswith(f"{field}:") and "this machine's 2 cores" in str(error.value)


@pytest.mark.parametrize("override", ["cluster.broker.vcpus=99", "cluster.broker.vcpus=0", "cluster.broker.vcpus=-0.5",
                                      "tenant_host.vcpus=0", "batch.spark.spark.executor.cores=99"])
def test_bad_budgets_are_one_line_and_exit_2_before_anything_starts(override, tmp_path):
    outcome = CliRunner().invoke(app, ["live", str(CATALOG / "paypay-glue-2gb.yaml"), *sum((["--set", o] for o in SMALL), []),
                                       "--set", override, "--run-dir", str(tmp_path / "stack"), "--json", str(tmp_path / "r.json")])
    assert outcome.exit_code == 2, outcome.output
    lines = outcome.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and override.split("=")[0].split(".")[-1] in lines[0]
    assert not (tmp_path / "stack").exists()


def test_without_cgroups_the_notes_say_pinning_only():
    budgets = CpuBudgets([Budget("job", 1, (0,))], use_cgroups=False)
    with budgets:
        assert not budgets.applied and budgets.used() == {}
    assert budgets.notes() == ["CPU budgets by pinning only (sched_setaffinity), no quotas: cgroups not asked for: "
                               "job 1 vCPU on core 0."]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")     # utime + stime


@pytest.mark.live
@pytest.mark.skipif(cgroups_available() is not None, reason=f"cgroups: {cgroups_available()}")
def test_a_cpu_bound_child_in_the_brokers_group_gets_no_more_than_its_quota_and_the_groups_go_afterwards():
    budgets = CpuBudgets([Budget("broker-0", 0.3, (0,)), Budget("job", 1, (1,))])
    with budgets:
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            budgets.place("broker-0", spinner.pid)
            start_cpu, start = _cpu_seconds(spinner.pid), time.monotonic()
            time.sleep(3.0)
            spent = _cpu_seconds(spinner.pid) - start_cpu
            share = spent / (time.monotonic() - start)
            used = budgets.used()["broker-0"]
            throttled = budgets.throttled()["broker-0"]
        finally:
            spinner.kill()
            spinner.wait()
        # the kernel held it to 0.3 of a CPU: throttled (the quota bound, whatever else the machine
        # runs), and no more than the quota; below it only if other work took the core
        assert throttled > 0 and 0 < share <= 0.3 * 1.2
        assert used >= 0.8 * spent                          # the group's cpuacct counted its time
    for controller in ("cpu", "cpuacct", "cpuset"):
        assert not (CGROUP_ROOT / controller / PARENT / budgets.run).exists()


@pytest.mark.live
@pytest.mark.skipif(cgroups_available() is not None, reason=f"cgroups: {cgroups_available()}")
def test_groups_of_a_run_that_was_killed_are_removed_by_the_next():
    leftover = CGROUP_ROOT / "cpu" / PARENT / "run-999999999" / "broker-0"
    leftover.mkdir(parents=True)
    assert "cpu/quietload/run-999999999" in remove_leftovers()
    assert not leftover.parent.exists()
    # the parent goes with its last run: another live run on the machine (another test suite) keeps it
    others = [p.name for p in leftover.parent.parent.iterdir()] if leftover.parent.parent.exists() else []
    assert not leftover.parent.parent.exists() or others
    assert all(name.startswith("run-") and Path(f"/proc/{name.removeprefix('run-')}").exists() for name in others)


@pytest.mark.live
@pytest.mark.skipif(cgroups_available() is not None, reason=f"cgroups: {cgroups_available()}")
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core: nothing to keep apart")
def test_laid_out_the_rest_of_the_machine_leaves_the_brokers_core_and_the_neighbours_come_first():
    budgets = CpuBudgets([Budget("broker-0", 0.5, (0,)), Budget("neighbours", 0.5, (0,)), Budget("job", 1, (1,))])
    # the machine's other work: not a descendant of this process (its shell ends, init adopts it)
    other = int(subprocess.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True).stdout)
    started = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])      # a part of the run, not yet placed
    neighbour = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with budgets:
            budgets.lay_out()
            budgets.place("neighbours", neighbour.pid)
            assert budgets.first_on_wake_up("neighbours", neighbour.pid) == 1
            assert os.sched_getaffinity(other) == {1} and os.sched_getaffinity(0) == {1}   # this process too
            assert Path(f"/proc/{other}/cpuset").read_text().strip() == f"/{PARENT}/{budgets.run}/rest"
            assert os.sched_getaffinity(neighbour.pid) == {0}
            assert os.sched_getscheduler(neighbour.pid) == os.SCHED_RR
            group = budgets.group("cpu", "neighbours")
            assert (group / "cpu.rt_runtime_us").read_text().strip() == "3000"      # 30 % of a 10 ms period at most
            assert budgets.rest_moved >= 2
            # behind the run's groups on the job's core, but this process (it samples the run)
            assert Path(f"/proc/{other}/cgroup").read_text().count(f":cpu:/{PARENT}/{budgets.run}/rest") == 1
            assert ":cpu:/\n" in Path(f"/proc/{started.pid}/cgroup").read_text() + "\n"   # the run places it itself
            assert (budgets.group("cpu", "rest") / "cpu.shares").read_text().strip() == "2"
            assert ":cpu:/\n" in Path("/proc/self/cgroup").read_text() + "\n" and budgets.rest_behind >= 1
        assert os.sched_getaffinity(other) == os.sched_getaffinity(0) == {0, 1}     # handed back
        assert Path(f"/proc/{other}/cpuset").read_text().strip() == "/"
        assert ":cpu:/\n" in Path(f"/proc/{other}/cgroup").read_text() + "\n"
    finally:
        os.kill(other, 9)
        for process in (started, neighbour):
            process.kill()
            process.wait()
    for controller in ("cpu", "cpuacct", "cpuset"):
        assert not (CGROUP_ROOT / controller / PARENT / budgets.run).exists()


def test_the_machines_cores_are_read_once_the_groups_of_ended_runs_are_gone(monkeypatch):
    """A run killed before its cleanup leaves the machine behind its ``rest`` cpuset on one core: the next
    run reads the cores after removing it, not before (it refused '2 vCPUs do not fit this machine's 1 cores')."""
    from simulator.live import budget
    steps = []
    monkeypatch.setattr(budget, "cgroups_available", lambda: None)
    monkeypatch.setattr(budget, "remove_leftovers", lambda: steps.append("leftovers removed") or [])
    monkeypatch.setattr(budget.os, "sched_getaffinity", lambda pid: steps.append("cores read") or {0, 1})
    assert budget.machine_cores() == {0, 1}
    assert steps == ["leftovers removed", "cores read"]
