"""Home's credential stores where the list of home's stores did not look (tester round
11: Q3, Q24, Q25, Q29), against the real bubblewrap: snap's and flatpak's app homes
(Ubuntu's Firefox is a snap), the local history of every VS Code-like editor and of
JetBrains IDEs, secret managers' CLIs, and the files the user's environment points at."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from shell.core.secretcontent import RACY_NS

from ..sandboxing import require_sandbox
from .home_setup import cat_in_sandbox, plant, sandbox_home

pytestmark = pytest.mark.anyio

APP_STORES = [
    # snaps: a snap's $HOME is ~/snap/<app>/<revision>; Firefox's and Chromium's profiles are in common/
    "snap/firefox/common/.mozilla/firefox/ab12.default/logins.json",
    "snap/chromium/common/chromium/Default/Cookies",
    "snap/slack/123/.config/Slack/Cookies",
    "snap/code/150/.config/Code/User/History/-1a2b/Xy1Z.env",
    # flatpaks: ~/.var/app/<id> with config/, data/ and cache/ for ~/.config, ~/.local/share, ~/.cache
    "var-app/org.mozilla.firefox/.mozilla/firefox/cd34.default/logins.json",
    "var-app/com.slack.Slack/config/Slack/Cookies",
    "var-app/com.discordapp.Discord/config/discord/Local Storage/leveldb/000003.log",
]
EDITOR_HISTORIES = [
    ".config/Code - Insiders/User/History/-1a2b/Xy1Z.env",
    ".config/Windsurf/User/History/-3c4d/Xy1Z.env",
    ".config/Trae/User/globalStorage/state.vscdb",
    ".local/share/code-server/User/History/-5e6f/Xy1Z.env",
    ".vscode-server-insiders/data/User/History/-7a8b/Xy1Z.env",
    ".windsurf-server/data/User/History/-9c0d/Xy1Z.env",
    ".cache/JetBrains/PyCharm2024.2/LocalHistory/changes.storageData",
]
MANAGERS = [
    ".doppler/.doppler.yaml", ".infisical/infisical-config.json",
    ".cloudflared/6ff42ae2-765d-4adf-8112-31c55c1551ef.json", ".bunfig.toml", ".config/pnpm/rc",
]


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-appstores-")


def _rels(rels: list[str]) -> list[str]:
    return [r.replace("var-app/", ".var/app/") for r in rels]


async def test_snap_and_flatpak_profiles_editor_histories_and_secret_managers_are_not_readable(
    home: Path,
) -> None:
    require_sandbox()
    stores = _rels(APP_STORES + EDITOR_HISTORIES + MANAGERS)
    plant(home, stores, lambda rel: f"APPSECRET-{rel}\n")
    plain = ["snap/firefox/common/notes.txt", ".var/app/org.gimp.GIMP/config/GIMP/gimprc",
             ".config/Code - Insiders/User/settings.json", ".local/share/applications/x.desktop"]
    plant(home, plain, lambda rel: f"PLAIN-{rel}\n")
    text = await cat_in_sandbox(home, stores + plain, then="grep -rh APPSECRET ~/snap ~/.var 2>/dev/null")
    leaked = [rel for rel in stores if f"APPSECRET-{rel}" in text]
    assert leaked == [], text
    for rel in plain:  # an app's own settings stay readable
        assert f"PLAIN-{rel}" in text, text
    assert "end" in text
    for rel in stores:  # the user's own files are untouched
        assert (home / rel).read_text() == f"APPSECRET-{rel}\n"


async def test_files_the_environment_points_at_are_hidden_and_the_variables_not_passed(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    pointed = {
        "GOOGLE_APPLICATION_CREDENTIALS": "work/gcp/my-proj-123456-abcdef123456.json",
        "SOPS_AGE_KEY_FILE": "work/age.txt",
        "PGPASSFILE": "work/pgpass.conf",
        "ELASTIC_PASSWORD_FILE": "work/elastic.txt",
    }
    plant(home, [*pointed.values(), "work/kube/prod.yaml", "work/kube/dev.yaml"],
          lambda rel: f"POINTED-{rel}\n")
    for name, rel in pointed.items():
        monkeypatch.setenv(name, str(home / rel))
    monkeypatch.setenv("KUBECONFIG", f"{home}/work/kube/prod.yaml:~/work/kube/dev.yaml")
    plant(home, ["work/notes.txt"], lambda rel: f"PLAIN-{rel}\n")
    rels = [*pointed.values(), "work/kube/prod.yaml", "work/kube/dev.yaml", "work/notes.txt"]
    text = await cat_in_sandbox(home, rels, then='env | grep -ic "kube\\|sops\\|google\\|pgpass\\|elastic"')
    assert "POINTED-" not in text, text
    assert "PLAIN-work/notes.txt" in text, text
    assert "\n0\n" in text, text  # none of the variables reaches the command
    assert "end" in text


async def test_settings_files_in_dot_folders_that_set_a_token_are_hidden_whatever_their_names(
    home: Path,
) -> None:
    require_sandbox()
    secret = {
        ".newcli/config.yaml": "profile: work\napi_token: nc_0123456789abcdef\n",
        ".config/othertool/state.json": '{"LoggedInUserToken": "eyJhbGciOiJIUzI1NiJ9"}\n',
        ".mytool.toml": '[auth]\ntoken = "mt-0123456789abcdef"\n',
    }
    plain = {
        ".newcli/settings.yaml": "theme: dark\ntoken_url: https://auth.example.com/token\n",
        ".config/othertool/ui.json": '{"token": "", "passwordMinLength": 8}\n',
    }
    for rel, content in {**secret, **plain}.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(content)
    text = await cat_in_sandbox(home, [*secret, *plain])
    for value in ("nc_0123456789abcdef", "eyJhbGciOiJIUzI1NiJ9", "mt-0123456789abcdef"):
        assert value not in text, text
    assert "theme: dark" in text and "passwordMinLength" in text and "end" in text, text


async def test_a_token_written_into_a_settings_file_in_place_is_hidden_from_the_next_command(
    home: Path,
) -> None:
    """The look through home's dot folders is kept while no folder it read changed; a tool
    writing its token into its ``state.json`` in place (same size, mtime put back) changes no
    folder: the file's own ctime says it changed (r19)."""
    require_sandbox()
    state = home / ".config" / "othertool" / "state.json"
    state.parent.mkdir(parents=True)
    token = '{"LoggedInUserToken": "eyJhbGciOiJIUzI1NiJ9"}'
    state.write_text('{"theme": "dark-PLAIN-STATE"}'.ljust(len(token) + 8) + "\n")
    await anyio.sleep(RACY_NS / 1e9)  # a verdict on a file changed just now is not kept
    assert "dark-PLAIN-STATE" in await cat_in_sandbox(home, [".config/othertool/state.json"])
    _write_in_place(state, token)
    text = await cat_in_sandbox(home, [".config/othertool/state.json"])
    assert "eyJhbGciOiJIUzI1NiJ9" not in text and "end" in text, text


def _write_in_place(path: Path, text: str) -> None:
    """``text`` over the start of ``path``: same size, same inode, its mtime put back."""
    before = path.stat()
    with open(path, "r+b") as fh:
        fh.write(text.encode())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
