"""The one way the tests run a `concierge` command in-process."""

from __future__ import annotations

from click.testing import CliRunner, Result

from concierge.cli import main


def run_cli(*args: str, stdin: str | None = None, catch_exceptions: bool = True) -> Result:
    """`concierge ARGS...` with `stdin` as its standard input; the Result has exit_code, output, stdout."""
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=catch_exceptions)
