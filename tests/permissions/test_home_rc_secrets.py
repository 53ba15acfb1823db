"""Finding A3: download and mail tools' rc files in home hold passwords in plain
``key value`` lines (``~/.wgetrc``'s ``http_password``, ``~/.curlrc``'s ``user =
"name:password"`` and ``oauth2-bearer``, ``~/.mailrc``'s ``smtp-auth-password``,
``~/.esmtprc``'s ``password``), and an unasked sandboxed command printed them. Now they
are hidden like ``~/.netrc``, an unknown tool's extension-less rc file setting a secret
is too, and their values are in the values net (output and egress)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.shell_cmd import run_command
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .home_setup import cat_in_sandbox, plant, sandbox_home

pytestmark = pytest.mark.anyio

WGET_PW = "Wg83hdPq2LmXz7Rt"
RC_FILES = {
    ".curlrc": 'user = "alice:Wk83hdPq2LmXz7Rt"\noauth2-bearer = "Bq7Xk2Lm9Pz4Rt8Wv3Nc6Hd5Jf1Gs0Ye"\n',
    ".wgetrc": f"http_user = alice\nhttp_password = {WGET_PW}\n",
    ".mailrc": "set smtp-auth-user=alice\nset smtp-auth-password=Ml83hdPq2LmXz7Rt\n",
    ".esmtprc": "identity default\n  username = alice\n  password = Es83hdPq2LmXz7Rt\n",
    # tools nobody listed: an rc file with no extension setting a key named for a secret
    ".newtoolrc": "color = auto\napi_token = Nt83hdPq2LmXz7Rt\n",
    ".config/newtool/config": "verbose yes\npassword Cf83hdPq2LmXz7Rt\n",
    ".config/othertool/credentials-store": "-u alice:Ou83hdPq2LmXz7Rt\n",
}
PLAIN = {
    ".inputrc": "set editing-mode vi\nset bell-style none\n",
    ".config/newtool/settings": "color = auto\npassword_prompt = yes\n",
    ".gitconfig": "[user]\n\tname = Alice\n",
    ".config/i3/config": "set $mod Mod4\nbindsym $mod+Return exec i3-sensible-terminal\n",
}


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-homerc-")


async def test_rc_files_with_passwords_are_hidden_and_plain_rc_files_stay_readable(home: Path) -> None:
    require_sandbox()
    plant(home, list(RC_FILES), RC_FILES.__getitem__)
    plant(home, list(PLAIN), PLAIN.__getitem__)
    text = await cat_in_sandbox(home, [*RC_FILES, *PLAIN], then="grep -r 83hdPq . 2>/dev/null")
    assert "83hdPq" not in text, text
    for rel, content in PLAIN.items():  # shells', editors' and git's settings stay readable
        assert content.splitlines()[0] in text, (rel, text)
    assert "end" in text
    for rel, content in RC_FILES.items():  # the user's own files are untouched
        assert (home / rel).read_text() == content


async def test_an_rc_files_values_are_redacted_from_a_copy_a_command_prints(home: Path) -> None:
    require_sandbox()
    plant(home, [".wgetrc"], RC_FILES.__getitem__)
    (home / "project" / "notes.txt").write_text(f"the wget password was {WGET_PW}\n")
    box = Sandbox(home / "project")
    result = await run_command("cat notes.txt", box.workspace, 30, lambda _: None, sandbox=box)
    assert WGET_PW not in result.text and "[REDACTED]" in result.text, result.text


def test_an_allowed_fetch_carrying_an_rc_files_password_asks(home: Path) -> None:
    plant(home, [".wgetrc"], RC_FILES.__getitem__)
    rules, problems = parse_rules({"allow": ["fetch_url(domain:example.com)"]}, "user")
    assert not problems
    root = home / "project"
    policy = PermissionPolicy(root, user_rules=rules, user_config=home / "config.toml", mode="auto")
    policy.sandbox = Sandbox(root)
    fetch = next(t for t in builtin_tools(Workspace(root)) if t.name == "fetch_url")
    verdict = policy.decide(fetch, {"url": f"https://example.com/?q={WGET_PW}"})
    assert verdict.action == "ask" and ".wgetrc" in verdict.reason, verdict.reason
    assert policy.decide(fetch, {"url": "https://example.com/?q=qwertyuiopasdf"}).action == "allow"
