"""Siblings of runs-later names already guarded (tester finding K2): the names an
editor, R, lefthook, VS Code or another agent reads beside the listed one run the same
way, so a file edit asks and a sandboxed command cannot plant or change them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh

pytestmark = pytest.mark.anyio

FAMILIES = {
    "vim and neovim exrc": [".nvimrc", ".vimrc", "_vimrc", ".gvimrc", "_exrc"],
    "emacs": [".dir-locals-2.el"],
    "R": [".Renviron"],
    "lefthook": ["lefthook.yaml", ".lefthook.yaml", "lefthook.json", "lefthook.toml", "lefthook.jsonc",
                 "lefthook-local.yaml", ".lefthook-local.yml", ".lefthook-local.toml",
                 ".config/lefthook.yml"],
    "vs code workspace": ["proj.code-workspace", ".vscode.code-workspace", "sub/x.code-workspace"],
    "editors and linters": [".theia/tasks.json", ".ropeproject/config.py", ".pylintrc", ".ycm_extra_conf.py"],
    "shell hooks": [".autoenv.zsh", ".autoenv_leave.zsh", ".rvmrc", ".huskyrc", ".lfsconfig"],
    "other agents": [".trae/mcp.json", ".amp/settings.json", ".augment/settings.json", "GEMINI.md",
                     ".cursorrules", ".clinerules", ".windsurfrules", ".github/copilot-instructions.md"],
    "a virtualenv's pip.conf": [".venv/pip.conf"],
    "where uv, pdm and poetry get packages (Q28)": ["uv.toml", "sub/uv.toml", "pdm.toml", "poetry.toml"],
    "other agents' instructions (L15)": ["CLAUDE.local.md", "AGENTS.override.md", "AGENT.md", ".goosehints",
                                         ".rules", ".github/instructions/all.instructions.md",
                                         ".github/prompts/fix.prompt.md", ".github/chatmodes/x.chatmode.md"],
    "configs a linter or build runs (L5)": [
        "mypy.ini", ".mypy.ini", "eslint.config.js", "eslint.config.mjs", ".eslintrc.cjs",
        "prettier.config.js", ".prettierrc.mjs", "tailwind.config.ts", "stylelint.config.js", ".rubocop.yml",
        ".bazelrc", ".bazeliskrc", "gradle/wrapper/gradle-wrapper.properties", ".mvn/extensions.xml",
        ".mvn/jvm.config"],
    "more agents and configs that run with nothing typed (verified variations)": [
        ".roorules", ".augment-guidelines", "CRUSH.md", "QWEN.md", ".idx/dev.nix", ".rubocop_todo.yml",
        ".babelrc.js", ".lintstagedrc.js", "jest.config.js", "vitest.config.ts", "babel.config.js",
        "postcss.config.cjs", "commitlint.config.js", "lint-staged.config.mjs", ".commitlintrc.js"],
    "editors' and linters' code configs (N3)": [
        ".php-cs-fixer.php", ".php-cs-fixer.dist.php", ".formatter.exs", ".markdownlint-cli2.cjs",
        ".markdownlint.cjs", ".markdownlint-cli2.mjs", "ipython_config.py", "jupyter_server_config.py",
        "sub/jupyter_notebook_config.py", ".jvmopts", ".sbtopts", "svelte.config.js",
        ".yarn/sdks/typescript/lib/tsserver.js", ".bundle/config"],
    "php-cs-fixer 2's legacy names (P14)": [".php_cs", ".php_cs.dist", "sub/.php_cs"],
    "Sapling, localvimrc, and more agents' rules (X6)": [
        ".sl/config", ".lvimrc", "sub/.lvimrc", ".aiassistant/rules/a.md", ".tabnine/guidelines/a.md",
        ".github/agents/x.agent.md"],
    "names in another case (L10: one file on macOS and Windows)": [
        ".GIT/hooks/pre-commit", ".VSCode/tasks.json", "Agents.md", "claude.MD",
        ".Github/Copilot-Instructions.md", ".Husky/pre-commit", "Lefthook.YML", ".PyLintRC",
        "Eslint.Config.JS"],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_file_edit_asks(tmp_path: Path, mode: str, family: str) -> None:
    from shell.permissions.policy import PermissionPolicy
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    p = PermissionPolicy(tmp_path, mode=mode, user_config=tmp_path / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(tmp_path))}
    for path in FAMILIES[family]:
        verdict = p.decide(tools["write_file"], {"path": path, "content": "x"})
        assert verdict.action == "ask", path
        assert "run" in verdict.reason or "read" in verdict.reason, verdict.reason


def test_look_alikes_stay_routine(tmp_path: Path) -> None:
    from shell.permissions.policy import PermissionPolicy
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    p = PermissionPolicy(tmp_path, mode="accept-edits", user_config=tmp_path / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(tmp_path))}
    for path in ("docs/lefthook.md", "lefthook.yml.example", "notes/vimrc.txt", "pip.conf",
                 "docs/copilot-instructions.md", "workspace.code-workspace.md", "docs/instructions/x.md",
                 "src/rules.py", "eslint.config.json", ".prettierrc.json", "docs/mypy.ini.md", "bin/head",
                 "HEADER.md", "prompts/x.prompt.md", "jest.config.json", "src/babel.config.md",
                 "docs/formatter.exs.md", "ipython_config.py.txt", "notes/config", ".yarn/cache/x.zip",
                 "svelte.config.json"):
        assert p.decide(tools["write_file"], {"path": path, "content": "x"}).action == "allow", path


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-names-")


async def test_a_command_cannot_plant_them(ws: Path) -> None:
    """The auto-mode repro: each planted name is moved out, none is kept."""
    require_sandbox()
    (ws / ".venv").mkdir()
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    planted = [p for paths in FAMILIES.values() for p in paths]
    plant = "; ".join(f"mkdir -p $(dirname {p}); echo x > {p}" for p in planted)
    result = await sh(ws, plant + "; echo done")
    assert "done" in result.text
    for path in planted:
        assert not (ws / path).exists(), path
    assert ".Renviron" in result.details["quarantined"]


async def test_a_command_cannot_change_them(ws: Path) -> None:
    require_sandbox()
    for name in (".nvimrc", "lefthook.yaml", "proj.code-workspace", "GEMINI.md"):
        (ws / name).write_text("mine\n")
    result = await sh(ws, "for f in .nvimrc lefthook.yaml proj.code-workspace GEMINI.md; do echo evil >> $f; "
                          "done; echo done")
    assert "done" in result.text
    for name in (".nvimrc", "lefthook.yaml", "proj.code-workspace", "GEMINI.md"):
        assert (ws / name).read_text() == "mine\n", name


async def test_sapling_config_in_a_git_checkout_is_moved_out(ws: Path) -> None:
    """X6: in a git checkout Sapling reads ``.git/sl/config``, whose [hooks] run at the
    user's next ``sl commit``; ``.git/sl/`` is Sapling's to write, so the file is judged."""
    require_sandbox()
    git(ws, "init", "-q")
    result = await sh(ws, "mkdir -p .git/sl && printf '[hooks]\\nprecommit = touch /tmp/PWN\\n' > "
                          ".git/sl/config; echo done")
    assert "done" in result.text
    assert not (ws / ".git" / "sl" / "config").exists()
    assert "Sapling" in result.text
