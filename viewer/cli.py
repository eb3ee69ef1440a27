"""Command line: ``agent-viewer [FILE|-]`` and the ``--print`` modes."""

from __future__ import annotations

import os
import sys
import time
from importlib import resources

import click

from viewer import __version__
from viewer.core.printer import make_printer
from viewer.core.sources import CHUNK, Ingest, SourceError, check_readable

EXIT_USAGE = 2
PROG = "agent-viewer"


def demo_path() -> str:
    """The bundled demo stream (a copy of sample_streams/demo_session.ndjson)."""
    return str(resources.files("viewer") / "demo" / "demo_session.ndjson")


def fail(message: str, code: int = EXIT_USAGE) -> None:
    click.echo(f"{PROG}: error: {message}", err=True)
    sys.exit(code)


def _read_chunks(fd: int, follow_path: str | None = None, poll: float = 0.2):
    """Chunks from ``fd`` until EOF; with ``follow_path``, keep polling for growth."""
    while True:
        try:
            chunk = os.read(fd, CHUNK)
        except InterruptedError:  # pragma: no cover
            continue
        if chunk:
            yield chunk
            continue
        if follow_path is None:
            return
        time.sleep(poll)


def run_print(path: str | None, output_format: str, follow: bool) -> int:
    printer = make_printer(output_format)
    ingest = Ingest()
    try:
        fd = 0 if path is None else os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise SourceError(f"{path}: cannot open ({exc.strerror})") from None
    try:
        for chunk in _read_chunks(fd, path if follow else None):
            for rec in ingest.feed(chunk):
                printer.handle(rec)
            sys.stdout.flush()
        for rec in ingest.close():
            printer.handle(rec)
    finally:
        if path is not None:
            os.close(fd)
    return printer.close()


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command(context_settings=CONTEXT)
@click.argument("file", required=False, metavar="[FILE|-]")
@click.option("-p", "--print", "print_mode", is_flag=True,
              help="Print instead of opening the TUI (implied when stdout is not a terminal).")
@click.option("--output-format", type=click.Choice(["text", "json", "stream-json"]), default=None,
              help="Output of --print: human lines (text, the default), the final result object "
                   "(json) or the cleaned events (stream-json).")
@click.option("-f", "--follow", is_flag=True, help="Keep reading FILE as it grows (like tail -F).")
@click.option("--demo", is_flag=True, help="Open the bundled demo run.")
@click.version_option(__version__, "-V", "--version", prog_name=PROG)
def cli(file: str | None, print_mode: bool, output_format: str | None, follow: bool, demo: bool) -> int:
    """Watch a coding-agent run (Cursor stream-json) live, or open a saved one.

    \b
      cursor-agent -p --output-format stream-json "fix the tests" | agent-viewer
      agent-viewer run.ndjson
      agent-viewer --follow run.ndjson
      agent-viewer --print --output-format json run.ndjson

    With no FILE, reads standard input when it is a pipe or a file, and
    opens the bundled demo run otherwise.
    """
    stdin_is_data = not sys.stdin.isatty() if sys.stdin is not None else False
    if demo:
        if file:
            raise click.UsageError("--demo takes no FILE")
        file = demo_path()
    if file == "-":
        file = None
        if follow:
            raise click.UsageError("--follow needs a FILE, not standard input")
    elif file is None:
        if follow:
            raise click.UsageError("--follow needs a FILE")
        if not stdin_is_data or os.environ.get("TEXTUAL_DRIVER"):
            file = demo_path()
    if file is not None:
        check_readable(file)

    if print_mode or output_format is not None or not sys.stdout.isatty():
        return run_print(file, output_format or "text", follow)

    from viewer.ui.launch import launch  # Textual is imported only for the TUI

    return launch(file, follow=follow)


def main(argv: list[str] | None = None) -> None:
    """Entry point: one clear line on stderr for any usage or input error."""
    try:
        code = cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.exceptions.NoSuchOption as exc:
        fail(f"{exc.format_message()} (see {PROG} --help)")
    except click.ClickException as exc:
        fail(f"{exc.format_message()} (see {PROG} --help)")
    except click.exceptions.Abort:
        sys.exit(130)
    except SourceError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)
