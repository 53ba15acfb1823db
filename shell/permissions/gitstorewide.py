"""git readers that reach objects no ref reaches (tester finding C13).

The history search (:mod:`.historysecrets`) walks every ref and reflog entry. A
``git stash -u`` with an untracked ``.env`` then ``git stash pop`` (or ``drop``), a reset
whose reflog expired, ``git add .env; git reset .env``: each leaves the file's content in
the object store, unreachable, until ``git gc`` prunes it (two weeks). Readers of the
whole store print it anyway, and ran unasked in clear:

- ``git cat-file --batch-all-objects`` (every object, by its id);
- ``git fsck`` (it lists dangling objects by default; ``--unreachable``, ``--dangling``,
  ``--lost-found`` — which writes them under ``.git/lost-found``), ``git verify-pack -v``
  and ``git show-index`` (every id of a pack);
- then ``git show``/``git cat-file -p`` of an id they printed (``git show 1a2b3c4^3``).

A dangling blob carries no name, so whether it is a secret file cannot be told: these
readers ask in every mode that asks (they are rare in honest work), saying why. A git
reader naming an object id by hand asks when that id is a commit no ref or reflog reaches
whose unreachable history adds a secret file, or a blob or tree (its reachability is not
cheaply known): ids of reachable commits, the usual ``git show 1a2b3c4``, stay quiet.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from shell.core.secretcontent import judged_by_content
from shell.core.secrets import is_secret_file

from .cmdword import read_part
from .gitdisguised import disguised_git
from .githistory import history_reader
from .gitstaged import hardened_git, repository_of
from .shellsplit import split_command

_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{7,64}(?![0-9A-Za-z])")
MAX_IDS = 16
"""Object ids of one line looked up; past this many, the line asks."""
_STORE_WORDS = ("fsck", "all-objects", "verify-pack", "show-index", "lost-found", "unreachable", "dangling")
"""Words that, in a line whose git is not plainly read (``… | xargs git``, ``$G``), may
name a store-wide reader."""
_FSCK_LISTS = ("--unreachable", "--dangling", "--lost-found")


def store_wide_reader(command: str, root: Path) -> str:
    """The first git command of ``command`` that reads objects no ref reaches, or ""."""
    split = split_command(command)
    for part in split.parts:
        if not part.text:
            continue
        reading = read_part(part.text)
        hidden = reading.runtime or not reading.understood or bool(disguised_git(part.text, reading, root))
        if hidden and any(w in part.text for w in _STORE_WORDS):
            return part.text[:80]
        for words in reading.commands:
            head = words[0].text if words else ""
            if head == "git" or head.startswith("git-"):
                texts = [head[4:]] if head.startswith("git-") else []
                texts += [w.text for w in words[1:]]
                if _reads_store(texts):
                    return " ".join(["git", *texts[:7]])
    return ""


def _reads_store(words: list[str]) -> bool:
    """Whether git's ``words`` (global options included) read objects no ref reaches.
    git takes any unique start of a long option (``--batch-a``, ``--unr``)."""
    if any(len(w) >= 9 and "--batch-all-objects".startswith(w) for w in words):
        return True
    if "verify-pack" in words or "show-index" in words:
        return True
    if "fsck" not in words:
        return False
    lists = any(len(w) >= 5 and option.startswith(w) for w in words for option in _FSCK_LISTS)
    return lists or not any(w == "--no-dangling" for w in words)


def unreachable_id(command: str, root: Path) -> str:
    """An object id ``command`` names while it runs a git reader, that is a commit no ref
    or reflog reaches whose own history adds a secret file, or a blob or tree; or ""."""
    ids = list(dict.fromkeys(m.group(0).lower() for m in _HEX.finditer(command)))
    if not ids or not history_reader(command, root):
        return ""
    repo = root if os.path.lexists(root / ".git") else repository_of(root)
    if repo is None:
        return ""
    if len(ids) > MAX_IDS:
        return f"{len(ids)} object ids"
    for oid in ids:
        kind = hardened_git(repo, ["cat-file", "-t", oid])
        if kind is None:
            continue  # no object of the store: a word that only looks like an id
        if kind.strip() in (b"blob", b"tree"):
            return oid
        if _unreachable_secret(repo, oid):
            return oid
    return ""


def _unreachable_secret(repo: Path, oid: str) -> bool:
    """Whether the commits from ``oid`` that no ref or reflog reaches add a secret file
    (git failing: they may)."""
    listed = hardened_git(repo, ["-c", "log.showRoot=true", "log", "--format=", "--name-only", "-z",
                                 "--no-renames", "--diff-filter=A", "--cc", f"{oid}^{{commit}}", "--not",
                                 "--all", "--reflog"])
    if listed is None:
        return hardened_git(repo, ["rev-parse", "-q", "--verify", f"{oid}^{{commit}}"]) is not None
    names = [n.strip("\n") for n in os.fsdecode(listed).split("\0") if n.strip("\n")]
    return any(is_secret_file(n) or judged_by_content(n) for n in names)


def store_wide_question(name: str, command: str, root: Path) -> str:
    """The question for a call of the tool ``name`` running ``command`` when it reads
    objects no ref reaches, or names one by its id, or ""."""
    reader = store_wide_reader(command, root)
    if reader:
        return (f"{name} runs `{reader}`, which lists or prints objects of git's store that no branch, tag "
                "or reflog reaches: a dropped or popped stash, a reset-away commit, a file staged then "
                "unstaged (an .env's key stays there until git gc prunes it, and such an object has no file "
                "name to tell whether it is secret). Approving lets this one command run, and what it "
                "prints goes to the model's provider; allow rules do not cover it.")
    oid = unreachable_id(command, root)
    if oid:
        return (f"{name} runs a git reader naming the object {oid}, which no branch, tag or reflog reaches "
                "(a dropped stash, a reset-away commit) and may hold a secret file's content, or is a file "
                "or folder object whose reachability is not checked. Approving lets this one command run, "
                "and what it prints goes to the model's provider; allow rules do not cover it.")
    return ""


__all__ = ["store_wide_question", "store_wide_reader", "unreachable_id"]
