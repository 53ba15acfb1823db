"""Names that stand for a secret file's name (tester round 11, Q12): chezmoi's source
names, yadm's alternates, file managers' duplicates, and a few spellings the list missed.
What the one list calls secret the sandbox shows empty (real bubblewrap here) and
read_file asks about; copies of ordinary files stay readable."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.core.secrets import is_secret_file
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

SECRET = [
    "private_dot_netrc", "dot_env", "dot_env.tmpl", "private_dot_ssh/private_id_ed25519",
    "private_dot_config/gh/private_hosts.yml", "encrypted_private_dot_env.age", ".env##os.Linux",
    ".env##default", ".env copy", ".env copy 2", ".env (copy)", ".env (another copy)", ".env (1)",
    ".env - Copy", "Copy of .env", "credentials copy.json", "id_rsa (1)", "kubeconfig.yaml",
    "docker/.dockerconfigjson", "sa.json", "values-secret.yaml", "group_vars/all/vault.yml",
    "appsettings.Production.json",
]  # fmt: skip
ORDINARY = [
    "run_tests.sh", "dot_bashrc", "dot_gitconfig", "executable_deploy.sh", "private_notes.md",
    "README copy.md", "notes (1).txt", "Copy of report.pdf", "main##os.Linux.py",
]  # fmt: skip


def test_chezmoi_yadm_and_file_manager_copies_of_secret_names_are_secret_looking() -> None:
    assert [n for n in SECRET if not is_secret_file(n)] == []
    assert [n for n in ORDINARY if is_secret_file(n)] == []


@pytest.fixture
def ws() -> Iterator[Path]:
    base = made_home("agent-shell-test-copy-names-")
    root = base / "project"
    for rel in SECRET + ORDINARY:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"CONTENT-{rel}\n")
    try:
        yield root
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def test_a_sandboxed_command_in_a_chezmoi_source_folder_reads_them_empty(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    script = "grep -rh CONTENT- . ; echo end"
    result = await run_command(script, box.workspace, 30, lambda _: None, sandbox=box)
    assert [n for n in SECRET if f"CONTENT-{n}\n" in result.text] == [], result.text
    assert [n for n in ORDINARY if f"CONTENT-{n}\n" not in result.text] == [], result.text
