"""What git runs from outside its git directory (tester findings I8, I9, I10): a
``core.hooksPath`` folder (husky's ``.husky/_`` and the ``.husky/`` hooks its wrappers
run, one from the user's global config), a config file the repository's config
includes, and the script a hook links to. A file edit there asks in every mode but
bypass, and a sandboxed command (real bubblewrap, real git) can change none of them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.policy import PermissionPolicy
from shell.permissions.runslater import unsafe_git_keys
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitruns-")


def verdict(ws: Path, path: str, mode: str = "accept-edits", sandbox: bool = False) -> Any:
    policy = PermissionPolicy(ws, mode=mode, user_config=ws.parent / "c.toml")
    if sandbox:  # as the runtime sets it: its walk finds nested repositories
        policy.sandbox = Sandbox(ws)
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    return policy.decide(tools["write_file"], {"path": path, "content": "id\n"})


def hook(path: Path, text: str = "#!/bin/sh\ntrue\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def husky(ws: Path) -> None:
    """husky v9's layout: git runs .husky/_/pre-commit, which runs the user's .husky/pre-commit."""
    git(ws, "init", "-q")
    hook(ws / ".husky" / "_" / "h", '#!/bin/sh\nsh "${0%/*}/../${0##*/}"\n')
    hook(ws / ".husky" / "_" / "pre-commit", '#!/bin/sh\n. "${0%/*}/h"\n')
    hook(ws / ".husky" / "pre-commit", "npm test\n")
    git(ws, "config", "core.hooksPath", ".husky/_")


# -- I8: core.hooksPath ----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_in_a_hooks_path_folder_and_huskys_hooks_ask(ws: Path, mode: str) -> None:
    husky(ws)
    for path in (".husky/pre-commit", ".husky/_/pre-push", ".husky/_/pre-commit", ".husky/post-merge"):
        assert verdict(ws, path, mode).action == "ask", path
    git(ws, "config", "core.hooksPath", ".githooks")
    hook(ws / ".githooks" / "pre-commit")
    found = verdict(ws, ".githooks/pre-commit", mode)
    assert found.action == "ask" and "core.hooksPath" in found.reason, found.reason
    assert verdict(ws, ".githooks/post-commit", mode).action == "ask"
    assert verdict(ws, "src/main.py", mode).action == "allow"


def test_a_relative_hooks_path_from_the_global_config_counts_in_each_repository(ws: Path) -> None:
    git(ws, "init", "-q")
    hook(ws / ".githooks" / "pre-commit")
    assert verdict(ws, ".githooks/pre-commit").action == "allow"  # nothing names it yet
    (ws.parent / ".gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    assert verdict(ws, ".githooks/pre-commit").action == "ask"  # the cache sees the new config


async def test_a_sandboxed_command_cannot_change_huskys_hooks(ws: Path) -> None:
    require_sandbox()
    husky(ws)
    result = await sh(ws, "echo 'id > owned' > .husky/pre-commit; echo x > .husky/_/pre-push; "
                          "echo 'id' > .husky/post-commit; true")
    assert (ws / ".husky" / "pre-commit").read_text() == "npm test\n"
    assert not (ws / ".husky" / "_" / "pre-push").exists()
    assert not (ws / ".husky" / "post-commit").exists(), result.text


async def test_a_global_relative_hooks_path_is_a_wall_in_the_sandbox(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    hook(ws / ".githooks" / "pre-commit")
    (ws.parent / ".gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    result = await sh(ws, "printf '#!/bin/sh\\nid > owned\\n' > .githooks/pre-commit; "
                          "printf '#!/bin/sh\\nid\\n' > .githooks/post-commit; "
                          "chmod +x .githooks/post-commit; true")
    assert (ws / ".githooks" / "pre-commit").read_text() == "#!/bin/sh\ntrue\n"
    assert not (ws / ".githooks" / "post-commit").exists(), result.text


# -- I9: a config the repository's config includes --------------------------------------


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_a_config_the_repository_includes_ask(ws: Path, mode: str) -> None:
    git(ws, "init", "-q")
    (ws / ".gitconfig").write_text("[alias]\n\tst = status\n")
    (ws / "team").mkdir()
    (ws / "team" / "git.cfg").write_text("[alias]\n\tlg = log\n")
    assert verdict(ws, ".gitconfig", mode).action == "allow"  # an ordinary file until included
    git(ws, "config", "include.path", "../.gitconfig")
    git(ws, "config", "includeIf.onbranch:main.path", "../team/git.cfg")
    git(ws, "config", "--add", "include.path", "../later.cfg")  # not there yet: creating it asks too
    for path in (".gitconfig", "team/git.cfg", "later.cfg"):
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "git config" in found.reason, (path, found.reason)


async def test_a_sandboxed_command_cannot_plant_fsmonitor_in_an_included_config(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    (ws / ".gitconfig").write_text("[alias]\n\tst = status\n")
    git(ws, "config", "include.path", "../.gitconfig")
    git(ws, "config", "--add", "include.path", "../later.cfg")
    result = await sh(ws, "printf '[core]\\n\\tfsmonitor = id > owned; false\\n' > .gitconfig; "
                          "printf '[core]\\n\\tfsmonitor = id > owned2; false\\n' > later.cfg; true")
    assert (ws / ".gitconfig").read_text() == "[alias]\n\tst = status\n"
    assert not (ws / "later.cfg").exists()
    assert "later.cfg" in result.text and "quarantine" in result.text, result.text
    git(ws, "status")  # the user's next git status runs nothing planted
    assert not (ws / "owned").exists() and not (ws / "owned2").exists()


@pytest.mark.parametrize("how", ["a link to dotfiles", "in a linked folder", "a dangling link"])
async def test_a_sandboxed_command_cannot_replace_an_included_config_that_is_a_link(
        ws: Path, how: str) -> None:
    """r14: the included config's real path was guarded, outside the workspace when it
    is a link (``team.cfg -> ~/dotfiles/team.cfg``), so the link itself, a workspace
    file, could be replaced by a config holding core.fsmonitor, which ran at the user's
    next git status."""
    require_sandbox()
    git(ws, "init", "-q")
    dotfiles = ws.parent / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "team.cfg").write_text("[alias]\n\tst = status\n")
    target = "conf/team.cfg" if how == "in a linked folder" else "team.cfg"
    if how == "in a linked folder":
        (ws / "conf").symlink_to(dotfiles)
    else:
        (ws / "team.cfg").symlink_to(dotfiles / ("missing.cfg" if how == "a dangling link" else "team.cfg"))
    git(ws, "config", "include.path", f"../{target}")
    first = target.split("/")[0]
    result = await sh(ws, f"rm -rf {first}; mkdir -p conf; "
                          f"printf '[core]\\n\\tfsmonitor = id > owned; false\\n' > {target}; true")
    git(ws, "status")  # the user's next git status runs nothing planted
    assert not (ws / "owned").exists(), result.text
    assert (dotfiles / "team.cfg").read_text() == "[alias]\n\tst = status\n"


# -- I10: a hook that links to a script in the workspace --------------------------------


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_the_script_a_hook_links_to_ask(ws: Path, mode: str) -> None:
    git(ws, "init", "-q")
    hook(ws / "scripts" / "pre-commit")
    hook(ws / "scripts" / "lint.sh")
    (ws / ".git" / "hooks" / "pre-commit").symlink_to("../../scripts/pre-commit")
    for path in ("scripts/pre-commit", ".git/hooks/pre-commit"):
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "hook" in found.reason, (path, found.reason)
    assert verdict(ws, "scripts/lint.sh", mode).action == "allow"


def test_edits_in_a_linked_hooks_folder_ask(ws: Path) -> None:
    git(ws, "init", "-q")
    hook(ws / "githooks" / "pre-commit")
    for sample in (ws / ".git" / "hooks").iterdir():
        sample.unlink()
    (ws / ".git" / "hooks").rmdir()
    (ws / ".git" / "hooks").symlink_to("../githooks")
    for path in ("githooks/pre-commit", "githooks/post-commit"):
        assert verdict(ws, path).action == "ask", path


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_nested_repositorys_hook_link_to_a_script_elsewhere_asks(ws: Path, mode: str) -> None:
    """``lib/`` is a repository of its own whose hook runs ``scripts/pre-commit``
    (outside ``lib/``): the workspace's walk finds ``lib/.git`` as the runtime's sandbox
    walks it, so the edit asks as it does for the top repository's hook link."""
    git(ws, "init", "-q")
    (ws / "vendor" / "lib").mkdir(parents=True)
    git(ws / "vendor" / "lib", "init", "-q")
    nested = ws / "vendor" / "lib" / ".git"
    hook(ws / "scripts" / "pre-commit")
    hook(ws / "scripts" / "fsmonitor.sh")
    hook(ws / "scripts" / "lint.sh")
    (nested / "hooks" / "pre-commit").symlink_to("../../../../scripts/pre-commit")
    git(ws / "vendor" / "lib", "config", "core.fsmonitor", "../../scripts/fsmonitor.sh")
    for path in ("scripts/pre-commit", "scripts/fsmonitor.sh"):
        found = verdict(ws, path, mode, sandbox=True)
        assert found.action == "ask" and "git runs" in found.reason, (path, found.reason)
    assert verdict(ws, "scripts/lint.sh", mode, sandbox=True).action == "allow"


