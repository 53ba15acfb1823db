"""Credential stores and histories in the home directory that a sandboxed command
(unasked in auto mode, its output sent to the model's provider) must not read, against
the real bubblewrap: shell and REPL histories, mail clients' passwords, tools' tokens
under harmless names, chat apps' cookies, a ``.env`` right in home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .home_setup import cat_in_sandbox, plant, sandbox_home

pytestmark = pytest.mark.anyio

STORES = [
    # histories
    ".local/share/fish/fish_history", ".local/share/atuin/history.db", ".sqlite_history", ".rediscli_history",
    ".dbshell", ".mongoshrc.js", ".irb_history", ".ipython/profile_default/history.sqlite",
    ".duckdb_history", ".config/nushell/history.txt", ".octave_hist",
    # mail
    ".authinfo", ".msmtprc", ".mbsyncrc", ".fetchmailrc", ".muttrc", ".config/aerc/accounts.conf",
    # tools' tokens under harmless names
    ".kaggle/kaggle.json", ".dbt/profiles.yml", ".config/pip/pip.conf", ".circleci/cli.yml", ".wakatime.cfg",
    ".expo/state.json", ".smbcredentials", ".config/filezilla/sitemanager.xml", ".weechat/sec.conf",
    # Electron apps and editors
    ".config/Slack/Cookies", ".config/Code/User/globalStorage/state.vscdb",
    ".vscode-server/data/User/globalStorage/state.vscdb",
    ".config/Code/User/workspaceStorage/1a2b/state.vscdb",
    ".config/JetBrains/IntelliJIdea2024.1/c.pwd", ".config/JetBrains/IntelliJ2024/github_settings.xml",
    ".config/sourcegraph/config.json",
    # a .env right in home
    ".env",
]  # fmt: skip


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-homesecrets-")


async def test_histories_mail_passwords_and_tool_tokens_in_home_are_not_readable(home: Path) -> None:
    require_sandbox()
    plant(home, STORES, lambda rel: f"HOMESECRET-{rel}\n")
    plain = [".config/pip/README", ".config/Code/User/settings.json", ".inputrc"]
    plant(home, plain, lambda rel: f"PLAIN-{rel}\n")
    text = await cat_in_sandbox(home, STORES + plain)
    leaked = [rel for rel in STORES if f"HOMESECRET-{rel}" in text]
    assert leaked == [], text
    for rel in plain:  # editors' and tools' settings stay readable
        assert f"PLAIN-{rel}" in text, text
    assert "end" in text
    for rel in STORES:  # the user's own files are untouched
        assert (home / rel).read_text() == f"HOMESECRET-{rel}\n"


MORE_STORES = [
    # in ~/.local, by the name rule: opencode's keys, XDG zsh history, an unknown tool's keys
    ".local/share/opencode/auth.json", ".local/state/zsh/history", ".local/share/newtool/keys.json",
    ".local/state/othertool/token", ".local/state/lesshst", ".local/share/Trash/files/.env",
    # model tools' keys under harmless names
    ".config/io.datasette.llm/keys.json", ".config/aichat/config.yaml", ".config/mods/mods.yml",
    ".config/shell_gpt/.sgptrc", ".config/gptme/config.toml", ".config/crush/crush.json",
    ".codeium/config.json", ".config/goose/config.yaml", ".tabnine/tabnine_config.json",
    # a mail client, password managers, services and VPN clients
    ".thunderbird/abc.default-release/logins.json", ".lpass/session", ".config/openstack/clouds.yaml",
    ".mc/config.json", ".talos/config", ".config/openvpn/work.ovpn", ".config/syncthing/config.xml",
    ".local/state/syncthing/config.xml", ".twilio-cli/config.json",
    ".config/obs-studio/basic/profiles/Untitled/service.json",
    # browsers' caches and an editor's local history of a project's .env
    ".cache/google-chrome/Default/Cache/Cache_Data/f_000001",
    ".cache/mozilla/firefox/x.default/cache2/entries/A1",
    ".config/Code/User/History/-4f2a/Xy1.env",
    # MySQL's login paths, Gitea's tea, Railway, Render, jira CLIs, conda's channel tokens (finding L12)
    ".mylogin.cnf", ".config/tea/config.yml", ".config/railway/config.json", ".render/cli.yaml",
    ".config/jira/.config.yml", ".jira.d/config.yml", ".condarc",
    # found by verifying L12: Ansible vault passwords, nix/cachix tokens, cloud CLIs, SVN, CVS, lftp, pgAdmin,
    # API clients, notes, a torrent client's web password
    ".vault_pass.txt", ".ansible/vault_pass", ".config/nix/nix.conf", ".config/cachix/cachix.dhall",
    ".scw/config.yaml", ".aliyun/config.json", ".vultr-cli.yaml", ".subversion/auth/svn.simple/abc",
    ".cvspass", ".lftp/bookmarks", ".pgadmin/pgadmin4.db", ".config/Postman/x.json", ".insomnia/x.json",
    ".config/joplin-desktop/database.sqlite", ".config/qBittorrent/qBittorrent.conf",
]  # fmt: skip


async def test_model_tools_keys_and_what_lies_in_local_are_not_readable(home: Path) -> None:
    require_sandbox()
    plant(home, MORE_STORES, lambda rel: f"HOMESECRET-{rel}\n")
    plain = [".local/share/applications/editor.desktop", ".local/state/tool/layout.json", ".local/bin/tool"]
    plant(home, plain, lambda rel: f"PLAIN-{rel}\n")
    text = await cat_in_sandbox(home, MORE_STORES + plain)
    leaked = [rel for rel in MORE_STORES if f"HOMESECRET-{rel}" in text]
    assert leaked == [], text
    for rel in plain:  # what apps keep in ~/.local stays readable
        assert f"PLAIN-{rel}" in text, text
    assert "end" in text
