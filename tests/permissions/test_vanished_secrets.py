"""A secret file that is missing when the walk lists its folder and back when the
command reads it, against the real bubblewrap (finding W5).

A tool that deletes its credentials file and writes it again leaves a moment with no
file: a walk in that moment listed no ``.env``, nothing was bound over it, and the
command that followed printed the key in full, in another project under home and in
the workspace alike. The file is deleted just before the walk and written again (with
a new key, so the values net of the listing before cannot be what hides it) just after,
by a hook on the walk: no timing race."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions import secretfiles
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .home_setup import plant, sandbox_home

pytestmark = pytest.mark.anyio
OLD = "sk-proj-OLDKEY0123456789abcdefOLD"
NEW = "sk-proj-NEWKEY0123456789abcdefNEW"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-vanished-")


def flap_around_the_next_walk(monkeypatch: pytest.MonkeyPatch, secret: Path) -> list[bool]:
    """Delete ``secret`` before the next search of the roots holding it and write it
    again (holding :data:`NEW`) right after; once. The list says whether it happened."""
    search = secretfiles.SecretFileIndex._search
    done: list[bool] = []

    def flapping(self: secretfiles.SecretFileIndex, *args: Any) -> Any:
        if done or not any(str(secret).startswith(str(root) + "/") for root in self.roots):
            return search(self, *args)
        done.append(True)
        os.unlink(secret)
        try:
            return search(self, *args)
        finally:
            secret.write_text(f"KEY={NEW}\n")

    monkeypatch.setattr(secretfiles.SecretFileIndex, "_search", flapping)
    return done


async def sh(box: Sandbox, command: str) -> str:
    result = await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)
    return result.text


async def test_a_workspace_secret_missing_at_the_walk_and_back_at_the_read_stays_hidden(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    secret = home / "project" / ".env"
    secret.write_text(f"KEY={OLD}\n")
    box = Sandbox(home / "project")
    assert OLD not in await sh(box, "cat .env; echo end")  # listed and hidden once
    flapped = flap_around_the_next_walk(monkeypatch, secret)
    text = await sh(box, "cat .env; echo end")
    assert flapped and "end" in text, text
    assert NEW not in text, text
    assert secret.read_text() == f"KEY={NEW}\n"  # nothing of the user's lost
    assert NEW not in await sh(box, "cat .env; echo end")  # and on the next command, listed again


async def test_a_secret_of_another_project_under_home_missing_at_the_walk_stays_hidden(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    plant(home, ["projects/p1/.env"], lambda _: f"KEY={OLD}\n")
    secret = home / "projects" / "p1" / ".env"
    box = Sandbox(home / "project")
    assert OLD not in await sh(box, "cat ~/projects/p1/.env; echo end")
    flapped = flap_around_the_next_walk(monkeypatch, secret)
    text = await sh(box, "cat ~/projects/p1/.env; echo end")
    assert flapped and "end" in text, text
    assert NEW not in text, text


async def test_a_secret_deleted_for_good_leaves_nothing_behind_in_the_workspace(
    home: Path,
) -> None:
    """The name stays listed, but nothing is bound where no file is (bubblewrap would
    leave an empty one in the user's tree)."""
    require_sandbox()
    secret = home / "project" / ".env"
    secret.write_text(f"KEY={OLD}\n")
    box = Sandbox(home / "project")
    await sh(box, "true")
    secret.unlink()
    text = await sh(box, "ls -a; echo end")
    assert "end" in text and ".env" not in text, text
    assert not secret.exists()


async def test_a_secret_still_missing_when_the_sandbox_is_set_up_has_its_values_redacted(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Missing at the walk and when bubblewrap's options are made (nothing to bind over),
    back when the command reads it, as it was: the values it held when last read are in
    the values net, so the command's output shows them as ``[REDACTED]``."""
    require_sandbox()
    secret = home / "project" / ".env"
    secret.write_text(f"KEY={OLD}\n")

    class Late(Sandbox):
        back = False

        def wrap(self, argv: Any, **kwargs: Any) -> list[str]:
            args = super().wrap(argv, **kwargs)
            if not secret.exists():  # the tool writes it again once the options are made
                secret.write_text(f"KEY={OLD}\n")
                Late.back = True
            return args

    box = Late(home / "project")
    assert OLD not in await sh(box, "cat .env; echo end")
    search = secretfiles.SecretFileIndex._search

    def deleting(self: secretfiles.SecretFileIndex, *args: Any) -> Any:
        if not Late.back and secret.exists() and any(r in secret.parents for r in self.roots):
            secret.unlink()
        return search(self, *args)

    monkeypatch.setattr(secretfiles.SecretFileIndex, "_search", deleting)
    text = await sh(box, "cat .env; echo end")
    assert Late.back and "end" in text, text
    assert OLD not in text, text
    assert "[REDACTED]" in text, text
