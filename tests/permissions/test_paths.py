"""One answer to "where does this path land?" (shell.permissions.paths): the rules, the
workspace's fence, the file edits that always ask, the sandbox and the editor protocol
all resolve a path the same way, so no tricky path looks inside to one of them and
outside to another."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from shell.acp.permissions import is_path_request
from shell.acp.toolview import resolve_path as acp_resolve
from shell.core.approvals import ApprovalRequest
from shell.core.messages import ToolCallBlock
from shell.core.tools import Tool, ToolContext
from shell.permissions import paths, runslater
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import CallPaths
from shell.permissions.sandbox import Sandbox
from shell.permissions.trust import read_project_config
from shell.tools.builtin import builtin_tools
from shell.tools.nofollow import FileToolError
from shell.tools.workspace import Workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A workspace with the links that make paths tricky, an outside folder, a home."""
    ws, out, home = tmp_path / "ws", tmp_path / "outside", tmp_path / "home"
    for d in (ws / "src", out / "a" / "b", home):
        d.mkdir(parents=True)
    (ws / "notes.txt").write_text("notes\n")
    (ws / "escape").symlink_to(out)  # a symlinked dir leading out
    (ws / "deep").symlink_to(out / "a" / "b")  # deep/.. is outside/a, not the workspace
    (ws / "inner").symlink_to(ws / "src")  # a link that stays inside
    (ws / "dangling").symlink_to(out / "new.txt")  # writing through it creates outside/new.txt
    (ws / "loop").symlink_to("loop")
    monkeypatch.setenv("HOME", str(home))
    return {"ws": ws, "out": out, "home": home}


TRICKY = [
    # (path as the model wrote it, where it lands relative to tmp_path, inside the workspace?)
    ("src/new/file.txt", "ws/src/new/file.txt", True),  # a tail that does not exist yet
    ("escape/secret.txt", "outside/secret.txt", False),  # a symlink escaping the workspace
    ("escape/../ws/notes.txt", "ws/notes.txt", True),
    ("deep/../x.txt", "outside/a/x.txt", False),  # `..` through a symlinked dir
    ("deep/../../../ws/notes.txt", "ws/notes.txt", True),
    ("inner/../notes.txt", "ws/notes.txt", True),
    ("src/../../outside/x", "outside/x", False),
    ("dangling", "outside/new.txt", False),  # a dangling link is followed
    ("~/x.txt", "home/x.txt", False),
    ("notes.txt\n", "ws/notes.txt\n", True),  # nothing stripped: a name ending in a newline
    ("loop/x", "ws/loop/x", True),  # a symlink loop stays unresolved rather than raising
    ("/".join(["d" * 200] * 30), "ws/" + "/".join(["d" * 200] * 30), True),  # 6,000 characters
    # too long to look up (ENAMETOOLONG), and outside through the link:
    ("escape/" + "/".join(["e" * 250] * 20), "outside/" + "/".join(["e" * 250] * 20), False),
]


def _callers(world: dict[str, Path]) -> tuple[Workspace, PermissionPolicy, dict[str, Tool]]:
    ws = Workspace(world["ws"])
    policy = PermissionPolicy(ws.root, mode="accept-edits", load_project=False,
                              user_config=world["ws"].parent / "config.toml")
    policy.fence = ws
    return ws, policy, {t.name: t for t in builtin_tools(ws)}


@pytest.mark.parametrize(("raw", "lands", "inside"), TRICKY, ids=[repr(t[0][:24]) for t in TRICKY])
def test_every_caller_resolves_a_tricky_path_to_the_same_place(
    world: dict[str, Path], raw: str, lands: str, inside: bool
) -> None:
    root = world["ws"]
    ws, policy, tools = _callers(world)
    expected = str(root.parent / lands)
    args = {"path": raw, "content": "x"}
    assert paths.real(raw, root) == expected
    assert str(ws.resolve(raw)) == expected  # the fence, which the file tools go through
    assert CallPaths(args, root).path(raw)[0] == expected  # the rules and the always-ask edits
    assert str(acp_resolve(root, raw)) == expected  # the editor protocol's locations
    assert ws.contains(ws.resolve(raw)) is inside
    assert (ws.outside(tools["write_file"], args) is None) is inside
    verdict = policy.decide(tools["write_file"], args)  # accept-edits runs edits inside, asks outside
    assert (verdict.action == "allow") is inside, verdict.reason
    call = ToolCallBlock("c1", "read_file", {"path": raw})
    request = ApprovalRequest(call, tools["read_file"], {"path": raw},
                              allowed_decisions=("approve", "reject"))
    assert is_path_request(request, root) is (not inside)


