"""Which workspace modules the walk notes as named like a standard or installed one (A14):
the names, read from the host's ``site-packages``; the folders that count (not a package's
own); what Python would import (a package folder needs its ``__init__.py``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from shell.permissions import shadowmodules
from shell.permissions.modes import Mode
from shell.permissions.secretfiles import RACY_NS, SecretFileIndex


def test_installed_top_level_names_are_read_from_site_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    for folder in ("fancytool", "fancytool-1.0.dist-info", "__pycache__"):
        (site / folder).mkdir(parents=True)
    for name in ("fancymod.py", "_fastlib.cpython-311-x86_64-linux-gnu.so", "fancy-hook.pth", "README.txt"):
        (site / name).write_text("")
    monkeypatch.setattr(shadowmodules, "_site_dirs", lambda: [str(site)])
    names = shadowmodules.shadowed_names()
    assert {"fancytool", "fancymod", "_fastlib", "json", "venv", "pip"} <= names
    assert not {"fancytool-1", "fancy-hook", "README", "__pycache__", "this"} & names


def test_the_walk_notes_such_modules_at_any_depth_but_not_a_packages_own(tmp_path: Path) -> None:
    """Nor pip's own in a ``site-packages`` (``pip install --prefix local``)."""
    for path in ("pip.py", "src/json.py", "src/app/__init__.py", "src/app/json.py", "src/http/__init__.py",
                 "docs/email/notes.txt", "mine.py", "local/lib/python3.11/site-packages/pip/__init__.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    walk = SecretFileIndex([tmp_path], modules=lambda: frozenset({"pip", "json", "http", "email"}))
    found = walk.find()
    rel = {p.relative_to(tmp_path).as_posix() for p in found.modules}
    assert rel == {"pip.py", "src/json.py", "src/http", "docs/email"}
    noted = shadowmodules.shadowing(found.modules)
    imported = {p.relative_to(tmp_path).as_posix() for p, why in noted.items() if why}
    assert imported == {"pip.py", "src/json.py", "src/http"}  # docs/email: a namespace, imported last


def test_a_walk_without_the_names_notes_nothing(tmp_path: Path) -> None:
    """The home walk has its own index and no use for the note."""
    (tmp_path / "pip.py").write_text("")
    assert SecretFileIndex([tmp_path]).find().modules == ()


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_file_edit_creating_such_a_module_asks_and_one_editing_the_projects_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Mode
) -> None:
    """write_file runs unasked in these modes: a new ``pip.py`` (or the ``__init__.py`` that
    makes ``json/`` a package) is what the user's next ``python -m pip`` would import."""
    from shell.permissions.policy import PermissionPolicy
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    ws = tmp_path / "ws"
    for path in ("turtle.py", "json/notes.txt", "app/__init__.py"):
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text("")
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    policy = PermissionPolicy(ws, mode=mode, user_config=tmp_path / "c.toml")
    write_file = {t.name: t for t in builtin_tools(Workspace(ws))}["write_file"]

    def action(path: str) -> tuple[str, str]:
        verdict = policy.decide(write_file, {"path": path, "content": "import os\n"})
        return verdict.action, verdict.reason

    for path in ("pip.py", "src/pytest.py", "json/__init__.py"):
        said = action(path)
        assert said[0] == "ask" and "python -m" in said[1] and "does not exist yet" in said[1], (path, said)
    for path in ("turtle.py", "app.py", "app/json.py", "my-notes.py"):
        assert action(path)[0] == "allow", path


def test_what_a_namespace_folder_holds_counts_where_the_installed_namespace_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python merges a namespace's portions in path order: in a workspace ``acme/`` (no
    ``__init__``), ``core.py`` comes before the installed ``acme.core``, and ``sub/`` is merged
    with the installed namespace ``acme.sub`` in turn; ``mine/`` shadows nothing installed, and
    a ``core/`` with no ``__init__`` comes after the installed package (only its ``__init__``
    would count)."""
    site = tmp_path / "site-packages"
    for path in ("acme/core/__init__.py", "acme/sub/deep.py", "acme/other/__init__.py"):
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text("")
    monkeypatch.setattr(shadowmodules, "_site_dirs", lambda: [str(site)])
    ws = tmp_path / "ws"
    for path in ("acme/notes.md", "acme/core.py", "acme/sub/deep.py", "acme/mine/__init__.py",
                 "acme/other/readme.txt"):
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text("")
    noted = shadowmodules.shadowing([ws / "acme"])
    said = {p.relative_to(ws).as_posix(): bool(why) for p, why in noted.items()}
    assert said == {"acme": True, "acme/core.py": True, "acme/sub": True, "acme/sub/deep.py": True,
                    "acme/other": False}


def test_the_workspace_venvs_names_count_and_a_package_installed_later_rejudges_listed_folders(
    tmp_path: Path
) -> None:
    """Finding D8: the names of what the project's virtualenvs installed count (near the top,
    and a deeper one the walk saw); a package its venv gains after a folder was listed makes
    that folder's entry of its name noted at the next walk, though the folder did not change."""
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    deep = tmp_path / "a" / "b" / "env" / "lib" / "python3.11" / "site-packages"
    for folder in (site / "zzlib", deep / "deeplib"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "a" / "b" / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    names = shadowmodules.shadowed_names([tmp_path])
    assert "zzlib" in names and "deeplib" not in names
    assert "deeplib" in shadowmodules.shadowed_names([tmp_path], [tmp_path / "a" / "b" / "env"])
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "laterlib.py").write_text("")
    time.sleep(RACY_NS / 1e9)  # listings of a directory changed just now are not trusted later
    walk = SecretFileIndex([tmp_path], modules=lambda: shadowmodules.shadowed_names([tmp_path]))
    assert walk.find().modules == ()
    (site / "laterlib.py").write_text("")  # pip install laterlib, in the project's venv
    assert tmp_path / "docs" / "laterlib.py" in walk.find().modules


def test_a_tests_package_a_venv_holds_by_mistake_is_no_name_a_module_must_not_take(tmp_path: Path) -> None:
    """Packages install a top-level ``tests``/``docs`` into site-packages by mistake; nothing
    imports it, and the project's own new ``tests/`` package is no planted module."""
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    for name in ("tests", "docs", "realpkg"):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text("")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    names = shadowmodules.shadowed_names([tmp_path])
    assert "realpkg" in names and not {"tests", "docs"} & names
