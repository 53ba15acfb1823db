"""Finding L5: pyproject.toml's [tool.pylint] init-hook and [tool.mypy] plugins (and
setup.cfg's, tox.ini's sections) run code at every lint, as a .pylintrc does. A file
edit that changes those tables asks; any other edit of these busy files does not."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.policy import PermissionPolicy
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

PYPROJECT = '[project]\nname = "x"\nversion = "1.0"\n\n[tool.mypy]\nstrict = true\n'
SETUP_CFG = "[metadata]\nname = x\n\n[mypy]\nstrict = True\n"


def decide(root: Path, mode: str, tool: str, args: dict[str, Any]) -> Any:
    policy = PermissionPolicy(root, mode=mode, user_config=root / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(root))}
    return policy.decide(tools[tool], args)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "setup.cfg").write_text(SETUP_CFG)
    return tmp_path


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_an_edit_that_adds_code_a_linter_runs_asks(root: Path, mode: str) -> None:
    for tool, args in (
        ("edit_file", {"path": "pyproject.toml", "old_string": "strict = true",
                       "new_string": 'strict = true\nplugins = ["tools/plugin.py"]'}),
        ("edit_file", {"path": "pyproject.toml", "old_string": 'version = "1.0"\n',
                       "new_string": 'version = "1.0"\n\n[tool.pylint.main]\ninit-hook = "import os"\n'}),
        ("write_file", {"path": "sub/pyproject.toml", "content": '[tool.mypy]\nplugins = ["p.py"]\n'}),
        ("edit_file", {"path": "setup.cfg", "old_string": "strict = True",
                       "new_string": "plugins = tools/plugin.py"}),
        ("write_file", {"path": "tox.ini", "content": "[pylint.MAIN]\ninit-hook = import os\n"}),
        ("write_file", {"path": "pyproject.toml", "content": "[tool.mypy\nbroken"}),
    ):
        found = decide(root, mode, tool, args)
        assert found.action == "ask", (args, found)
        assert "init-hook" in found.reason, found.reason


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_flake8_local_plugins_ask_and_its_style_stays_routine(root: Path, mode: str) -> None:
    """N3: flake8 imports ``[flake8:local-plugins]``'s modules at every lint (an editor's
    lint-on-save too), the same class as pylint's init-hook; ``max-line-length`` is style."""
    (root / ".flake8").write_text("[flake8]\nmax-line-length = 100\n")
    plugins = "[flake8:local-plugins]\nextension =\n    X1 = evil:Checker\npaths = ./tools\n"
    for path in (".flake8", "tox.ini", "setup.cfg", "sub/.flake8"):
        found = decide(root, mode, "write_file", {"path": path, "content": "[flake8]\n" + plugins})
        assert found.action == "ask", (path, found)
        assert "flake8" in found.reason, found.reason
    found = decide(root, mode, "edit_file", {"path": ".flake8", "old_string": "100", "new_string": "120"})
    assert found.action == "allow", found


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_other_edits_of_these_files_stay_routine(root: Path, mode: str) -> None:
    for tool, args in (
        ("edit_file", {"path": "pyproject.toml", "old_string": 'version = "1.0"',
                       "new_string": 'version = "1.1"'}),
        ("write_file", {"path": "pyproject.toml",
                        "content": PYPROJECT + '\n[tool.ruff]\nline-length = 100\n'}),
        ("edit_file", {"path": "setup.cfg", "old_string": "name = x", "new_string": "name = y"}),
        ("write_file", {"path": "sub/pyproject.toml", "content": '[project]\nname = "y"\n'}),
    ):
        found = decide(root, mode, tool, args)
        assert found.action == "allow", (args, found)


