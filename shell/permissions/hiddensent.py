"""A call whose arguments hold a value of a hidden secret file (finding P4).

The model is not shown the workspace's ``.env`` (:mod:`.secretfiles`), and the values
net (:mod:`.hiddenvalues`) redacts its values from what tools return. That net is
an oracle if a call may carry the value itself: a ``grep`` whose pattern lists guesses
(``pw1|pw2|…``) echoed ``No matches for 'pw1|[REDACTED]|…'``, naming the right guess;
a ``write_file`` of a list of guesses then a read did the same; and ``fetch_url`` sent
a recovered value out unasked, since egress knew only the environment's and config's
secrets. The model has no business knowing a value it was not shown, so a call whose
arguments hold one asks in every mode but bypass, whatever allow rules say, naming
the file; a network call is looked through for the value encoded or split too (as
:mod:`.egress` does for the environment's secrets). Once the user approves, the result
does not redact the values the call itself supplied (:mod:`shell.tools.hiddenreads`):
marking where they stand would answer the guess all the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from shell.core.secrets import TOO_LONG, mask, secret_going_out
from shell.core.textsafety import path_text

from .egress import argument_strings, sends_out
from .egressfolded import respelled_value
from .egresspieces import joined_texts, pieced_value
from .hiddenvalues import HiddenValues, hidden_values, home_value_files
from .historysecrets import history_sources
from .mcppaths import is_mcp

if TYPE_CHECKING:
    from shell.core.tools import Tool

    from .sandbox import Sandbox


def hidden_value_sent(tool: Tool, args: Mapping[str, Any], sandbox: Sandbox | None) -> str:
    """The question for a call whose arguments hold a value of one of the hidden secret
    files (the workspace's, found by the sandbox's last search, and the other home
    projects' its last walk found), or empty."""
    if sandbox is None or not args:
        return ""
    found = sandbox.secrets_searched()
    home = sandbox.home_files.last  # other projects' secret files, whose values the net redacts too
    hidden = [*found.paths, *home_value_files(home.files if home is not None else ())]
    # a .env committed, then removed, here or in a nested repository (.historysecrets)
    history = history_sources(sandbox.workspace, seen=found.runs_later)
    if not hidden and not history:
        return ""
    copies = sandbox.staged.copies(hidden)
    network, command = tool.kind == "fetch" or is_mcp(tool), tool.kind == "execute"
    sends = sends_out(tool, args)
    values = hidden_values(hidden, (), found.relative, copies=copies, history=history)
    hit = _held(values, args, network=network, command=command, sends=sends)
    if hit is not None:  # then only: is it one the committed code holds? (git runs: .trackedvalues)
        values = hidden_values(hidden, (), found.relative, copies=copies, roots=sandbox.roots(),
                               history=history)
        hit = _held(values, args, network=network, command=command, sends=sends)
    if hit is None:
        return ""
    value, path, how = hit
    return (f"{tool.name}'s arguments hold a value of the hidden secret file {path_text(path)}"
            f"{how} ({mask(value)}). The model was not shown that file, so it should not know the value: "
            "it may be guessing it (any answer would confirm the guess) or sending it on. Approve only if "
            "you meant it to use this value; allow rules do not cover it.")


def _held(
    values: HiddenValues, args: Mapping[str, Any], *, network: bool, command: bool = False,
    sends: bool = False,
) -> tuple[str, str, str] | None:
    """The value, its file and how it is spelled (empty: as it is) that ``args`` hold.
    A command is read as the shell will assemble it too (finding Q1: a guess the shell
    puts together — ``correcthorse''battery``, ``printf '%s%s' a b``, ``echo <base64> |
    base64 -d`` — was answered by the output's redaction, unasked). ``sends``: the call
    reaches the network (:func:`.egress.sends_out`), so a value respelled counts too."""
    texts = [t for t in argument_strings(args) if t is not None]
    words = _assembled(args) if command else []
    for text in [*texts, *([" ".join(words)] if words else [])]:
        _, hit = values.redact(text)
        if hit:
            value, path = next(iter(hit.items()))
            return value, path, "" if text in texts else " (put together by the shell)"
    if not (network or command):
        return None
    joined = [text for _, text in joined_texts(args if network else {"words": words})]
    for text in [*texts, *joined]:
        out = secret_going_out(text, values.secrets)
        if out is not None and out[0] != TOO_LONG:
            owner = values.owners.get(out[1])
            if owner is not None:
                return owner[0], owner[1], " (encoded or split)"
    pieced = pieced_value(args, values.secrets.values) if network else None  # reordered, spread out (Z4)
    if pieced is not None and (owner := values.owners.get(pieced)) is not None:
        return owner[0], owner[1], " (in pieces over the call)"
    respelled = respelled_value(texts, values.secrets.values) if sends else None
    if respelled is not None and (owner := values.owners.get(respelled[1])) is not None:
        return owner[0], owner[1], f" ({respelled[0]})"  # lower-cased, spaced, half of it (S14)
    return None


def _assembled(args: Mapping[str, Any]) -> list[str]:
    """A command's words with the quotes and backslashes the shell removes removed."""
    line = args.get("command")
    if not isinstance(line, str):
        return []
    return _QUOTING.sub("", line).split()


_QUOTING = re.compile(r"[\'\"\\]")


__all__ = ["hidden_value_sent"]
