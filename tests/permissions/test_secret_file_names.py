"""The names the one list of secret-looking files must know (tester round 9, N4 and N9):
vim's swap and undo files and GNU numbered backups of *every* secret name, and the
common names people keep passwords and tokens under. What the list calls secret,
read_file asks about, grep leaves out, the @ picker does not offer and the sandbox
shows empty; what it must not call secret (code and documents named for what they
handle, environment variables on a command line) stays readable and unasked."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.core import secrets
from shell.core.secrets import is_secret_file, secret_file_why
from shell.permissions.policy import PermissionPolicy
from shell.permissions.sandbox import Sandbox, will_sandbox
from shell.permissions.secretwords import named_secret_files
from shell.tools.builtin import builtin_tools
from shell.tools.shell_cmd import run_command
from shell.tools.workspace import Workspace
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

KEY = "sk_live_HIDDENKEY0123456789abcdef"


def _every_secret_name() -> list[str]:
    names = [*secrets._SECRET_FILE_NAMES, *secrets._PRIVATE_KEYS, ".env.local", ".env.production"]
    return names + [f"prod{suffix}" for suffix in secrets._SECRET_FILE_SUFFIXES]


def test_vim_swap_and_undo_files_of_every_secret_name_are_secret_looking() -> None:
    """vim keeps the whole buffer in ``.NAME.swp`` (``.swo``… when one is there, ``.swx``)
    and every change in ``.NAME.un~``; only a few names were caught (``..env.swp`` as
    ``.env`` plus ``.swp``), so ``find -name '*.swp' -exec strings {} +`` printed a
    ``.env.local``'s key unasked in auto."""
    for name in _every_secret_name():
        for copy in (f".{name}.swp", f".{name}.swo", f".{name}.swa", f".{name}.swx", f".{name}.un~",
                     f"%home%me%project%{name}.swp"):
            assert is_secret_file(f"/ws/{copy}"), copy
    for copy in ("..env.local.swp", "..env.swx", "..envrc.swp", "..envrc.swo", ".id_rsa.swp", "..env.un~",
                 "..netrc.un~", "..npmrc.swp", "..pgpass.swp", "..git-credentials.swp", ".id_ed25519.swp",
                 "..ENV.LOCAL.SWP"):
        assert is_secret_file(f"/ws/{copy}"), copy
    assert "API keys and passwords" in secret_file_why("/ws/..env.local.swp")


def test_gnu_numbered_backups_of_secret_files_are_secret_looking() -> None:
    """``cp --backup=numbered`` and Emacs keep ``NAME.~1~`` (``NAME~1~`` in some tools)."""
    for name in _every_secret_name():
        for copy in (f"{name}.~1~", f"{name}.~12~", f"{name}~2~"):
            assert is_secret_file(f"/ws/{copy}"), copy


def test_copies_of_ordinary_files_stay_readable() -> None:
    """The editors'-copies rule says what the original says: a template's or a public
    key's swap file, or a source file's, is not secret."""
    for copy in (".notes.swp", ".vimrc.swp", "..env.example.swp", ".env.example.~1~", ".id_rsa.pub.swp",
                 "main.py.un~", ".main.py.un~", "README~1~", "README.md.~3~", "config.swp", ".swp", "..swp"):
        assert not is_secret_file(f"/ws/{copy}"), copy


N9_SECRETS = (
    "db_password.txt", "secrets/db_password.txt", "docker/secrets/postgres_password", "password.txt",
    "passwords.txt", "secret.txt", "secrets.txt", ".vault_pass", "vault_pass.txt", ".vault_pass.txt",
    ".vault-password", "github_token", "api_token", ".token", ".password", "openai_key.txt", "api_key",
    "db_password", "cookies.txt", "http-client.private.env.json",
    ".idea/httpRequests/http-client.private.env.json", ".idea/workspace.xml", ".env-production", ".env_prod",
    "DB_PASSWORD.TXT",
)
ORDINARY = (
    # code, styles and documents named for what they handle: a project's own files
    "password_reset.py", "token.go", "tokens.css", "passwords.md", "secrets.md", "token_test.go",
    "password-strength.ts", "secret_scanner.rs", "docs/tokens.rst",
    # a tokenizer's vocabulary and configs (every model folder has them)
    "tokens.txt", "special_tokens_map.json", "tokenizer.json", "added_tokens.json", "vocab.txt",
    # bare words and scripts: as often a command's word as a file (`kubectl get secrets`)
    "token", "secret", "secrets", "password", "reset-password", "rotate-token",
    # an environment variable, as a command line writes one, is not a file name
    "GITHUB_TOKEN", "DB_PASSWORD", "$GITHUB_TOKEN",
    # JetBrains' shared files, and workspace.xml outside .idea
    ".idea/misc.xml", ".idea/modules.xml", "workspace.xml", "http-client.env.json",
    ".env-example", ".env_sample", ".env-template",
)


