"""Finding N0 through the console script and bubblewrap: what git keeps of a hidden
``.env`` (a ``git stash -u`` entry, a blob staged then unstaged) is printed by a
command that runs (in ``auto`` a history reader now asks first: P6); the values
reach neither the model's side of the output (``--output-format jsonl``: every event,
tool results included) nor the session file, and the result says they were redacted,
not hidden."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.homes import made_home

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
STASHED = "pl41n-stashed-cli-5e4d3c2b1a"
DANGLING = "pl41n-dangling-cli-9f8e7d6c5b"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def test_stashed_and_unstaged_secret_files_are_redacted_from_git_output(
    run_cli: RunCli, script: Script, workspace: Path, tmp_path: Path
) -> None:
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    (workspace / ".env").write_text(f"DATABASE={STASHED}\n")
    git("stash", "-u")
    git("stash", "apply")
    (workspace / ".env.local").write_text(f"SERVICE_TOKEN={DANGLING}\nNODE_ENV=production\n")
    git("add", ".env.local")
    git("rm", "-q", "--cached", ".env.local")
    commands = ["git stash show -p --include-untracked",
                "git cat-file --batch-all-objects --batch | grep -a =",
                "cat a.txt; echo NODE_ENV=production"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in commands]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")  # in auto these ask (P6: below); the net is the second
    assert r.returncode == 0, r.stderr
    assert STASHED not in r.stdout and DANGLING not in r.stdout
    assert "+DATABASE=[REDACTED]" in r.stdout and "SERVICE_TOKEN=[REDACTED]" in r.stdout  # both ran
    assert "values of hidden secret files (.env" in r.stdout
    assert "hidden from this command" not in r.stdout
    assert '"content": "a\\nNODE_ENV=production\\n[exit code 0]' in r.stdout  # ordinary output, as it was
    sessions = [p for p in (tmp_path / "data").rglob("*") if p.is_file()]
    saved = b"".join(p.read_bytes() for p in sessions)
    assert b"SERVICE_TOKEN=[REDACTED]" in saved  # the session holds the results
    assert STASHED.encode() not in saved and DANGLING.encode() not in saved


def test_a_short_password_in_a_hidden_file_is_redacted_with_its_name(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """Finding P16: ``DB_PASSWORD=hunter2`` (shorter than a value redacted alone) printed
    in full from a loose blob of the hidden ``.env`` while its longer neighbours were
    redacted. Taken with its name, it is redacted where the file's line is printed, and
    an ordinary "hunter2" or "root" elsewhere in the output stays as it is."""
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / ".env").write_text("DB_PASSWORD=hunter2\nexport PGPASSWORD='root'\nDEBUG_AUTH=true\n")
    git("add", ".env")
    git("rm", "-q", "--cached", ".env")
    commands = ["git cat-file --batch-all-objects --batch | grep -a =", "echo hunter2 root"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in commands]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert "DB_PASSWORD=hunter2" not in r.stdout and "PGPASSWORD='root'" not in r.stdout
    assert "[REDACTED]\\nexport [REDACTED]'\\nDEBUG_AUTH=true" in r.stdout
    assert "2 values of hidden secret files (.env) were redacted" in r.stdout
    assert '"content": "hunter2 root\\n[exit code 0]' in r.stdout  # the words alone are no secret


REAL = "sk-proj-UNSTAGEDreal0123456789abcdef"


def test_history_readers_ask_in_auto_while_the_store_holds_a_hidden_env(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """Finding P6: the values net redacts a value printed as it is; reversed, re-cased or
    cut it passed (``| rev``, ``| tr a-z A-Z``, ``cut -c``). While the object store holds
    the hidden .env, git's history readers ask in auto; what reads no history still runs."""
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    readers = ["git cat-file --batch-all-objects --batch | rev",
               "for o in $(git fsck --unreachable --no-reflogs | cut -d' ' -f3); do git cat-file -p $o; done "
               "| tr a-z A-Z",
               "git log --all -p | cut -c1-30", "git stash show -p --include-untracked | rev"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in readers]}, "Done."]

    def run(calls: list[Any]) -> tuple[list[str], str]:
        r = run_cli("-p", "look around", "--model", script(calls), "--permission-mode", "auto",
                    "--approve", "never", "--output-format", "jsonl")
        assert r.returncode == 0, r.stderr
        assert REAL not in r.stdout
        done = [json.loads(e) for e in r.stdout.splitlines()]
        return [json.dumps(e.get("result")) for e in done if e.get("type") == "ToolExecutionEnd"], r.stdout

    first, _ = run(turns)
    # readers of the whole store ask always (finding C13: a dropped stash's .env has no name there)
    assert len(first) == 4 and all("was not run" in t for t in first[:2]), first
    assert all("[exit code" in t for t in first[2:]), "no .env in the store: the history readers run unasked"
    (workspace / ".env").write_text(f"OPENAI_API_KEY={REAL}\n")
    git("add", ".env")
    git("rm", "-q", "--cached", ".env")  # a loose blob now
    git("stash", "-u")
    git("stash", "apply")
    out, events = run(turns)
    assert len(out) == 4 and all("was not run" in result for result in out), out
    for hidden in (REAL[::-1], REAL.upper(), REAL[:16]):
        assert hidden not in events, hidden
    asked = [json.loads(e) for e in events.splitlines() if '"ApprovalRequested"' in e]
    assert len(asked) == 4 and all("the store holds the content of .env" in a["request"]["reason"]
                                   for a in asked), "each asked, naming the file"
    log = [{"tool_calls": [{"name": "run_shell", "args": {"command": "git log --oneline | rev"}}]}, "Ok."]
    [ordinary], _ = run(log)
    assert "tini" in ordinary and "[exit code 0]" in ordinary, "a command that prints no contents runs"


