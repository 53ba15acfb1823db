"""Finding U8 through the console script, with real bubblewrap and real git: agent-shell's
own git, which runs on the host as the user, must never run what the repository names.
A quiet sandboxed ``git checkout b2`` left a hidden file at the old version, and gitsync's
``git checkout-index`` brought it along through the repository's smudge filter: a
command the repository named ran outside the sandbox, unasked."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shell.permissions import githardened

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_quiet_cli import deny, git, run

__all__ = ["deny"]


def test_bringing_a_hidden_file_along_runs_no_smudge_filter(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path, tmp_path: Path
) -> None:
    require_sandbox()
    ran = tmp_path / "smudge-ran"
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "plan.txt").write_text("A1\n")
    (workspace / ".gitattributes").write_text("secrets/** filter=x\n")
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "config", "filter.x.smudge", f"sh -c 'echo ran >> {ran}; cat'")
    git(workspace, "config", "filter.x.clean", "cat")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "one")
    git(workspace, "checkout", "-qb", "b2")
    (workspace / "secrets" / "plan.txt").write_text("B2\n")
    git(workspace, "commit", "-qam", "two")
    git(workspace, "checkout", "-q", "main")
    ran.unlink(missing_ok=True)  # the test's own checkouts ran it, as the user asked them to

    sent, _ = run(run_cli, script, deny, "git checkout -q b2")

    assert not ran.exists(), sent
    assert "brought them to that version" in sent, sent
    assert (workspace / "secrets" / "plan.txt").read_text() == "B2\n"
    assert git(workspace, "status", "--porcelain") == ""


def test_agent_shells_git_runs_no_signature_program_or_clean_filter(tmp_path: Path) -> None:
    """The other host-side gits: ``log`` of a commit carrying a ``gpgsig`` header under
    ``log.showSignature`` runs ``gpg.program``; ``diff-files`` re-hashes a racily clean
    file through its clean filter."""
    repo, ran = tmp_path / "repo", tmp_path / "ran"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("f filter=x\n")
    (repo / "f").write_text("hi\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    tree, head = git(repo, "rev-parse", "HEAD^{tree}", "HEAD").split()
    signed = (f"tree {tree}\nparent {head}\nauthor a <a@a> 1 +0000\ncommitter a <a@a> 1 +0000\n"
              "gpgsig -----BEGIN PGP SIGNATURE-----\n x\n -----END PGP SIGNATURE-----\n\nsigned\n")
    commit = githardened.run(["-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
                             stdin=signed.encode())
    assert commit is not None and commit.returncode == 0
    git(repo, "update-ref", "refs/heads/main", commit.stdout.decode().strip())
    program = tmp_path / "gpg.sh"
    program.write_text(f"#!/bin/sh\necho gpg >> {ran}\nexit 1\n")
    program.chmod(0o755)
    git(repo, "config", "gpg.program", str(program))
    git(repo, "config", "log.showSignature", "true")
    git(repo, "config", "filter.x.clean", f"sh -c 'echo clean >> {ran}; cat'")
    os.utime(repo / ".git" / "index", (946684800, 946684800))  # older than every file: all racy

    logged = githardened.run(["-C", str(repo), "log", "--all", "--reflog", "--format=", "--name-only", "-z"])
    diffed = githardened.run(["-C", str(repo), "diff-files", "--name-only", "-z"])

    assert logged is not None and logged.returncode == 0 and diffed is not None and diffed.returncode == 0
    assert not ran.exists(), ran.read_text()
