"""Home's stores found by what they are rather than by a list of apps (tester round 13,
S9 and S16), against the real bubblewrap: a browser's profile under any name (a folder
holding ``Local State``/``Cookies``/``Login Data``), Telegram's session keys, podman's
registry logins, backup keys, mail clients, and editors' user MCP configs and
settings holding a password. A sandboxed command runs unasked in auto mode and its
output goes to the model's provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .home_setup import cat_in_sandbox, plant, sandbox_home

pytestmark = pytest.mark.anyio

STORES = [
    # browsers under names no list holds, found by their profile's shape
    ".config/newbrowser/Default/Login Data", ".config/microsoft-edge/Default/Cookies",
    ".config/vivaldi/Default/Cookies", ".config/opera/Cookies", ".config/google-chrome-beta/Default/Cookies",
    ".config/yandex-browser/Default/Login Data",
    ".var/app/com.microsoft.Edge/config/microsoft-edge/Default/Cookies",
    ".var/app/org.example.Browser/config/somebrowser/Default/Cookies",
    # Telegram's session keys, in home and its snap and flatpak homes
    ".local/share/TelegramDesktop/tdata/key_datas",
    "snap/telegram-desktop/current/.local/share/TelegramDesktop/tdata/key_datas",
    ".var/app/org.telegram.desktop/data/TelegramDesktop/tdata/key_datas",
    # registry logins, backup keys, chat apps, Steam, mail
    ".local/share/containers/auth.json", ".config/borg/keys/repo_key", ".config/restic/pw",
    ".config/Mattermost/Cookies", ".config/Wire/Cookies", ".local/share/Steam/config/loginusers.vdf",
    ".local/share/Steam/ssfn123", ".claws-mail/accountrc", ".local/share/evolution/mail/inbox",
    ".local/share/geary/account/geary.db", ".config/spotify/prefs",
    # editors' user MCP configs
    ".config/Code/User/mcp.json", ".config/Cursor/User/mcp.json", ".config/VSCodium/User/mcp.json",
]  # fmt: skip
PROFILE_MARKS = [
    ".config/newbrowser/Local State",
    ".var/app/org.example.Browser/config/somebrowser/Local State"]
SETTINGS_WITH_PASSWORDS = (
    '{"http.proxy": "http://user:LEAKproxyPw9911@proxy.corp:8080",\n'
    ' "sqltools.connections": [{"name": "prod", "password": "LEAKsqlToolsPw7788"}]}\n'
)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-homeshapes-")


async def test_browser_profiles_chat_backup_and_mail_stores_are_not_readable(home: Path) -> None:
    require_sandbox()
    plant(home, STORES, lambda rel: f"HOMESECRET-{rel}\n")
    plant(home, PROFILE_MARKS, lambda rel: "{}\n")
    plain = [".config/Code/User/settings.json", ".config/Cursor/User/keybindings.json",
             ".config/someapp/settings.json", ".local/share/containers/storage/info.txt"]
    plant(home, plain, lambda rel: f"PLAIN-{rel}\n")
    text = await cat_in_sandbox(home, STORES + plain)
    leaked = [rel for rel in STORES if f"HOMESECRET-{rel}" in text]
    assert leaked == [], text
    for rel in plain:  # settings without a password, and apps' other folders, stay readable
        assert f"PLAIN-{rel}" in text, text
    assert "end" in text


async def test_an_editors_settings_with_a_proxy_password_or_a_connection_password_are_hidden(
    home: Path,
) -> None:
    require_sandbox()
    rel = ".config/Code/User/settings.json"
    plant(home, [rel], lambda _: SETTINGS_WITH_PASSWORDS)
    text = await cat_in_sandbox(home, [rel], then="grep -rah LEAK ~/.config || true")
    assert "LEAK" not in text, text
    assert "end" in text
    assert (home / rel).read_text() == SETTINGS_WITH_PASSWORDS  # the user's file is untouched
