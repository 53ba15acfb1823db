"""Whether a command line runs git, and only git: the one case where what a deny rule
on reading hides is shown as git has it staged.

The sandbox hides what a deny rule on reading names (``read_file(config/secrets/**)``).
Hidden as empty, the files git tracks there look deleted to git in the sandbox, and
``git add -A && git commit`` commits that (finding M8). Shown as staged, git sees them
unchanged, but so does every other program: ``grep -r``, ``find -exec cat`` would print
their committed content to the model, which the rule is there to stop. So the staged view
is given only to a line whose every command is git or a git front end (``git add -A &&
git commit``, ``cd sub && git status``: :func:`only_git`); a line that runs git beside
other programs (``git status; grep -r …``) could read the view with them, so the policy
asks before it (:func:`runs_git` without :func:`only_git`), and any other command sees
the path hidden, as before. git's own history readers ask on their own
(:mod:`.githistory`), and a line that names the folder asks (:func:`.secretwords.named_paths`).
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


HARMLESS = frozenset({"cd", "pwd", "echo", "printf", "true", "false", ":", "test", "[", "exit", "set",
                      "sleep", "export", "unset"})
"""Commands that read no file, allowed beside git in a line that gets the staged view."""


@lru_cache(maxsize=256)
def only_git(command: str) -> bool:
    """Whether every command of ``command`` is git (or a git front end) or one of
    :data:`HARMLESS`, read for sure, with at least one git: the lines given the staged view."""
    split = split_command(command)
    if not split.confident:
        return False
    seen = False
    for part in split.parts:
        if part.writes:  # a redirection writes a file named by the line (maybe a copy of the view)
            return False
        if not part.text:
            continue
        reading = read_part(part.text)
        if reading.runtime or not reading.understood or reading.redirects:
            return False
        for words in reading.commands:
            name = words[0].text if words else ""
            if name in GIT_PROGRAMS:
                seen = True
            elif name not in HARMLESS:
                return False
    return seen


__all__ = ["GIT_PROGRAMS", "HARMLESS", "only_git", "runs_git"]
