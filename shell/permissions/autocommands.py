"""Auto mode's word on a shell command: it runs unasked only inside the sandbox, off the
network, once every secret file of the workspace was found (so that all are hidden).

Kept apart from the verdicts' order (:mod:`.policy`), which asks it last, after every
rule, secret and boundary question had its say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from middleware.human_in_the_loop import Verdict
from shell.core.tools import Tool

from .asktext import confined, confinement

if TYPE_CHECKING:
    from .sandbox import Sandbox


def auto_command(
    tool: Tool, args: Mapping[str, Any], sandboxed: Callable[[str], bool] | None, sandbox: Sandbox | None
) -> Verdict:
    """``allow`` for a command the sandbox confines; ``ask`` for the rest, saying why."""
    command = args.get("command")
    contained = not args.get("network")  # a call that asks for the network leaves the sandbox
    probe = sandboxed if confined(tool) else None
    if not (isinstance(command, str) and contained and probe is not None and probe(command)):
        said = confinement(tool, args, sandboxed, sandbox)  # what approving it grants
        editor = not confined(tool) and getattr(tool, "source", "") == "editor"
        if not contained and isinstance(command, str) and probe is not None and probe(command):
            # sandboxed all the same, on the host's network: "outside the sandbox" was
            # false both ways, and hid what the network reaches (finding K16)
            return Verdict("ask", f"{tool.name} asks for the network.{said}")
        return Verdict("ask", f"{tool.name} would run outside the sandbox.{said if editor else ''}")
    searched = sandbox.secrets_searched() if sandbox is not None else None
    if searched is not None and not searched.complete:
        return Verdict("ask", f"The workspace could not be searched for files that hold secrets "
                              f"({searched.why_incomplete}), so the sandbox may not hide them all from "
                              f"{tool.name}; auto mode asks.")
    return Verdict("allow", "auto: the command runs inside the sandbox")
