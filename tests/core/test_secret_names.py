"""Which file names the one secrets policy calls secret-looking (finding N6): a dated
copy of a secret file, as VS Code's Local History keeps every saved version in the
workspace's ``.history/``, and the history files REPLs, editors and agents leave in the
folder they ran in. Ordinary names, dated or not, stay readable."""

from __future__ import annotations

from shell.core.secrets import is_secret_file, secret_file_why
from shell.permissions.secretwords import named_secret_files

DATED_COPIES = [
    ".history/.env_20261129101500", ".history/.env_20261129101500.local", ".history/id_rsa_20261129101500",
    ".history/config/credentials_20261129101500.json", ".history/auth_20261129101500.json",
    ".history/deploy/server_20261129101500.pem", ".env_20261129", ".history/.env_20261129101500.production~",
    ".history/.ENV_20261129101500",
]
HISTORIES = [
    ".aider.input.history", ".aider.chat.history.md", ".node_repl_history", ".rediscli_history",
    ".sqlite_history", ".viminfo", ".lesshst", ".Rhistory", ".irb_history", ".gdb_history", ".dbshell",
    ".mycli-history", ".julia_history", "sub/.python_history",
]
ORDINARY = [
    "README.md", "history.md", "HISTORY.rst", "CHANGELOG.md", "src/history.py", "browser_history.py",
    "src/history/index.ts", ".history", "docs/.history", "report_20261129101500.json",
    ".history/src/app_20261129101500.py", ".history/README_20261129101500.md", "build_20261129.log",
    "migrations/0001_20261129101500.py", "notes_20261129.txt", "snapshot_20261129101500.png",
    ".history/.env_20261129101500.example", ".history/id_ed25519_20261129101500.pub", ".env.example",
    ".history/keyboard_20261129101500.py", "environment_20261129.py", ".historyrc", "_history",
    ".gitignore", "package-lock.json", "pyproject.toml", ".envrc.example", "tokenizer_20261129101500.py",
]


def test_dated_copies_of_secret_files_are_secret_looking() -> None:
    for path in DATED_COPIES:
        assert is_secret_file(path), path
    assert secret_file_why(".history/id_rsa_20261129101500") == "an SSH private key"
    assert secret_file_why(".history/.env_20261129101500") == "API keys and passwords"


def test_history_files_left_in_the_workspace_are_secret_looking() -> None:
    for path in HISTORIES:
        assert is_secret_file(path), path
    assert "typed" in secret_file_why(".aider.input.history")


def test_ordinary_names_dated_or_not_stay_readable() -> None:
    for path in ORDINARY:
        assert not is_secret_file(path), path


def test_a_command_line_naming_one_is_caught() -> None:
    """The command-line check's quick filter (names' pieces) lets these through to the rule."""
    assert named_secret_files("cat .history/.env_20261129101500") == [".history/.env_20261129101500"]
    assert named_secret_files("cat auth_20261129101500.json") == ["auth_20261129101500.json"]
    line = "tail .aider.chat.history.md .viminfo"
    assert named_secret_files(line) == [".aider.chat.history.md", ".viminfo"]
    assert named_secret_files("cat report_20261129101500.json history.md") == []