SMTP_PASS = "SmtpPassw0rdXyz" + "4f3e2d1c"
HOME_SMTP_PASS = "HomeSmtpPass" + "0a9b8c7d6e"
IMAP_PASS = "ImapPassw0rd" + "5e6f7a8b"


def test_send_email_and_imap_passwords_are_not_shown_from_any_git_config(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    """Finding Q16: ``sendemail.smtpPass`` (where git send-email's docs tell users to keep
    an app password) and ``imap.pass`` were printed by ``cat .git/config``, ``cat
    ~/.gitconfig`` and ``read_file``, while ``github.token`` beside them was hidden. Every
    key whose name says password, token or secret is taken out; git still reads the rest."""
    require_sandbox()
    home = made_home(".agent-shell-test-smtp-")
    try:
        cli_env["HOME"] = str(home)
        (home / ".gitconfig").write_text(f"[sendemail]\n\tsmtpPass = {HOME_SMTP_PASS}\n\tsmtpUser = me\n")
        ws = home / "ws"
        ws.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        with open(ws / ".git" / "config", "a") as fh:
            fh.write(f'[sendemail "work"]\n\tsmtpPass = "{SMTP_PASS}"\n[imap]\n\tpass = {IMAP_PASS}\n'
                     "[http]\n\tsslCertPasswordProtected = true\n")
        shown = "cat .git/config ~/.gitconfig; git config --list"
        calls = [{"name": "run_shell", "args": {"command": shown}},
                 {"name": "read_file", "args": {"path": ".git/config"}}]
        model = script([{"tool_calls": calls}, "Done."])
        args = ["-p", "go", "--model", model, "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json"]
        r = subprocess.run([sys.executable, "-m", "shell", *args], cwd=ws, env=cli_env, capture_output=True,
                           text=True, timeout=90, stdin=subprocess.DEVNULL, start_new_session=True)
        assert r.returncode == 0, r.stderr
        for secret in (SMTP_PASS, HOME_SMTP_PASS, IMAP_PASS):
            assert secret not in r.stdout, secret
        results = [m["content"] for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
        assert len(results) == 2 and all("smtpPass = [hidden-by-agent-shell]" in t for t in results), results
        assert "sendemail.smtpuser=me" in results[0]  # the rest as it was, read by git
        assert "sslcertpasswordprotected=true" in results[0]  # a boolean stays one git can read
        assert "[exit code 0]" in results[0]
    finally:
        shutil.rmtree(home, ignore_errors=True)
