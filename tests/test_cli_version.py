from typer.testing import CliRunner

from quietload.cli import app


def test_version_command_prints_version():
    result = CliRunner().invoke(app, ["version"])
    assert result.exit_code == 0, result.output
    assert "0.1.0" in result.output
