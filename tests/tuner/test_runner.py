import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

from simulator.evaluator import model_evaluator
from tuner.runner import Execution, Runner
from workloads import Scenario, ScenarioError
from workloads.loader import merge


def requests_on_seed(evaluator, task):
    """A task is (scenario mapping, seed); its result the run's produce requests."""
    raw, seed = task
    return evaluator.evaluate(Scenario.from_mapping(raw), seed).summary.produce_requests


def rows_kept(evaluator, task):
    """How many row sets the process's evaluator had measured before this task ran it."""
    before = len(evaluator._rows)
    requests_on_seed(evaluator, task)
    return before


@pytest.fixture
def seeds_of(tiny):
    jittered = merge(tiny, {"jitter": {"append_rate": 0.3}})   # each seed its own append rates: results differ by seed
    return [(jittered, seed) for seed in (1, 2, 3, 4)]


def test_results_come_back_in_task_order_inline_and_on_processes(seeds_of):
    direct = [requests_on_seed(model_evaluator(), task) for task in seeds_of]
    assert len(set(direct)) > 1    # the order shows
    with Runner(requests_on_seed, model_evaluator()) as inline:
        assert inline.run(seeds_of) == direct
        assert [inline.submit(task).result() for task in seeds_of] == direct
    seen = []
    with Runner(requests_on_seed, model_evaluator(), Execution(workers=2)) as pool:
        assert pool.run(seeds_of, lambda done, total: seen.append((done, total))) == direct
        assert [future.result() for future in [pool.submit(task) for task in seeds_of]] == direct
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_process_keeps_its_evaluator_between_tasks(seeds_of):
    """The evaluator goes to each process once: the rows measured for the first task serve the next."""
    with Runner(rows_kept, model_evaluator()) as inline:
        assert inline.run(seeds_of) == [0, 1, 1, 1]
    with Runner(rows_kept, model_evaluator(), Execution(workers=2)) as pool:
        kept = pool.run(seeds_of)
    # which process runs which task is up to the pool: a 0 for each process's first task, 1 after it
    assert set(kept) <= {0, 1} and 1 <= kept.count(0) <= 2


def test_an_error_in_a_task_reaches_the_caller_as_it_was_raised(seeds_of):
    """Inline or from a worker process: the study tells a refused trial by its ScenarioError."""
    bad = (merge(seeds_of[0][0], {"batch": {"topic": "nowhere"}}), 1)
    line = "batch.topic: topic 'nowhere' is not in cluster.topics"
    with Runner(requests_on_seed, model_evaluator()) as inline:
        error = inline.submit(bad).exception()
        assert isinstance(error, ScenarioError) and str(error) == line
        with pytest.raises(ScenarioError, match=f"^{line}$"):
            inline.run([seeds_of[0], bad])
    with Runner(requests_on_seed, model_evaluator(), Execution(workers=2)) as pool:
        error = pool.submit(bad).exception()
        assert isinstance(error, ScenarioError) and (error.field, str(error)) == ("batch.topic", line)
        assert pool.submit(seeds_of[0]).result() > 0     # the pool still runs tasks after it


def test_bad_executions_are_one_line_errors():
    with pytest.raises(ScenarioError, match=r"^--engine: expected one of local, spark, got 'flink'$"):
        Execution("flink").checked()
    with pytest.raises(ScenarioError, match=r"^--workers: expected at least 1, got -1$"):
        Execution(workers=-1).checked()
    assert Execution().checked().workers >= 1          # unset: the CPU count
    with pytest.raises(ScenarioError, match=r"^--engine: spark runs whole batches of tasks, not one task at a time$"):
        Runner(requests_on_seed, model_evaluator(), Execution("spark")).submit(({}, 1))


def running(process: psutil.Process) -> bool:
    """Whether ``process`` still runs (not exited, not a zombie waiting to be reaped)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:   # reaped meanwhile
        return False


def gone_within(process: psutil.Process, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while running(process):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_worker_processes_die_of_a_stop_signal_and_with_their_parent(tmp_path):
    """A worker takes the default action of SIGTERM (its parent's handlers would hand the signal
    back as a task's error and keep it running), and dies when its parent is killed with SIGKILL,
    which no clean-up sees."""
    script = ("import os, time\nimport tuner.runner\nfrom quietload.stopping import stop_signals_interrupt\n"
              "from simulator.evaluator import model_evaluator\nfrom tuner.runner import Execution, Runner\n"
              "tuner.runner.usable_cores = lambda: 2   # two workers on any machine\n"
              "def nap(evaluator, seconds):\n    time.sleep(seconds)\n"
              "with stop_signals_interrupt(), Runner(nap, model_evaluator(), Execution(workers=2)) as runner:\n"
              "    naps = [runner.submit(600) for _ in range(2)]\n"
              "    print(*runner._pool._processes, flush=True)\n"
              "    time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        first, second = (psutil.Process(int(pid)) for pid in parent.stdout.readline().split())
        first.send_signal(signal.SIGTERM)
        assert gone_within(first, 5)
        parent.kill()
        assert parent.wait(timeout=5) == -signal.SIGKILL
        assert gone_within(second, 5)
    finally:
        parent.kill()
        parent.wait()


def at_simulated_second(evaluator, task):
    """A run that has reached ``seconds`` simulated and waits until its parent's progress heard it
    (the file ``seen-<seconds>`` exists); its result its seconds."""
    from pathlib import Path
    from tuner.runner import simulated
    seconds, folder = task
    simulated(seconds)
    for _ in range(60000):   # at most ten minutes: the parent reports every second while nothing finishes
        if (Path(folder) / f"seen-{seconds:g}").exists():
            break
        time.sleep(0.01)
    return seconds


def test_the_parent_hears_each_workers_run_at_its_simulated_second_while_it_runs(tmp_path):
    heard = []

    def report(done, total):
        running = runner.running()
        heard.append(running)
        for seconds in re.findall(r"\d+", running or ""):   # "runs at 41, 7 s simulated"
            (tmp_path / f"seen-{seconds}").touch()
    with Runner(at_simulated_second, None, Execution(workers=2)) as runner:
        assert runner.run([(7.0, str(tmp_path)), (41.0, str(tmp_path))], report) == [7.0, 41.0]
        assert (tmp_path / "seen-7").exists() and (tmp_path / "seen-41").exists()   # each heard while it ran
        assert {"run at 7 s simulated", "runs at 41, 7 s simulated", "run at 41 s simulated"} & set(heard)
        assert runner.running() is None   # each worker's slot is cleared as its task ends


def test_an_inline_run_is_heard_too_and_cleared_after_it():
    from tuner.runner import simulated
    with Runner(lambda evaluator, seconds: (simulated(seconds), runner.running())[1], None) as runner:
        assert runner.run([12.0, 3.0]) == ["run at 12 s simulated", "run at 3 s simulated"]
        assert runner.running() is None
