"""What the user cannot open gets no mount in the sandbox (each mount makes every
command's set-up slower: shell.permissions.unreachable), and everything else still does."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from tests.homes import made_home


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = made_home(".agent-shell-test-unreachable-")
    (base / ".netrc").write_text("machine example.org password hunter22\n")
    (base / ".ssh").mkdir()
    (base / ".ssh" / "id_ed25519").write_text("PRIVATE KEY MATERIAL\n")
    (base / "project").mkdir()
    (base / "project" / "private.txt").write_text("hidden by [sandbox] hide\n")
    monkeypatch.setenv("HOME", str(base))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def closed_to_the_user(closed: set[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's permissions as the kernel would answer them for another account
    (the tests run as root, whom os.access answers yes for every path)."""
    real = os.access

    def access(path: str, mode: int) -> bool:
        return False if Path(path) in closed else real(path, mode)

    monkeypatch.setattr(os, "access", access)


def test_a_path_the_user_cannot_open_needs_no_mount_but_one_they_can_does(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = Sandbox(home / "project", hidden=["private.txt"])
    netrc, ssh, private = home / ".netrc", home / ".ssh", home / "project" / "private.txt"
    before = box.hidden_paths()
    assert {netrc, ssh, private} <= set(before)
    closed_to_the_user({netrc, private}, monkeypatch)
    after = box.hidden_paths()
    assert netrc not in after  # the kernel refuses it to the command as to the user
    assert ssh in after  # open to the user: hidden as before
    assert private in after  # in the workspace the command could chmod it: hidden whatever its mode
    argv = box.wrap(["true"], hidden=after)
    assert str(netrc) not in argv and str(ssh) in argv and str(private) in argv


def test_a_folder_the_user_may_enter_but_not_list_is_still_hidden(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ssh = home / ".ssh"
    real = os.access
    def access(path: str, mode: int) -> bool:
        return mode == os.X_OK if Path(path) == ssh else real(path, mode)

    monkeypatch.setattr(os, "access", access)
    assert ssh in Sandbox(home / "project").hidden_paths()  # a known name still opens in it