def test_common_names_for_passwords_and_tokens_are_secret_looking_and_ordinary_ones_are_not() -> None:
    """Docker Compose's own example (``secrets/db_password.txt``), Ansible's vault password
    file, a ``github_token``, curl's cookie jar, JetBrains HTTP Client's private
    environment and the IDE's ``workspace.xml`` (run configurations keep env vars such as
    ``OPENAI_API_KEY``; JetBrains keeps it out of git) were read unasked. ``passwords.md``
    stays readable: documents describe passwords, a file of them is plain text (``.txt``
    or no extension)."""
    for name in N9_SECRETS:
        assert is_secret_file(f"/ws/{name}"), name
    for name in ORDINARY:
        assert not is_secret_file(f"/ws/{name}"), name
    assert "run configurations" in secret_file_why("/ws/.idea/workspace.xml")


def test_a_command_asks_for_these_names_but_not_for_variables_or_identifiers() -> None:
    """``cat db_password.txt`` in auto asks (a file outside the workspace is not hidden);
    ``GITHUB_TOKEN=… gh api`` and ``$DB_PASSWORD`` name variables, and ``grep -rn api_token
    src`` an identifier: they run as the mode says (in the workspace, the sandbox hides a
    file named ``api_token`` whatever the command line says)."""
    for name in ("db_password.txt", "..env.local.swp", "./github_token", "/run/secrets/db_password",
                 ".idea/workspace.xml", ".envrc.~1~", ".token", "id_rsa"):
        assert named_secret_files(f"strings {name}") == [name], name
    for command in ("GITHUB_TOKEN=x gh api user", "echo $DB_PASSWORD", "export API_KEY=$(pass show k)",
                    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com',
                    "kubectl get secrets", "docker secret ls", "go test ./token/...",
                    "grep -rn api_token src", "git log -S refresh_token", "rg db_password ."):
        assert named_secret_files(command) == [], command
    assert is_secret_file("/ws/api_token") and is_secret_file("api_token")  # as a file, it is one


@pytest.fixture
def ws() -> Iterator[Path]:
    base = made_home("agent-shell-test-secret-names-")
    root = base / "project"
    (root / ".idea").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / "..env.local.swp").write_bytes(b"b0VIM 9.0\0\0STRIPE=" + KEY.encode() + b"-swap\n")
    (root / ".envrc.~1~").write_text(f"export K={KEY}-numbered\n")
    (root / "secrets" / "db_password.txt").write_text(f"{KEY}-compose\n")
    (root / ".idea" / "workspace.xml").write_text(f'<env name="OPENAI_API_KEY" value="{KEY}-idea"/>\n')
    (root / "http-client.private.env.json").write_text(f'{{"dev": {{"token": "{KEY}-http"}}}}\n')
    (root / "password_reset.py").write_text("def reset(): ...  # plain code\n")
    try:
        yield root
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_default_mode_asks_before_read_file_sends_them_to_the_provider(ws: Path) -> None:
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, mode="default", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    read = {t.name: t for t in builtin_tools(Workspace(ws), sandbox=box)}["read_file"]
    for name in ("..env.local.swp", ".envrc.~1~", "secrets/db_password.txt", ".idea/workspace.xml",
                 "http-client.private.env.json"):
        verdict = policy.decide(read, {"path": name})
        assert verdict.action == "ask" and "usually holds secrets" in verdict.reason, name
    assert policy.decide(read, {"path": "password_reset.py"}).action == "allow"


async def test_a_sandboxed_command_reads_a_vim_swap_file_of_env_local_as_empty(ws: Path) -> None:
    """The finding's repro, against the real bubblewrap: auto ran it unasked and printed
    the key in full."""
    require_sandbox()
    box = Sandbox(ws)
    command = ("find . -maxdepth 1 -name '*.swp' -exec strings {} +; cat .envrc.~1~ secrets/* .idea/*; "
               "cat http-client.private.env.json password_reset.py; echo end")
    result = await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)
    assert KEY not in result.text, result.text
    assert "plain code" in result.text and "end" in result.text
    assert result.details["hidden_secret_files"] == 5
