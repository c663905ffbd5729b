"""The schedule's paste lines reach a shell as they read: ``batch[0]`` is a glob pattern to ``sh``."""
from __future__ import annotations

import subprocess

from reports.sections.schedule import paste_lines

SCHEDULE = {"jobs": [{"start_s": 38.0}, {"start_s": 0.5}],
            "change": [{"overrides": ["batch[0].producer.linger.ms=10", "cluster.brokers=6"]}]}


def test_each_value_is_quoted_and_a_shell_passes_it_on_unchanged_beside_a_file_its_pattern_matches(tmp_path):
    lines = paste_lines(SCHEDULE)
    assert lines == ["--set 'batch[0].start=38s'", "--set 'batch[1].start=0.5s'",
                     "--set 'batch[0].producer.linger.ms=10'", "--set cluster.brokers=6"]
    (tmp_path / "batch0.start=38s").write_text("")     # what the unquoted pattern would have matched
    words = subprocess.run(["sh", "-c", "printf '%s\\n' " + " ".join(lines)], cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    assert words == ["--set", "batch[0].start=38s", "--set", "batch[1].start=0.5s", "--set",
                     "batch[0].producer.linger.ms=10", "--set", "cluster.brokers=6"]
