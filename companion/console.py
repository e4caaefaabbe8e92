"""What every command line of the project shares about its console: ending quietly when the reader
of its output goes away (``companion …``, ``python -m benchmarks.NAME …``)."""
from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn, Sequence


def quiet_pipe(run: Callable[[], int | None]) -> int:
    """``run()``'s exit status, or 141 without a traceback when the reader of stdout went away
    (``companion simulate … | head``, ``python -m benchmarks.players … | head``), as Unix tools do."""
    try:
        try:
            return int(run() or 0)
        finally:   # also on SystemExit (argparse's --help): a pipe closed while lines sat in the buffer fails here
            sys.stdout.flush()
    except BrokenPipeError:
        # stdout is pointed at devnull so the interpreter's own flush at exit cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141   # 128 + SIGPIPE, what a shell reports for a command a pipe cut short


def run_main(main: Callable[[Sequence[str]], int | None]) -> NoReturn:
    """``python -m benchmarks.NAME …``: run a command's ``main`` with the command line and exit with
    its status, quiet when the output's reader goes away as ``companion bench`` is."""
    sys.exit(quiet_pipe(lambda: main(sys.argv[1:])))
