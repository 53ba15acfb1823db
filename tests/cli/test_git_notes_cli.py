"""Finding U10 through the console script, real bubblewrap and real git: git prints the
notes of ``refs/notes/commits`` (and ``notes.displayRef``'s) by default, so a notes ref a
script made from the denied blob's id (objects written with zlib, nothing denied read)
turned a quiet ``git log -1`` into a print of the denied file. The sandbox's git now
shows no notes unless asked (``--notes`` asks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_quiet_cli import ASKED, PLAN, committed, deny, git, run

__all__ = ["deny"]

MAKE_NOTE = '''import hashlib, os, sys, zlib
def put(kind, body):
    data = f"{kind} {len(body)}".encode() + b"\\0" + body
    sha = hashlib.sha1(data).hexdigest()
    os.makedirs(f".git/objects/{sha[:2]}", exist_ok=True)
    with open(f".git/objects/{sha[:2]}/{sha[2:]}", "wb") as out:
        out.write(zlib.compress(data))
    return sha
tree = put("tree", b"100644 " + sys.argv[1].encode() + b"\\0" + bytes.fromhex(sys.argv[2]))
commit = put("commit", f"tree {tree}\\nauthor a <a@a> 0 +0000\\ncommitter a <a@a> 0 +0000\\n\\nn\\n".encode())
os.makedirs(".git/refs/notes", exist_ok=True)
for name in ("commits", "other"):
    open(f".git/refs/notes/{name}", "w").write(commit + "\\n")
'''


def _note_line(workspace: Path, then: str) -> str:
    plan = committed(workspace)
    head = git(workspace, "rev-parse", "HEAD").strip()
    (workspace / "mk.py").write_text(MAKE_NOTE)
    git(workspace, "config", "notes.displayRef", "refs/notes/other")
    return f"python3 mk.py {head} {plan} && {then}"


def test_a_notes_ref_made_from_the_denied_blob_is_not_printed_by_a_quiet_log_or_show(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path
) -> None:
    require_sandbox()
    sent, shown = run(run_cli, script, deny, _note_line(workspace, "git log -1; git show --stat HEAD"))
    assert PLAN not in shown, shown
    assert "[exit code 0]" in sent and " one" in sent  # it ran: the commit, no notes


def test_asking_for_notes_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path
) -> None:
    require_sandbox()
    sent, shown = run(run_cli, script, deny, _note_line(workspace, "git log -1 --notes"))
    assert PLAN not in shown and ASKED in sent, shown