def test_a_fifo_named_pyproject_asks_and_hangs_nothing(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pyproject.toml")
    found = decide(tmp_path, "accept-edits", "write_file", {"path": "pyproject.toml", "content": ""})
    assert found.action == "ask"


JS_FILES = {
    ".eslintrc.json": ('{\n  // lint\n  "extends": ["eslint:recommended"],\n'
                       '  "rules": {"semi": "error"},\n}\n'),
    "package.json": ('{\n  "name": "x",\n  "version": "1.0.0",\n'
                     '  "eslintConfig": {"rules": {"semi": "off"}}\n}\n'),
    ".prettierrc.yaml": "semi: false\ntabWidth: 2\n",
    ".babelrc": '{"presets": ["@babel/preset-env"]}\n',
    ".stylelintrc": "rules:\n  color-no-invalid-hex: true\n",
}


@pytest.fixture
def js(tmp_path: Path) -> Path:
    for name, text in JS_FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_an_edit_that_makes_a_js_tool_load_code_asks(js: Path, mode: str) -> None:
    for tool, args, said in (
        ("edit_file", {"path": ".eslintrc.json", "old_string": '"rules"',
                       "new_string": '"parser": "./evil.js",\n  "rules"'}, "ESLint"),
        ("edit_file", {"path": ".eslintrc.json", "old_string": '"eslint:recommended"',
                       "new_string": '"./base.js"'}, "ESLint"),
        ("edit_file", {"path": "package.json", "old_string": '"rules"',
                       "new_string": '"plugins": ["evil"], "rules"'}, "eslintConfig"),
        ("edit_file", {"path": "package.json", "old_string": '"version": "1.0.0",',
                       "new_string": '"version": "1.0.0",\n  "prettier": "./my-config.js",'}, "prettier"),
        ("edit_file", {"path": ".prettierrc.yaml", "old_string": "tabWidth: 2\n",
                       "new_string": "tabWidth: 2\nplugins:\n  - ./evil.js\n"}, "Prettier"),
        ("write_file", {"path": ".babelrc", "content": '{"presets": ["@babel/preset-env", "./evil.js"]}'},
         "Babel"),
        ("edit_file", {"path": ".stylelintrc", "old_string": "rules:",
                       "new_string": "plugins: [./evil.js]\nrules:"}, "Stylelint"),
        ("write_file", {"path": "web/.eslintrc.yml", "content": "extends:\n- ./shared.js\n"}, "ESLint"),
        ("write_file", {"path": ".prettierrc", "content": "&p [./evil.js]\n"}, "Prettier"),
    ):
        found = decide(js, mode, tool, args)
        assert found.action == "ask", (args, found)
        assert said in found.reason, found.reason


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_style_edit_of_a_js_tool_config_stays_routine(js: Path, mode: str) -> None:
    for tool, args in (
        ("edit_file", {"path": ".eslintrc.json", "old_string": '"error"', "new_string": '"warn"'}),
        ("edit_file", {"path": ".eslintrc.json", "old_string": '"rules": {',
                       "new_string": '"rules": {"prettier/prettier": ["error", {"singleQuote": true}], '}),
        ("edit_file", {"path": "package.json", "old_string": "1.0.0", "new_string": "1.1.0"}),
        ("edit_file", {"path": ".prettierrc.yaml", "old_string": "tabWidth: 2", "new_string": "tabWidth: 4"}),
        ("write_file", {"path": ".babelrc",
                        "content": '{"presets": ["@babel/preset-env"], "comments": false}'}),
        ("edit_file", {"path": ".stylelintrc", "old_string": "true", "new_string": "false"}),
        ("write_file", {"path": "web/.eslintrc.yml", "content": "rules:\n  semi: error\n"}),
    ):
        found = decide(js, mode, tool, args)
        assert found.action == "allow", (args, found)


@pytest.mark.parametrize("content", [
    "[" * 100_000, '{"a":' * 5_000, "/*" * 50_000, '"' * 50_000, "\x00\xff" * 10_000,
    "".join(" " * i + "plugins:\n" for i in range(400)), "plugins:\n" + "  - x\n" * 30_000,
    "\n".join(f"parser: p{i}" for i in range(500)),
])
def test_a_hostile_config_is_read_within_bounds(js: Path, content: str) -> None:
    """Nesting, unclosed comments, thousands of keys: read within bounds, nothing raised;
    what names code asks (a file whose keys cannot be followed is compared whole)."""
    args = {"path": ".eslintrc.yml", "content": content + "\nx: 1\n"}
    found = decide(js, "accept-edits", "write_file", args)
    names_code = "plugins" in content or "parser" in content
    assert found.action == ("ask" if names_code else "allow"), found.reason


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_markdownlint_cli2s_custom_rules_and_golangcis_plugins_ask(tmp_path: Path, mode: str) -> None:
    """Finding P14: markdownlint-cli2 requires the modules its JSONC and YAML configs
    name (customRules, markdownItPlugins, outputFormatters), as it runs its .cjs config;
    golangci-lint loads a custom linter's Go plugin at every lint. Their style stays routine."""
    (tmp_path / ".golangci.yml").write_text("linters-settings:\n  gofmt:\n    simplify: true\n")
    for tool, args, said in (
        ("write_file", {"path": ".markdownlint-cli2.yaml", "content": 'customRules:\n  - "./evil.js"\n'},
         "markdownlint-cli2"),
        ("write_file", {"path": "docs/.markdownlint-cli2.jsonc",
                        "content": '{\n  // ours\n  "markdownItPlugins": [["./evil.js"]],\n}\n'},
         "markdownlint"),
        ("write_file", {"path": "package.json",
                        "content": '{"markdownlint-cli2": {"customRules": ["x.js"]}}'}, "markdownlint-cli2"),
        ("edit_file", {"path": ".golangci.yml", "old_string": "  gofmt:",
                       "new_string": "  custom:\n    ex:\n      path: ./ex.so\n  gofmt:"}, "golangci-lint"),
        ("write_file", {"path": ".golangci.toml", "content": '[linters.settings.custom.ex]\npath = "x.so"\n'},
         "Go plugin"),
    ):
        found = decide(tmp_path, mode, tool, args)
        assert found.action == "ask", (args, found)
        assert said in found.reason, found.reason
    for tool, args in (
        ("write_file", {"path": ".markdownlint-cli2.yaml", "content": "config:\n  MD013: false\n"}),
        ("edit_file", {"path": ".golangci.yml", "old_string": "true", "new_string": "false"}),
    ):
        assert decide(tmp_path, mode, tool, args).action == "allow", args
