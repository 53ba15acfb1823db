"""A new git config is judged by the keys git itself reads from it (tester finding M10):
``; \\`` at the end of a line is a comment to git, not a continuation, so the keys after
it (``remote.*.uploadpack``, ``core.fsmonitor``) are seen; a partial clone's keys, a
``core.worktree`` and the commands a remote names are not "safe"."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.permissions import gitconfigfile
from shell.permissions.gitkeys import unsafe_git_keys

from .later_ws import git

HIDDEN = (  # what git reads: every key; a parser taking `; \` as a continuation sees only the first
    "[core]\n\trepositoryformatversion = 1 ; \\\n[extensions] ; \\\n\tpartialClone = origin ; \\\n"
    '[remote "origin"] ; \\\n\turl = {url} ; \\\n\tpromisor = true ; \\\n'
    "\tuploadpack = \"touch '{marker}'; git-upload-pack\"\n"
)


# -- the config is read as git reads it -------------------------------------------------


def test_keys_behind_a_comment_ending_in_a_backslash_are_seen(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(HIDDEN.format(url="/x", marker="/nowhere"))
    found = unsafe_git_keys(config)
    assert "remote.*.uploadpack" in found and "extensions.partialclone" in found, found
    assert "remote.*.promisor" in found


@pytest.mark.parametrize("text, key", [
    ('[core]\n\tbare = false ; \\\n\tfsmonitor = "x; false"\n', "core.fsmonitor"),
    ("[core]\n\tbare = false # \\\n\tpager = evil\n", "core.pager"),
    ('[remote.origin]\n\tvcs = evil\n', "remote.*.vcs"),
    ('[remote "a.b"]\n\treceivepack = evil\n', "remote.*.receivepack"),
    ('[core]\n\tworktree = /elsewhere\n', "core.worktree"),
    ('[include]\n\tpath = other\n', "include.path"),
    ('[core] fsmonitor = "a \\" b"\n', "core.fsmonitor"),
])  # fmt: skip
def test_hidden_or_risky_keys_make_a_new_config_unsafe(tmp_path: Path, text: str, key: str) -> None:
    config = tmp_path / "config"
    config.write_text(text)
    assert key in unsafe_git_keys(config)


def test_a_config_git_writes_itself_stays_safe(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "repo")
    assert unsafe_git_keys(tmp_path / "repo" / ".git" / "config") == []


def test_without_git_a_line_it_cannot_read_for_sure_counts_as_unsafe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitconfigfile, "which", lambda _name: None)
    config = tmp_path / "config"
    config.write_text(HIDDEN.format(url="/x", marker="/nowhere"))
    assert unsafe_git_keys(config)
    config.write_text("[core]\n\tbare = false\n")
    assert unsafe_git_keys(config) == []


def test_a_hooks_path_and_an_include_with_a_trailing_comment_are_found_where_git_finds_them(
    tmp_path: Path,
) -> None:
    from shell.permissions.gitcreds import include_paths
    from shell.permissions.gitruns import git_runs

    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "repo")
    with open(repo / ".git" / "config", "a") as fh:
        fh.write('[core]\n\thooksPath = ".githooks" ; team hooks\n')
        fh.write('[include]\n\tpath = "../team.cfg" # shared\n')
    assert include_paths(repo / ".git" / "config") == [repo / ".git" / "../team.cfg"]
    runs = git_runs([repo / ".git"], [tmp_path])
    assert runs.why(repo / ".githooks" / "pre-commit"), runs
