"""One question for a call that both the policy and the workspace's fence would ask.

A file tool's path outside the workspace meets two checks: the policy (may this
call run?) and the workspace's fence (may the tools use that path at all?, see
``shell.tools.workspace``). Asked one after the other, the user saw a diff that did
not say the file was outside, then a second question naming only the path.

So when the policy asks about a call whose path the fence would refuse, the
question says that the path is outside and what approving allows (exactly that
file, or that directory and what is in it, for the rest of the session, as the
fence's own question would), and an approval is handed to the fence for that call
and that resolved path only: the fence lets that one call through without asking
again and remembers the path as if it had asked. When the policy lets a call run
unasked (an allow rule, accept-edits, approvals off), nothing is handed over and
the fence asks once, as before.

The policy sits below the tools, so the fence comes in as a :class:`Fence` (the
runtime gives it the ``Workspace``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from shell.core.tools import Tool


@dataclass(frozen=True, slots=True)
class OutsidePath:
    """Where a call would leave the workspace, as the fence would ask about it."""

    path: Path
    """The resolved path (symlinks followed), as the fence will check it."""
    why: str
    """How it leads out: ``an absolute path``, ``'..' leads out of it``, a symlink."""
    is_dir: bool

    @property
    def covers(self) -> str:
        """What approving allows, in the fence's own terms."""
        if self.is_dir:
            return "that directory and everything in it"
        return "exactly that file (nothing next to it)"


class Fence(Protocol):
    """The workspace's fence as the policy sees it."""

    @property
    def root(self) -> Path: ...

    def outside(self, tool: Tool | None, args: Mapping[str, Any]) -> OutsidePath | None:
        """The path of this call that the fence would ask about, or None (inside, already
        approved, or a tool the fence does not guard)."""
        ...

    def pass_call(self, call_id: str, tool_name: str, path: Path) -> None:
        """The user approved this call having been told ``path`` is outside: the fence
        lets this call use it without asking again (and remembers it for the session)."""
        ...


def outside_note(tool_name: str, where: OutsidePath, root: Path) -> str:
    """The sentence the policy's question gains for a path outside the workspace."""
    return (
        f"{where.path} is outside the workspace {root} ({where.why}). Approving runs this {tool_name} call "
        f"and allows {where.covers} outside the workspace for the rest of this session."
    )


__all__ = ["Fence", "OutsidePath", "outside_note"]
