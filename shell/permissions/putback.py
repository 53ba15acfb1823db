"""The command a tool result prints to put back what the sandbox moved out.

The results used to say "to keep it: mv QUARANTINED /ws/sub/.vscode". A later command
can replace ``sub`` with a symlink to another project (``rm -rf sub && ln -s ~/other
sub``, tester finding K22), and that ``mv``, pasted, then writes the ``.vscode`` task into
the other project, which runs when the user opens it. ``/quarantine restore`` walks the
path without following symlinks; a line for a terminal cannot, so it enters the folder
with every symlink resolved (``cd -P``) and moves only if that is still the folder the
file came from, by a name without a slash, so nothing on the way is followed. It runs in
``sh -c`` so that it reads the same in bash, zsh or fish, and says so when it moves nothing.
"""

from __future__ import annotations

import shlex
from pathlib import Path

SCRIPT = ('cd -P "$1" && [ "$PWD" = "$1" ] && mv -n -T -- "$2" "$3" '
          '|| { echo "not moved: $1 is missing, or not the folder it was (a symlink?)" >&2; exit 1; }')
"""``$1`` the folder it came from, ``$2`` where it is now, ``$3`` its name there."""


def keep_command(stored: Path, original: Path) -> str:
    """A shell line that moves ``stored`` back to ``original`` unless a symlink or a file
    now stands where a folder of ``original`` was (``original`` is a resolved path)."""
    words = [str(original.parent), str(stored), original.name]
    return f"sh -c {shlex.quote(SCRIPT)} sh " + " ".join(shlex.quote(w) for w in words)


__all__ = ["SCRIPT", "keep_command"]