async def test_a_sandboxed_command_cannot_change_what_a_nested_repositorys_hook_links_to(ws: Path) -> None:
    require_sandbox()
    (ws / "lib").mkdir()
    git(ws / "lib", "init", "-q")
    hook(ws / "scripts" / "pre-commit")
    (ws / "lib" / ".git" / "hooks" / "pre-commit").symlink_to("../../../scripts/pre-commit")
    result = await sh(ws, "printf '#!/bin/sh\\nid > owned\\n' > scripts/pre-commit; true")
    assert (ws / "scripts" / "pre-commit").read_text() == "#!/bin/sh\ntrue\n", result.text


async def test_a_sandboxed_command_cannot_change_the_script_a_hook_links_to(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    hook(ws / "scripts" / "pre-commit")
    (ws / ".git" / "hooks" / "pre-commit").symlink_to("../../scripts/pre-commit")
    result = await sh(ws, "printf '#!/bin/sh\\nid > owned\\n' > scripts/pre-commit; echo fine > notes.txt")
    assert (ws / "scripts" / "pre-commit").read_text() == "#!/bin/sh\ntrue\n"
    assert (ws / "notes.txt").read_text() == "fine\n", result.text
    assert "not written: scripts/pre-commit, which git runs as your hook" in result.text  # said why


# -- a script the config names as a command ---------------------------------------------


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_a_script_the_git_config_runs_ask(ws: Path, mode: str) -> None:
    git(ws, "init", "-q")
    for name in ("watch.sh", "fmt.sh", "clean.sh", "other.sh"):
        hook(ws / "tools" / name)
    git(ws, "config", "core.fsmonitor", "tools/watch.sh")
    git(ws, "config", "alias.fmt", "!./tools/fmt.sh --all")
    git(ws, "config", "filter.x.clean", "sh tools/clean.sh %f")
    git(ws, "config", "alias.lg", "log tools/other.sh")  # a git subcommand: nothing runs the file
    for path in ("tools/watch.sh", "tools/fmt.sh", "tools/clean.sh"):
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "git config names" in found.reason, (path, found.reason)
    assert verdict(ws, "tools/other.sh", mode).action == "allow"


async def test_a_sandboxed_command_cannot_change_the_fsmonitor_script(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    hook(ws / "tools" / "watch.sh", "#!/bin/sh\nexit 1\n")
    git(ws, "config", "core.fsmonitor", "tools/watch.sh")
    result = await sh(ws, "printf '#!/bin/sh\\nid > owned\\n' > tools/watch.sh; echo fine > notes.txt")
    assert (ws / "tools" / "watch.sh").read_text() == "#!/bin/sh\nexit 1\n"
    assert (ws / "notes.txt").read_text() == "fine\n", result.text
    assert "not written: tools/watch.sh" in result.text and "ask the user" in result.text


@pytest.mark.parametrize("mtime_put_back", [False, True])
async def test_a_hook_hard_linked_to_a_script_is_not_changed_through_the_script(
    ws: Path, mtime_put_back: bool
) -> None:
    """`ln scripts/pre-commit .git/hooks/pre-commit`: the read-only hooks folder covers
    the hook's name, not the file's other name; a command that writes the script (and
    sets its mtime back) leaves a hook that no longer runs at the next commit."""
    require_sandbox()
    git(ws, "init", "-q")
    (ws / "scripts").mkdir()
    script = ws / "scripts" / "pre-commit"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    hook = ws / ".git" / "hooks" / "pre-commit"
    os.link(script, hook)
    back = " && touch -d @1000000000 scripts/pre-commit" if mtime_put_back else ""
    if mtime_put_back:
        os.utime(script, (1_000_000_000, 1_000_000_000))
    result = await sh(ws, f"echo 'touch PWNED' >> scripts/pre-commit{back}; echo done")
    assert "done" in result.text
    assert not hook.exists() or "PWNED" not in hook.read_text(), result.text
    assert ".git/hooks/pre-commit" in set(result.details.get("quarantined", [])), result.text


async def test_a_submodule_added_in_the_sandbox_keeps_the_worktree_git_writes(ws: Path) -> None:
    """``git submodule add`` writes ``core.worktree = ../../../sub`` into
    ``.git/modules/sub/config``: the submodule's own work tree, in the workspace. That
    one value stays (the submodule works); any other ``core.worktree`` is moved out."""
    require_sandbox()
    git(ws, "init", "-q")
    upstream = ws / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q")
    (upstream / "lib.txt").write_text("lib\n")
    git(upstream, "add", "lib.txt")
    git(upstream, "commit", "-qm", "lib")
    result = await sh(ws, f"git -c protocol.file.allow=always submodule add -q {upstream} sub && "
                          "git -C sub log --oneline")
    config = ws / ".git" / "modules" / "sub" / "config"
    assert config.is_file(), result.text
    assert "quarantine" not in result.text, result.text
    assert git(ws / "sub", "config", "core.worktree") == "../../../sub\n"
    assert git(ws / "sub", "status", "--short") == ""
    result = await sh(ws, "git init -q --bare .git/modules/other && "
                          "git -C .git/modules/other config core.worktree ../../../../elsewhere")
    assert not (ws / ".git" / "modules" / "other" / "config").exists(), result.text
    assert "core.worktree" in result.text, result.text


def test_only_a_worktree_that_points_back_at_its_git_directory_is_the_submodules_own(ws: Path) -> None:
    gitdir = ws / ".git" / "modules" / "sub"
    gitdir.mkdir(parents=True)
    config = gitdir / "config"
    (ws / "sub").mkdir()
    (ws / "other").mkdir()
    (ws / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    (ws / "other" / ".git").write_text("gitdir: ../.git/modules/elsewhere\n")
    os.symlink(ws.parent, ws / "up")
    for value, safe in [("../../../sub", True), (f"{ws}/sub", False), ("../../../other", False),
                        ("../../../../outside", False), ("../../../up", False), ("../../..", False)]:
        config.write_text(f"[core]\n\tworktree = {value}\n")
        assert (unsafe_git_keys(config, [ws]) == []) is safe, value
    config.write_text("[core]\n\tworktree = ../../../sub\n")
    assert unsafe_git_keys(config) == ["core.worktree"]  # not in the workspace asked about


# -- N7: the scripts a commit-hook framework's config names ------------------------------


def frameworks(ws: Path) -> None:
    """pre-commit, husky and lefthook each naming a script of the workspace (tester round 9)."""
    git(ws, "init", "-q")
    (ws / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: lint\n        name: lint\n"
        "        entry: ./scripts/lint.sh --fix\n        language: script\n"
        "      - id: fmt\n        entry: bash\n        args: [tools/fmt.sh]\n        language: system\n")
    hook(ws / ".husky" / "pre-commit", "npm test\nsh ./scripts/hk.sh \"$@\"\n")
    (ws / "lefthook.yml").write_text("pre-commit:\n  commands:\n    lint:\n"
                                     "      run: ./scripts/lh.sh {staged_files}\n")
    for name in ("scripts/lint.sh", "tools/fmt.sh", "scripts/hk.sh", "scripts/lh.sh", "scripts/other.sh"):
        hook(ws / name)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_the_scripts_a_hook_framework_runs_ask(ws: Path, mode: str) -> None:
    frameworks(ws)
    for path in ("scripts/lint.sh", "tools/fmt.sh", "scripts/hk.sh", "scripts/lh.sh"):
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "next git commit" in found.reason, (path, found.reason)
    assert verdict(ws, "scripts/other.sh", mode).action == "allow"


async def test_a_sandboxed_command_cannot_change_the_scripts_a_hook_framework_runs(ws: Path) -> None:
    require_sandbox()
    frameworks(ws)
    result = await sh(ws, "for f in scripts/lint.sh tools/fmt.sh scripts/hk.sh scripts/lh.sh; do "
                          "echo 'id > owned' >> $f; done; echo x >> scripts/other.sh; echo fine > notes.txt")
    for name in ("scripts/lint.sh", "tools/fmt.sh", "scripts/hk.sh", "scripts/lh.sh"):
        assert (ws / name).read_text() == "#!/bin/sh\ntrue\n", name
    assert (ws / "scripts" / "other.sh").read_text().endswith("x\n")
    assert (ws / "notes.txt").read_text() == "fine\n", result.text


P3_SCRIPTS = ("lint.sh", "tools/mod.py", "tools/__init__.py", "scripts/a.sh", "scripts/b.sh", "scripts/c.sh",
              "fix.js", "scripts/check.sh", "scripts/h4.js", "scripts/sg.sh", "scripts/d.sh", "scripts/y.sh",
              "scripts/oc.sh", "scripts/oc2.sh",
              "scripts/t.sh", "scripts/pt.js", "scripts/l.sh", "scripts/l2.sh")  # package.json scripts


def more_frameworks(ws: Path) -> None:
    """Tester round 10 (P3): scripts named without a "/", in YAML block scalars and lists,
    by ``python -m``, by husky v4, simple-git-hooks, lint-staged and overcommit, and by a
    plain hook file's own line; and the ``package.json`` scripts a hook runs (``npm test``,
    ``yarn lint``, npm's ``pretest``, a script's own ``npm run``)."""
    git(ws, "init", "-q")
    (ws / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n"
        "      - id: a\n        entry: lint.sh\n        language: script\n"
        "      - id: b\n        entry: python -m tools.mod\n        language: system\n"
        "      - id: c\n        entry: >-\n          scripts/a.sh\n        language: system\n"
        "      - id: d\n        entry: flake8\n        args: [--config, checks.conf]\n")
    (ws / "lefthook.yml").write_text("pre-commit:\n  commands:\n    x:\n      run: |\n"
                                     "        ./scripts/b.sh\n        bash scripts/c.sh\n"
                                     "    y:\n      run: yarn lint\n")
    hook(ws / ".husky" / "pre-commit", "node fix.js\nnpm test\n")
    hook(ws / ".git" / "hooks" / "pre-commit", "#!/bin/sh\n./scripts/check.sh\n")
    (ws / "package.json").write_text(
        '{"husky": {"hooks": {"pre-commit": "node ./scripts/h4.js"}},'
        ' "simple-git-hooks": {"pre-push": "sh scripts/sg.sh"},'
        ' "lint-staged": {"*.js": ["node scripts/d.sh"]}, "scripts": {"test": "sh scripts/t.sh",'
        ' "pretest": "node scripts/pt.js", "lint": "bash scripts/l.sh && npm run lint2",'
        ' "lint2": "scripts/l2.sh", "build": "sh scripts/build.sh"}}')
    (ws / ".lintstagedrc.yaml").write_text('"*.py":\n  - sh scripts/y.sh\n')
    (ws / ".overcommit.yml").write_text("PreCommit:\n  A:\n    enabled: true\n"
                                        "    command: [bash, scripts/oc.sh]\n"
                                        "  B:\n    command:\n      - bash\n      - scripts/oc2.sh\n")
    for name in (*P3_SCRIPTS, "scripts/other.sh", "other.sh", "scripts/build.sh", "checks.conf"):
        hook(ws / name)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_scripts_named_bare_in_blocks_or_by_a_plain_hook_ask(ws: Path, mode: str) -> None:
    more_frameworks(ws)
    for path in P3_SCRIPTS:
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "next git commit" in found.reason, (path, found.reason)
    for path in ("scripts/other.sh", "other.sh", "scripts/build.sh", "checks.conf"):  # none runs: unasked
        assert verdict(ws, path, mode).action == "allow", (path, verdict(ws, path, mode).reason)


async def test_a_sandboxed_command_cannot_change_scripts_named_without_a_slash_or_in_blocks(ws: Path) -> None:
    require_sandbox()
    more_frameworks(ws)
    result = await sh(ws, f"for f in {' '.join(P3_SCRIPTS)}; do echo 'id > owned' >> $f; done; "
                          "echo x >> other.sh; echo fine > notes.txt")
    for name in P3_SCRIPTS:
        assert (ws / name).read_text() == "#!/bin/sh\ntrue\n", name
    assert (ws / "other.sh").read_text().endswith("x\n")
    assert (ws / "notes.txt").read_text() == "fine\n", result.text


@pytest.mark.parametrize("name", ["package.json", ".lintstagedrc.json"])
def test_a_deeply_nested_json_config_names_nothing_and_breaks_no_decision(ws: Path, name: str) -> None:
    """A hostile config nested past Python's recursion limit is no command list: the
    edit is decided as usual, and what the other configs name still asks."""
    more_frameworks(ws)
    (ws / name).write_text('{"lint-staged": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert verdict(ws, "scripts/other.sh").action == "allow"
    assert verdict(ws, "lint.sh").action == "ask"


def python_m_hook(ws: Path) -> None:
    """pre-commit runs ``python3 -m black`` from the root, which comes first on sys.path."""
    git(ws, "init", "-q")
    (ws / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: fmt\n        entry: python3 -m black\n"
        "        language: system\n")


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_creating_the_module_a_python_m_hook_runs_asks(ws: Path, mode: str) -> None:
    python_m_hook(ws)
    for path in ("black.py", "black/__main__.py"):
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "next git commit" in found.reason, (path, found.reason)
    assert verdict(ws, "white.py", mode).action == "allow"



Q14_SCRIPTS = ("scripts/b.sh", "scripts/i.sh", "tools/d.js", "tools/e.py", "scripts/a.sh", "scripts/g.sh",
               "scripts/e.sh", "scripts/j.sh", "scripts/k.sh", "scripts/f.sh")


def flow_frameworks(ws: Path) -> None:
    """Finding Q14: pre-commit hooks written in YAML flow style (valid for pre-commit, what
    a generator emits), ``bash -c``/``sh -c`` entries, and lefthook's JSON configs."""
    git(ws, "init", "-q")
    (ws / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n"
        "      - {id: b, name: b, entry: env FOO=1 scripts/b.sh, language: system}\n"
        "      - {id: i, name: i, entry: 'timeout 60 scripts/i.sh', language: system}\n"
        "      - {id: d, entry: \"node --require ./tools/d.js x\", language: system}\n"
        "      - {id: e, entry: poetry run python, args: [tools/e.py], language: system}\n"
        "      - id: a\n        entry: bash -c \"scripts/a.sh && true\"\n        language: system\n"
        "      - id: g\n        entry: sh -c \"exec scripts/g.sh\"\n        language: system\n"
        "      - {id: c, entry: flake8, args: [--config, checks.conf]}\n")
    (ws / "lefthook.json").write_text('{"pre-commit":{"commands":{"x":{"run":"scripts/e.sh {staged_files}"},'
                                      '"y":{"run":["bash","-lc","scripts/j.sh"]}}}}')
    (ws / ".lefthook.jsonc").write_text('// local\n{"pre-push": {"commands": {"k": {"run": "scripts/k.sh"}}}}'
                                        "\n")
    (ws / ".overcommit.yml").write_text('{"PreCommit": {"F": {"command": ["bash", "scripts/f.sh"]}}}\n')
    for name in (*Q14_SCRIPTS, "scripts/other.sh", "checks.conf"):
        hook(ws / name)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_scripts_named_in_flow_style_json_or_a_shell_string_ask(ws: Path, mode: str) -> None:
    flow_frameworks(ws)
    for path in Q14_SCRIPTS:
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "next git commit" in found.reason, (path, found.reason)
    for path in ("scripts/other.sh", "checks.conf"):  # none runs: unasked
        assert verdict(ws, path, mode).action == "allow", (path, verdict(ws, path, mode).reason)


async def test_a_sandboxed_command_cannot_change_scripts_named_in_flow_style_or_json(ws: Path) -> None:
    require_sandbox()
    flow_frameworks(ws)
    git(ws, "add", "-A")
    result = await sh(ws, f"for f in {' '.join(Q14_SCRIPTS)}; do echo 'id > owned' >> $f; done; "
                          "echo x >> scripts/other.sh; echo fine > notes.txt")
    for name in Q14_SCRIPTS:
        assert (ws / name).read_text() == "#!/bin/sh\ntrue\n", name
    assert (ws / "scripts" / "other.sh").read_text().endswith("x\n")
    assert (ws / "notes.txt").read_text() == "fine\n", result.text


PACKAGE = {"name": "app", "version": "1.0.0",
           "scripts": {"test": "node scripts/t.js", "pretest": "node scripts/pt.js", "build": "tsc"},
           "lint-staged": {"*.js": "node scripts/ls.js"},
           "simple-git-hooks": {"pre-push": "node scripts/pp.js"}}


def hook_runs_keys(ws: Path) -> None:
    """Finding Q7: husky's hook runs ``npm test`` and ``make lint``; the command lines
    those run live in package.json's "scripts" and in the Makefile, and lint-staged's and
    simple-git-hooks' commands in package.json's own keys."""
    git(ws, "init", "-q")
    hook(ws / ".husky" / "pre-commit", "npm test\nnpx lint-staged\nmake lint\n")
    (ws / "package.json").write_text(json.dumps(PACKAGE, indent=2) + "\n")
    (ws / "Makefile").write_text("lint:\n\tsh scripts/lint.sh\n")
    (ws / "GNUmakefile").write_text("-include mk/rules.mk $(EXTRA)\ninclude Makefile\n")
    for name in ("scripts/t.js", "scripts/pt.js", "scripts/ls.js", "scripts/pp.js", "scripts/lint.sh",
                 "mk/rules.mk", "mk/other.mk"):
        hook(ws / name)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_an_edit_of_a_package_key_or_makefile_a_hook_runs_asks(ws: Path, mode: str) -> None:
    hook_runs_keys(ws)
    policy = PermissionPolicy(ws, mode=mode, user_config=ws.parent / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    for change in ({"scripts": {**PACKAGE["scripts"], "test": "touch PWNED"}},  # type: ignore[dict-item]
                   {"lint-staged": {"*.js": "touch PWNED"}}, {"simple-git-hooks": {"pre-push": "touch X"}}):
        content = json.dumps({**PACKAGE, **change}, indent=2) + "\n"
        found = policy.decide(tools["write_file"], {"path": "package.json", "content": content})
        assert found.action == "ask" and "next git commit" in found.reason, (change, found.reason)
    for change in ({"version": "1.0.1"}, {"scripts": {**PACKAGE["scripts"], "build": "tsc -b"}}):  # type: ignore[dict-item]
        content = json.dumps({**PACKAGE, **change}, indent=2) + "\n"
        found = policy.decide(tools["write_file"], {"path": "package.json", "content": content})
        assert found.action == "allow", (change, found.reason)
    for path in ("Makefile", "GNUmakefile", "mk/rules.mk"):  # make reads GNUmakefile first; its include
        assert verdict(ws, path, mode).action == "ask", path
    assert verdict(ws, "mk/other.mk", mode).action == "allow"


async def test_a_command_changing_a_package_key_a_hook_runs_has_it_set_back(ws: Path) -> None:
    require_sandbox()
    hook_runs_keys(ws)
    result = await sh(ws, "sed -i -e 's#node scripts/t.js#touch PWNED; node scripts/t.js#' "
                          "-e 's#node scripts/ls.js#touch PWNED#' -e 's#\"tsc\"#\"tsc -b\"#' "
                          "-e 's#1.0.0#1.0.1#' package.json; "
                          "printf 'lint:\\n\\ttouch PWNED\\n' > Makefile; true")
    data = json.loads((ws / "package.json").read_text())
    assert data["scripts"]["test"] == "node scripts/t.js", result.text
    assert data["lint-staged"] == {"*.js": "node scripts/ls.js"}, result.text
    assert data["scripts"]["build"] == "tsc -b", result.text  # the command's other edits kept
    assert data["version"] == "1.0.1", result.text
    assert (ws / "Makefile").read_text() == "lint:\n\tsh scripts/lint.sh\n", result.text
