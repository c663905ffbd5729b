"""A JVM's threads by kind from /proc's schedstat and comm (a /proc written here), differenced
between two reads: no JVM needed."""
from __future__ import annotations

from pathlib import Path

from simulator.live.threads import by_kind, kind_of, read_threads


def _proc(root: Path, threads: dict[int, tuple[str, int, int, int]]) -> Path:
    for tid, (comm, run, wait, slices) in threads.items():
        task = root / "77" / "task" / str(tid)
        task.mkdir(parents=True, exist_ok=True)
        (task / "comm").write_text(comm + "\n")
        (task / "schedstat").write_text(f"{run} {wait} {slices}\n")
    return root


def test_thread_names_as_comm_cuts_them_name_their_kind() -> None:
    assert [kind_of(name) for name in ("kafka-producer-", "Executor task l", "C2 CompilerThre", "C1 CompilerThre",
                                       "GC Thread#0", "G1 Refine#0", "VM Thread", "main")] == \
        ["sender", "task", "jit", "jit", "gc", "gc", "vm", "other"]


def test_two_reads_differenced_and_summed_by_kind(tmp_path: Path) -> None:
    before = read_threads(77, _proc(tmp_path / "a", {1: ("kafka-producer-", 1_000, 500, 10),
                                                     2: ("Executor task l", 5_000, 0, 3), 9: ("main", 7, 7, 7)}))
    after = read_threads(77, _proc(tmp_path / "b", {1: ("kafka-producer-", 3_001_000, 2_000_500, 110),
                                                    2: ("Executor task l", 2_005_000, 1_000_000, 13),
                                                    3: ("Executor task l", 1_000_000, 0, 2)}))   # 9 ended, 3 born
    kinds = by_kind(before, after)
    assert kinds["sender"] == {"threads": 1, "run_s": 0.003, "wait_s": 0.002, "timeslices": 100, "wait_us_per_slice": 20.0}
    assert kinds["task"] == {"threads": 2, "run_s": 0.003, "wait_s": 0.001, "timeslices": 12,
                             "wait_us_per_slice": 1000 / 12}
    assert set(kinds) == {"sender", "task"}
    assert read_threads(78, tmp_path / "a") == {}
