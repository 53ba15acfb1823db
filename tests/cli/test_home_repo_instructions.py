"""Finding Q10 through the console script: with home kept as a git repository (dotfiles:
``git init`` in ``~``), an unpacked folder under it counted as part of that repository,
so its ``AGENTS.md`` could import ``../../.bashrc`` and ``../../.gitconfig`` into the
system prompt the provider receives, with no question. A project's imports now stay in
the folder agent-shell runs in (never a root holding home), and never reach home's dot
files, whatever the root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.recording_server import recording_server

BASHRC_KEY = "sk-proj-HOMEBASHRC" + "a1b2c3d4e5f6g7h8i9j0k1l2"
GITCONFIG_TOKEN = "ghp_" + "HOMEGITCONFIGTOKEN0123456789abcdefgh"


@pytest.fixture
def home(tmp_path: Path, cli_env: dict[str, str]) -> Path:
    """A home that is a git repository, with a key in .bashrc and a token in .gitconfig."""
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=home, check=True)
    (home / ".bashrc").write_text(f"export OPENAI_API_KEY={BASHRC_KEY}\nexport DB_PASS=hunter2hunter2\n")
    (home / ".gitconfig").write_text(f"[github]\n\ttoken = {GITCONFIG_TOKEN}\n")
    cli_env["HOME"] = str(home)
    return home


@pytest.fixture
def workspace(home: Path) -> Path:
    folder = home / "Downloads" / "evil"
    folder.mkdir(parents=True)
    return folder


def ask(cli_env: dict[str, str], cwd: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    """``agent-shell -p hello`` in ``cwd`` against a provider on 127.0.0.1."""
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f'[providers.openai]\nbase_url = "{base_url}/v1"\napi_key = "k"\n')
    r = subprocess.run([sys.executable, "-m", "shell", "-p", "hello", "--model", "openai:test-model",
                        "--no-session"], cwd=cwd, env=cli_env, capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL, start_new_session=True)
    assert r.returncode == 0, r.stderr
    return r


def test_a_folder_under_a_home_repository_imports_nothing_of_home(
    cli_env: dict[str, str], home: Path, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Use tabs.\n@../../.bashrc\n@../../.gitconfig\n@style.md\n")
    (workspace / "style.md").write_text("STYLE-IMPORTED: four spaces are wrong.\n")
    with recording_server() as server:
        stderr = ask(cli_env, workspace, server.base_url).stderr
    sent = json.dumps(server.requests)
    assert BASHRC_KEY not in sent and "hunter2hunter2" not in sent and GITCONFIG_TOKEN not in sent
    system = server.requests[0]["messages"][0]["content"]
    assert "Use tabs." in system and "STYLE-IMPORTED" in system  # the folder's own files still load
    assert "leads outside the repository" in stderr, stderr  # said, not silent


@pytest.mark.parametrize("name", [".bashrc", ".gitconfig", ".config/gh/notes.md"])
def test_instructions_in_home_itself_import_no_dot_file(
    cli_env: dict[str, str], home: Path, name: str
) -> None:
    """Run in home itself (the repository's root), a planted ``~/AGENTS.md`` still cannot
    reach home's dot files: the shells' start-up files, git's config, the dot folders
    tools keep tokens in (a name that is not secret-looking too)."""
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "notes.md").write_text(f"oauth_token: {GITCONFIG_TOKEN}\n")
    (home / "AGENTS.md").write_text(f"Be brief.\n@{name}\n")
    with recording_server() as server:
        r = ask(cli_env, home, server.base_url)
    sent = json.dumps(server.requests)
    assert BASHRC_KEY not in sent and GITCONFIG_TOKEN not in sent
    assert "Be brief." in server.requests[0]["messages"][0]["content"]
    assert "tools' tokens live there" in r.stderr, r.stderr
