"""Whether a command line may run git: the one case where what a deny rule on reading
hides is shown as git has it staged.

The sandbox hides what a deny rule on reading names (``read_file(config/secrets/**)``).
Hidden as empty, the files git tracks there look deleted to git in the sandbox, and
``git add -A && git commit`` commits that (finding M8). Shown as staged, git sees them
unchanged, but so does every other program: ``grep -r``, ``find -exec cat`` would print
their committed content to the model, which the rule is there to stop. So the staged view
is given only to a command that runs git (``git``, ``git -C x commit``, ``env git``,
``bash -c 'git …'``, ``xargs git``, or a line whose command is known only at run time,
which may be git); any other command sees the path hidden, as before. A command that
runs git and also reads the folder some other way still sees the staged view, as it
could read git's history, which holds the same content anyway; a line that names the
folder asks (:func:`.secretwords.named_paths`).
"""

from __future__ import annotations

from functools import lru_cache

from .cmdword import read_part
from .shellsplit import split_command

GIT_PROGRAMS = frozenset({"git", "git-lfs", "tig", "lazygit", "gitk", "git-gui", "pre-commit", "gh", "hub"})
"""Programs that run git on the work tree (``pre-commit`` stashes what is not staged,
``gh pr create`` and ``lazygit`` commit): each needs the view git would see."""


@lru_cache(maxsize=256)
def runs_git(command: str) -> bool:
    """Whether ``command`` may run git (see the module): a command word among
    :data:`GIT_PROGRAMS` in any reading of any part, or a part whose command is known
    only at run time."""
    split = split_command(command)
    if not split.confident and "git" in command:
        return True
    for part in split.parts:
        if not part.text:
            continue
        reading = read_part(part.text)
        if reading.runtime:
            return True
        if any(words and words[0].text in GIT_PROGRAMS for words in reading.commands):
            return True
    return False


__all__ = ["GIT_PROGRAMS", "runs_git"]
