"""Finding A3's rest: dotfiles keep keys out of ``~/.bashrc`` in a file it sources
(``. ~/.aliases``, the ``for file in ~/.{path,exports,aliases,functions,extra}`` loop,
``source $HOME/dotfiles/keys.sh``), and lftp (``open -u alice,PASS host``) and yt-dlp
(``--password PASS``) keep passwords in their rc files: a sandboxed command read them
all. Now they are hidden as the start-up files are, a sourced tool's init script with no
secret stays readable, and their values are in the values net (output and egress)."""

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

DEPLOY = "Dp83hdPq2LmXz7Rt"
LFTP = "Lf83hdPq2LmXz7Rt"
BASHRC = (
    "[ -f ~/.aliases ] && . ~/.aliases\n"
    'for file in ~/.{path,mysecrets}; do [ -r "$file" ] && source "$file"; done\n'
    'source "$HOME/dotfiles/keys.sh"\n'
    '. "$HOME/.nvm/nvm.sh"  # a tool\'s init script\n'
)
HIDDEN = {
    ".aliases": "alias ll='ls -l'  # marker-aliases\n"
    "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYzz83hdPq\n",
    ".mysecrets": f"# marker-mysecrets\nexport DEPLOY_TOKEN={DEPLOY}\n",
    "dotfiles/keys.sh": "# marker-keys\nexport OPENAI_API_KEY=sk-proj-Ok83hdPq2LmXz7RtOk83hdPq2LmXz7Rt\n",
    ".lftprc": f"# marker-lftp\nopen -u alice,{LFTP} ftp.example.com\n",
    ".config/yt-dlp/config": "# marker-ytdlp\n--username alice\n--password Yt83hdPq2LmXz7Rt\n",
}
PLAIN = {
    ".nvm/nvm.sh": "# marker-nvm\nnvm() { echo nvm; }\n",
    "dotfiles/readme.txt": "# marker-readme\nnot sourced\n",
    ".inputrc": "# marker-inputrc\nset editing-mode vi\n",
}


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-sourced-")


def _plant_all(home: Path) -> None:
    plant(home, [".bashrc"], lambda _: BASHRC)
    plant(home, list(HIDDEN), HIDDEN.__getitem__)
    plant(home, list(PLAIN), PLAIN.__getitem__)


async def test_sourced_dotfiles_and_lftp_and_ytdlp_configs_are_hidden(home: Path) -> None:
    require_sandbox()
    _plant_all(home)
    text = await cat_in_sandbox(home, [*HIDDEN, *PLAIN], then="grep -r 83hdPq . 2>/dev/null")
    for rel in HIDDEN:  # hidden whole: not even their harmless lines are seen
        marker = HIDDEN[rel].split("marker-", 1)[1].split()[0]
        assert f"marker-{marker}" not in text, (rel, text)
    assert "83hdPq" not in text, text
    for rel, content in PLAIN.items():  # a tool's init script, a file nothing sources: readable
        assert content.splitlines()[0] in text, (rel, text)
    assert "end" in text
    for rel, content in HIDDEN.items():  # the user's own files are untouched
        assert (home / rel).read_text() == content


async def test_their_values_are_redacted_from_a_copy_a_command_prints(home: Path) -> None:
    require_sandbox()
    _plant_all(home)
    (home / "project" / "notes.txt").write_text(f"deploy token {DEPLOY}, lftp {LFTP}\n")
    box = Sandbox(home / "project")
    result = await run_command("cat notes.txt", box.workspace, 30, lambda _: None, sandbox=box)
    assert DEPLOY not in result.text and LFTP not in result.text, result.text
    assert result.text.count("[REDACTED]") == 2, result.text


def test_an_allowed_fetch_carrying_a_sourced_files_key_asks(home: Path) -> None:
    _plant_all(home)
    rules, problems = parse_rules({"allow": ["fetch_url(domain:example.com)"]}, "user")
    assert not problems
    root = home / "project"
    policy = PermissionPolicy(root, user_rules=rules, user_config=home / "config.toml", mode="auto")
    policy.sandbox = Sandbox(root)
    fetch = next(t for t in builtin_tools(Workspace(root)) if t.name == "fetch_url")
    verdict = policy.decide(fetch, {"url": f"https://example.com/?q={DEPLOY}"})
    assert verdict.action == "ask" and ".mysecrets" in verdict.reason, verdict.reason
    lftp = policy.decide(fetch, {"url": f"https://example.com/?q={LFTP}"})
    assert lftp.action == "ask" and ".lftprc" in lftp.reason, lftp.reason


def test_what_counts_as_a_sourced_file(home: Path) -> None:
    """Only files under home the start-up files source: not /etc's, not a variable's,
    not a glob's, not a word in a comment; bounded however many a file names."""
    from shell.permissions.sourcedfiles import MAX_SOURCED, sourced_files

    many = "".join(f". ~/.many{n}\n" for n in range(MAX_SOURCED + 10))
    (home / ".zshrc").write_text(
        ". /etc/bash_completion\nsource $NVM_DIR/nvm.sh\n. ~/.d/*.sh\n# . ~/.commented\n"
        "if [ -f .localstuff ]; then . .localstuff; fi\n" + many
    )
    found = [p.name for p in sourced_files(home)]
    assert found[0] == ".localstuff" and ".commented" not in found, found
    assert len(found) == MAX_SOURCED, found
