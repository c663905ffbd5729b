"""The README's path script (bench/readme_path.py): how it reads the README's commands and what
they are shown to print, and how it compares an output with what is shown."""
import importlib.util
import sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("readme_path", Path("bench/readme_path.py"))
readme_path = importlib.util.module_from_spec(spec)
sys.modules["readme_path"] = readme_path     # its dataclasses look their module up
spec.loader.exec_module(readme_path)

README = '''**1. simulate** the job:

```
$ quietload simulate a.yaml    # 1 s here
a (model, seed 1)
  produce requests      56,297
  ...
wrote results/a-seed1.json
```

```yaml
$ not a command: a YAML block
```

**2. check** it, twice:

```
$ quietload check a.yaml \\
    --set x=1; echo "exit $?"   # 2.5 min here
FAIL a (model, seed 1): 2 of 5 rules failed
exit 1
$ quietload check b.yaml
```
'''


def test_the_readme_commands_are_read_in_order_with_what_each_shows():
    found = readme_path.commands(README)
    assert [(c.step, c.line) for c in found] == [
        ("1. simulate", "quietload simulate a.yaml"),
        ("2. check", 'quietload check a.yaml --set x=1; echo "exit $?"'),
        ("2. check", "quietload check b.yaml")]
    assert found[0].shown == ("a (model, seed 1)", "  produce requests      56,297", "  ...", "wrote results/a-seed1.json")
    assert found[1].shown == ("FAIL a (model, seed 1): 2 of 5 rules failed", "exit 1") and found[2].shown == ()
    # the time the README shows beside a command is not part of the command
    assert [(c.took_here, c.number) for c in found] == [("1 s", 1), ("2.5 min", 2), ("", 2)]


def test_an_output_matches_when_every_shown_line_is_there_in_order_with_elisions():
    shown = ("a (model, seed 1)", "  produce requests      56,297", "  ...", "to paste ... num.replica.fetchers=4")
    output = "a (model, seed 1)\n  produce requests 56,297\n  batches 60\nto paste, if they agree: num.replica.fetchers=4\n"
    assert readme_path.differs(shown, output) is None
    assert readme_path.differs(shown, output.replace("56,297", "56,298")) == (
        "the README shows 'produce requests      56,297'; not in the output (in order)")
    # in order: a line shown first but printed last is missing
    assert readme_path.differs(("to paste ... fetchers=4", "a (model, seed 1)"), output) is not None


def test_a_command_fails_its_step_on_an_exit_the_readme_does_not_show(tmp_path):
    env = {"PATH": "/usr/bin:/bin"}
    shows_exit = readme_path.Command("2. check", 'echo FAIL; (exit 1); echo "exit $?"', ("FAIL", "exit 1"))
    assert readme_path.run(shows_exit, tmp_path, env)[1:] == (None, "FAIL\nexit 1\n")
    other_exit = readme_path.Command("2. check", 'echo FAIL; (exit 3); echo "exit $?"', ("FAIL", "exit 1"))
    assert readme_path.run(other_exit, tmp_path, env)[1] == "the README shows 'exit 1'; not in the output (in order)"
    hides_exit = readme_path.Command("2. check", "echo FAIL; exit 1", ("FAIL",))
    assert readme_path.run(hides_exit, tmp_path, env)[1] == "exit 1: FAIL"
