"""Refs a rewound command moved: put back, or named with their old and new ids (finding Y1).

A rewind to before a message whose command ran ``git commit`` put the files back,
but the branch stayed on the new commit: ``git status`` then showed the commit,
reversed, as an uncommitted edit, and the next ``git commit -a`` recorded a revert.
The note said "moved since and left", as if someone had moved it later.

The history keep records the refs before each command and after it (``git``
records, :mod:`.gitkeep`). A ref that changed only from a state before one of the
rewound commands to the state after it, and is where the last of them left it, was
moved by those commands and by nothing else: the rewind moves it back. Any other
move (the user's own commit between two messages, or after the last) is left, and
said with both ids and the command that moves it back. git's index is judged the
same way (:func:`only_theirs`, :mod:`.gitindex`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .gitkeep import GitState


@dataclass(frozen=True, slots=True)
class Moves:
    """What a rewind does with the refs that moved since the state it goes back to."""

    back: dict[str, tuple[str, str]]
    """Ref name to ``(its id now, the id it goes back to)``: moved by the rewound commands only."""
    left: dict[str, tuple[str, str]]
    """Ref name to ``(then, now)``: moved otherwise, or not known: left where it is."""

    def said(self) -> list[str]:
        out = [f"{name} moved back from {now[:12]} to {then[:12]}, where it was before that message"
               for name, (now, then) in sorted(self.back.items())[:5]]
        out += [f"{name} was {then[:12]} before that message and is {now[:12]} now, moved since by "
                f"something else and left there (`git reset --soft {then[:12]}` on it puts it back)"
                for name, (then, now) in sorted(self.left.items())[:5]]
        return out


def moves(state: GitState, later: Sequence[GitState], moved: Sequence[str], refs_then: dict[str, str],
          refs_now: dict[str, str], refs_at: Callable[[GitState], dict[str, str]]) -> Moves:
    """Sort the refs ``moved`` since ``state``: ``later`` are the repository's states
    recorded after it, in order (``refs_at`` reads one's refs)."""
    back: dict[str, tuple[str, str]] = {}
    left: dict[str, tuple[str, str]] = {}
    chain = [refs_at(record) for record in later]
    for name in moved:
        then, now = refs_then[name], refs_now[name]
        steps = [(record.after, refs.get(name)) for record, refs in zip(later, chain, strict=True)]
        if only_theirs(then, now, steps) and _oid(then) and _oid(now):
            back[name] = (now, then)
        else:
            left[name] = (then, now)
    return Moves(back, left)


def only_theirs(then: str | None, now: str | None, steps: Sequence[tuple[bool, str | None]]) -> bool:
    """Whether a value (a ref's id, the index's digest) that was ``then`` in a state kept
    before a command and is ``now`` was changed by the commands since and by nothing
    else. ``steps``: each later state, in order, as ``(kept after a command, the value
    in it)``. Theirs when it changed only from a state before a command to the one
    after it (never between two commands), the last state is one after a command, and
    it is still what that state holds."""
    if then is None or now is None or then == now or not steps or not steps[-1][0]:
        return False
    value: str | None = then
    for after, here in steps:
        if not after and here != value:
            return False  # it changed between two commands: not theirs
        value = here
    return value == now


def _oid(value: str) -> bool:
    return len(value) in (40, 64) and all(c in "0123456789abcdef" for c in value)
