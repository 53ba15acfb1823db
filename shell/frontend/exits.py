"""The one exit-code table: what a reply's end means to a script.

0 an answer (``end_turn``, ``max_rounds``, ``stopped``), 1 a reply that ended in
an error, 2 a usage or configuration mistake, 130 interrupted (Ctrl+C, as a
shell reports SIGINT; 143 and 129 for SIGTERM and SIGHUP, which end a reply the same
way), 141 stdout's reader went away (``| head``: as a shell
reports a filter killed by SIGPIPE, so ``set -o pipefail`` scripts see what they
see for ``yes | head``). The command line, headless mode and the interactive
front ends (when they end on a reply) all read it from here.
"""

from __future__ import annotations

import signal

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_PIPE = 0, 1, 2, 130, 141

_BY_STOP_REASON = {"error": EXIT_ERROR, "cancelled": EXIT_INTERRUPTED}


END_SIGNALS = (signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))
"""Signals that end a front end as Ctrl+C does, not at once (``timeout``, a CI job's
cancel, ``docker stop``, a closed terminal window): what arrived is printed, the session's
end written, the terminal given back. (No SIGHUP on Windows.)"""


def signal_exit_code(signum: int) -> int:
    """The shell's code for a process ended by ``signum`` (143 for TERM, 129 for HUP)."""
    return 128 + signum


class UsageError(Exception):
    """Bad command-line use, said in one line on stderr; exit code 2 (``EXIT_USAGE``)."""


HELP = ("exit codes: 0 ok, 1 the reply ended in an error, 2 usage or configuration error, 130 interrupted, "
        "143/129 ended by SIGTERM/SIGHUP, 141 stdout closed by its reader (| head)")


def exit_code(stop_reason: str) -> int:
    """0 for an answer, 1 for a reply that ended in an error, 130 when cancelled."""
    return _BY_STOP_REASON.get(stop_reason, EXIT_OK)