def test_a_symlink_into_what_runs_later_asks_whatever_the_mode(world: dict[str, Path]) -> None:
    (world["ws"] / ".git" / "hooks").mkdir(parents=True)
    (world["ws"] / "tools").symlink_to(world["ws"] / ".git" / "hooks")
    _, policy, tools = _callers(world)
    verdict = policy.decide(tools["write_file"], {"path": "tools/pre-commit", "content": "x"})
    assert verdict.action == "ask" and ".git" in verdict.reason


async def test_a_path_with_a_nul_is_refused_by_every_caller_with_a_reason_not_a_crash(
    world: dict[str, Path]
) -> None:
    root = world["ws"]
    ws, policy, tools = _callers(world)
    raw = "notes.txt\x00.png"
    with pytest.raises(paths.BadPath, match="NUL"):
        paths.real(raw, root)
    verdict = policy.decide(tools["read_file"], {"path": raw})
    assert verdict.action == "deny" and "NUL character" in verdict.reason
    assert ws.outside(tools["read_file"], {"path": raw}) is None  # no second question about it
    assert acp_resolve(root, raw) is None
    assert policy.suggest(tools["read_file"], {"path": raw}) == ()
    call = ToolCallBlock("c1", "read_file", {"path": raw})
    with pytest.raises(ValueError, match=r"'notes.txt\\x00.png' holds a NUL character"):  # the tool's error
        await tools["read_file"].run({"path": raw}, ToolContext(call, lambda p: None, None))
    with pytest.raises(NotADirectoryError, match="NUL"):
        ws.add_dir("src\x00")


def test_a_trailing_newline_names_another_file_for_the_tool_and_the_policy_alike(
    world: dict[str, Path]
) -> None:
    (world["ws"] / ".env").write_text("KEY=1\n")
    _, policy, tools = _callers(world)
    policy.mode = "default"
    assert policy.decide(tools["read_file"], {"path": ".env"}).action == "ask"
    assert paths.real(".env\n", world["ws"]) != paths.real(".env", world["ws"])  # not the secret file


async def test_the_tool_opens_exactly_the_path_the_policy_judged(world: dict[str, Path]) -> None:
    _, _, tools = _callers(world)
    call = ToolCallBlock("c1", "read_file", {"path": "notes.txt\n"})
    with pytest.raises(FileToolError, match="No such file"):  # notes.txt itself is not read
        await tools["read_file"].run({"path": "notes.txt\n"}, ToolContext(call, lambda p: None, None))


def test_git_files_with_a_nul_do_not_break_the_sandboxs_guard(world: dict[str, Path]) -> None:
    """A cloned repository is hostile: a ``.git`` file or a ``core.hooksPath`` holding a
    NUL must not stop every command (the guard resolves both)."""
    root = world["ws"]
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: ../x\x00y\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n\thooksPath = .hu\x00sky\n")
    walls = runslater.guard([root], [root / "sub" / ".git"])
    assert root / "sub" / ".git" in walls.readonly
    assert walls.hook_dirs == (root / ".hu",)  # as git reads it: the NUL ends the value


def test_a_symlink_loop_among_the_hidden_paths_does_not_break_the_sandbox(world: dict[str, Path]) -> None:
    box = Sandbox(world["ws"], hidden=[str(world["ws"] / "loop")])
    assert all(isinstance(p, Path) for p in box.hidden_paths())


def test_the_workspace_root_is_the_same_real_path_for_every_check(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    (world["ws"].parent / "alias").symlink_to(world["ws"])
    monkeypatch.chdir(world["ws"].parent)
    roots: list[Any] = [Workspace("alias").root, PermissionPolicy("alias", load_project=False).root,
                        Sandbox("alias").workspace, read_project_config("alias").root,
                        paths.real_root("alias")]
    assert all(r == world["ws"] for r in roots)
    assert os.fspath(Workspace("alias").resolve("escape/x")) == str(world["out"] / "x")


def test_within_any_answers_as_within_does_for_each_base() -> None:
    bases = ["/home/u/.ssh", "/home/u/projects/a", "/srv", "rel/dir"]  # real paths, as within()'s
    inside = paths.within_any(bases)
    for path in ["/home/u/.ssh", "/home/u/.ssh/id_ed25519", "/home/u/.sshx", "/home/u/projects/a",
                 "/home/u/projects/ab/x", "/home/u/projects/a/b/c", "/srv/x/", "/sr", "/", "rel/dir/f",
                 "rel/d", "other/rel/dir"]:
        assert inside(path) == any(paths.within(path, b) for b in bases), path
    assert paths.within_any(["/"])("/anything/at/all")
    assert not paths.within_any([])("/home/u")
