"""What ``/rewind`` puts back of the workspace repository's history (finding U14).

The checkpoint before each sandboxed command keeps the repository's objects and
its refs and reflogs (:mod:`shell.sessions.gitkeep`). A rewind to before a message
takes the state kept before the first command after it and puts back what is
missing since: objects, refs and reflog entries a command removed. It adds only,
but for a ref the rewound commands moved themselves (moved back); any other ref
that moved since is named with both ids and left where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .core.textsafety import sanitize_line

if TYPE_CHECKING:
    from .sessions.checkpoints import Checkpoints, ShellRun
    from .sessions.gitkeep import GitState


@dataclass(frozen=True, slots=True)
class GitStep:
    """The repository state a rewind goes back to, and what putting it back adds."""

    state: GitState
    said: tuple[str, ...]


def plan(cp: Checkpoints, commands: Sequence[ShellRun]) -> GitStep | None:
    """The step for a rewind over ``commands`` (None: nothing of the history to put back)."""
    from .sessions import gitkeep

    if not commands:
        return None
    from .sessions.checkpoints import ShellRun

    first = commands[0]
    previous = max((r.seq for r in cp.records if isinstance(r, ShellRun) and r.seq < first.seq), default=-1)
    for record in reversed(cp.records):
        if isinstance(record, gitkeep.GitState) and record.seq < first.seq \
                and not (record.after and record.seq > previous):  # not where the first command left it
            said = gitkeep.restore(cp, record, apply=False)
            return GitStep(record, tuple(said)) if said else None
    return None


def describe(step: GitStep | None) -> list[str]:
    if step is None:
        return []
    return [f"- Git history (kept before the commands ran): {sanitize_line('; '.join(step.said))}."]


def apply(cp: Checkpoints, step: GitStep | None) -> tuple[str, ...]:
    """Put it back; what was done, said (empty: nothing)."""
    from .sessions import gitkeep

    if step is None:
        return ()
    try:
        said = gitkeep.restore(cp, step.state, apply=True)
    except OSError as exc:
        return (f"git history not put back ({exc.strerror or exc})",)
    return (f"git history: {sanitize_line('; '.join(said))}",) if said else ()
