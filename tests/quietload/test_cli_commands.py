"""The CLI builds the one command a command line names, and says what building them all would."""
import pytest
import typer

from quietload.cli import app


@pytest.mark.parametrize("words", [["simulate", "--help"], ["stack", "up", "--help"], ["import", "--help"],
                                   ["simulate", "x.yaml", "--seed", "abc"], ["simulat"], ["--help"]], ids=" ".join)
def test_a_command_line_builds_the_command_it_names_with_the_same_help_and_errors(words, capsys):
    """``app(words)`` builds only the command named (all of them for the group's help or a name
    that is none); typer's own call builds them all: the two say the same."""
    said = []
    for call in (app, lambda *args, **kwargs: typer.Typer.__call__(app, *args, **kwargs)):
        with pytest.raises(SystemExit) as exit_code:
            call(words, prog_name="quietload")
        out = capsys.readouterr()
        said.append((exit_code.value.code, out.out, out.err))
    assert said[0] == said[1]
    assert said[0][1] + said[0][2]
