"""Shared config files whose keys name code a linter or formatter loads (pyproject.toml's
[tool.pylint] and [tool.mypy], setup.cfg's and tox.ini's sections, ESLint's, Prettier's,
Babel's and Stylelint's JSON and YAML configs, package.json's eslintConfig …): a sandboxed
command (real bubblewrap) that changes those keys has the file set back as it was, its
own version kept in the quarantine and said; a command's ordinary edit of the same files
(a version, a rule, a line length) stays."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions import quarantine

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio

PYPROJECT = '[project]\nname = "x"\nversion = "1.0"\n\n[tool.mypy]\nstrict = true\n'
FILES = {
    "pyproject.toml": PYPROJECT,
    "setup.cfg": "[metadata]\nname = x\n\n[mypy]\nstrict = True\n",
    "tox.ini": "[tox]\nenvlist = py312\n",
    ".eslintrc.json": ('{\n  // lint\n  "extends": ["eslint:recommended"],\n'
                       '  "rules": {"semi": "error"},\n}\n'),
    "package.json": json.dumps({"name": "x", "version": "1.0.0", "eslintConfig": {"rules": {"semi": "off"}},
                                "prettier": {"semi": False}}, indent=2) + "\n",
    ".prettierrc.yaml": "semi: false\ntabWidth: 2\n",
    ".babelrc": '{"presets": ["@babel/preset-env"]}\n',
    ".stylelintrc.yml": "rules:\n  color-no-invalid-hex: true\n",
    ".flake8": "[flake8]\nmax-line-length = 100\n",
}


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for project in later_workspace(monkeypatch, ".agent-shell-test-configs-"):
        for name, text in FILES.items():
            (project / name).write_text(text)
        (project / "evil.js").write_text("require('child_process').execSync('touch PWNED')\n")
        yield project


PLANTS = {
    "pyproject.toml": ("printf '\\n[tool.pylint.main]\\ninit-hook = \"import os; os.system(1)\"\\n' "
                       ">> pyproject.toml"),
    "setup.cfg": "sed -i 's/strict = True/plugins = tools\\/plugin.py/' setup.cfg",
    "tox.ini": "printf '[pylint.MAIN]\\nload-plugins = evil\\n' >> tox.ini",
    ".eslintrc.json": ("sed -i 's/\"eslint:recommended\"/\"eslint:recommended\", \".\\/evil.js\"/' "
                       ".eslintrc.json"),
    "package.json": "sed -i 's/\"rules\": {/\"parser\": \".\\/evil.js\", \"rules\": {/' package.json",
    ".prettierrc.yaml": "printf 'plugins:\\n  - ./evil.js\\n' >> .prettierrc.yaml",
    ".babelrc": "printf '{\"presets\": [\"@babel/preset-env\", \"./evil.js\"]}\\n' > .babelrc",
    ".stylelintrc.yml": "printf 'plugins: [./evil.js]\\n' >> .stylelintrc.yml",
    ".flake8": ("printf '[flake8:local-plugins]\\nextension =\\n    X1 = evil:Checker\\npaths = ./tools\\n' "
                ">> .flake8"),
}
ORDINARY = {
    "pyproject.toml": ("sed -i 's/1.0/1.1/' pyproject.toml", 'version = "1.1"'),
    "setup.cfg": ("sed -i 's/name = x/name = y/' setup.cfg", "name = y"),
    "tox.ini": ("printf '[testenv]\\ncommands = pytest\\n' >> tox.ini", "commands = pytest"),
    ".eslintrc.json": ("sed -i 's/\"error\"/\"warn\"/' .eslintrc.json", '"semi": "warn"'),
    "package.json": ("sed -i 's/1.0.0/1.0.1/' package.json", '"version": "1.0.1"'),
    ".prettierrc.yaml": ("sed -i 's/tabWidth: 2/tabWidth: 4/' .prettierrc.yaml", "tabWidth: 4"),
    ".babelrc": ("printf '{\"presets\": [\"@babel/preset-env\"], \"comments\": false}\\n' > .babelrc",
                 '"comments": false'),
    ".stylelintrc.yml": ("printf '  indentation: 2\\n' >> .stylelintrc.yml", "indentation: 2"),
    ".flake8": ("sed -i 's/100/120/' .flake8", "max-line-length = 120"),
}


@pytest.mark.parametrize("name", sorted(PLANTS))
async def test_a_command_that_makes_a_config_name_code_has_it_set_back(ws: Path, name: str) -> None:
    require_sandbox()
    result = await sh(ws, f"{PLANTS[name]}; cat {name} >/dev/null")
    assert (ws / name).read_text() == FILES[name], result.text
    assert f"{name}: changed:" in result.text and "set back as" in result.text, result.text
    kept = [e for e in quarantine.entries() if e.original == ws / name]
    assert len(kept) == 1 and kept[0].stored.read_text() != FILES[name], result.text


@pytest.mark.parametrize("name", sorted(ORDINARY))
async def test_an_ordinary_edit_of_the_same_config_stays(ws: Path, name: str) -> None:
    require_sandbox()
    command, now = ORDINARY[name]
    result = await sh(ws, command)
    assert now in (ws / name).read_text(), result.text
    assert "set back" not in result.text and not quarantine.entries(), result.text


async def test_only_the_code_keys_are_set_back_and_the_commands_other_edits_kept(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "sed -i 's/1.0/2.0/' pyproject.toml && "
                          "printf '[tool.pylint.main]\\nload-plugins = \"evil\"\\n' >> pyproject.toml")
    assert (ws / "pyproject.toml").read_text() == PYPROJECT.replace("1.0", "2.0"), result.text
    stored = next(e.stored for e in quarantine.entries() if e.original == ws / "pyproject.toml")
    assert 'version = "2.0"' in stored.read_text() and "load-plugins" in stored.read_text()
    assert "only those keys were set back" in result.text and str(stored) in result.text, result.text


async def test_a_package_json_bump_stays_when_its_eslint_parser_is_set_back(ws: Path) -> None:
    require_sandbox()
    edit = ("import json; d = json.load(open('package.json')); d['version'] = '1.1.0'; "
            "d['dependencies'] = {'left-pad': '1.3.0'}; d['eslintConfig']['parser'] = './evil.js'; "
            "open('package.json', 'w').write(json.dumps(d, indent=2) + chr(10))")
    result = await sh(ws, f'python3 -c "{edit}"')
    data = json.loads((ws / "package.json").read_text())
    assert data["version"] == "1.1.0" and data["dependencies"] == {"left-pad": "1.3.0"}, result.text
    assert data["eslintConfig"] == {"rules": {"semi": "off"}}, result.text


NPM_EDITS = {
    "a postinstall script": "d['scripts'] = {'postinstall': 'node evil.js', 'test': 'jest'}",
    "a prepare script": "d['scripts'] = {'prepare': 'node evil.js'}",
    "publishConfig": "d['publishConfig'] = {'registry': 'https://registry.evil.example/'}",
    "a secret-looking file to publish": "d['files'] = ['index.js', '.env', 'dist/']",
    "a glob that publishes the .env": "d['files'] = ['index.js', '*', 'dist/']",  # npm pack packs .env
}


@pytest.mark.parametrize("what", sorted(NPM_EDITS))
async def test_what_npm_runs_or_sends_unasked_is_set_back_and_the_rest_kept(ws: Path, what: str) -> None:
    """Finding A9: a command wrote package.json's postinstall (run as the user at their next
    plain `npm install`), its publishConfig.registry or a `.env` in `files` (sent by the
    next `npm publish`), with no word. Now that key is set back and said; the command's
    other edits (the version, a `test` script, `dist/` to publish) stay."""
    require_sandbox()
    edit = (f"import json; d = json.load(open('package.json')); d['version'] = '1.2.0'; "
            f"{NPM_EDITS[what]}; open('package.json', 'w').write(json.dumps(d, indent=2) + chr(10))")
    result = await sh(ws, f'python3 -c "{edit}"')
    data = json.loads((ws / "package.json").read_text())
    assert data["version"] == "1.2.0", result.text
    assert "package.json: changed:" in result.text, result.text
    assert "what npm runs or sends unasked" in result.text, result.text
    assert "publishConfig" not in data, data
    assert data.get("scripts") == {"a postinstall script": {"test": "jest"}, "a prepare script": {}}.get(what)
    assert data.get("files") == (["index.js", "dist/"] if "files" in NPM_EDITS[what] else None), data


async def test_a_dependency_from_a_workspace_folder_or_git_is_set_back_and_a_registry_one_stays(
    ws: Path
) -> None:
    """A9's gap: ``"x": "file:./tools/x"`` made the user's next ``npm install`` run the
    ``postinstall`` the workspace folder ``tools/x`` had (npm 11 runs a file: dependency's
    scripts); a git or GitHub spec runs its ``prepare``; ``"workspaces": ["tools/*"]`` installs it as
    the project's own (npm ran its postinstall too). A registry version is an ordinary edit."""
    require_sandbox()
    (ws / "tools" / "x").mkdir(parents=True)
    (ws / "tools" / "x" / "package.json").write_text('{"name": "x", "scripts": {"postinstall": "node evil"}}')
    edit = ("import json; d = json.load(open('package.json')); "
            "d['dependencies'] = {'x': 'file:./tools/x'}; d['devDependencies'] = {'g': 'evil/pkg'}; "
            "d['workspaces'] = ['tools/*']; "
            "open('package.json', 'w').write(json.dumps(d, indent=2) + chr(10))")
    result = await sh(ws, f'python3 -c "{edit}"')
    data = json.loads((ws / "package.json").read_text())
    assert not {"dependencies", "devDependencies", "workspaces"} & set(data), result.text
    assert "a dependency it installs from a folder" in result.text, result.text
    result = await sh(ws, "python3 -c \"import json; d = json.load(open('package.json')); "
                          "d['dependencies'] = {'left-pad': '^1.3.0', 'a': 'npm:b@2'}; "
                          "open('package.json', 'w').write(json.dumps(d))\"")
    assert json.loads((ws / "package.json").read_text())["dependencies"]["left-pad"] == "^1.3.0", result.text
    assert "quarantine" not in result.text, result.text


async def test_binding_gyp_is_read_only_and_a_new_one_is_moved_out(ws: Path) -> None:
    """node-gyp runs a binding.gyp's ``<!(…)`` commands at ``npm install`` (no install script needed)."""
    require_sandbox()
    (ws / "native").mkdir()
    (ws / "native" / "binding.gyp").write_text('{"targets": [{"target_name": "n", "sources": ["n.cc"]}]}\n')
    plant = "echo '{\"targets\": [{\"sources\": [\"<!(touch PWNED)\"]}]}' > native/binding.gyp"
    result = await sh(ws, f"{plant}; echo '{{}}' > binding.gyp; echo done")
    assert "done" in result.text
    assert "<!(" not in (ws / "native" / "binding.gyp").read_text(), result.text
    assert not (ws / "binding.gyp").exists(), result.text
    assert "binding.gyp: new: node-gyp runs" in result.text, result.text


async def test_where_the_keys_cannot_be_set_back_alone_the_result_names_the_lost_edits(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "sed -i 's/1.0/2.0/' pyproject.toml && "
                          "sed -i '1i tool.pylint.init-hook = \"evil\"' pyproject.toml")
    assert (ws / "pyproject.toml").read_text() == PYPROJECT, result.text
    stored = next(e.stored for e in quarantine.entries() if e.original == ws / "pyproject.toml")
    assert "other edits of it (project.version) were set back too" in result.text, result.text
    assert f"diff -u {ws / 'pyproject.toml'} {stored}" in result.text, result.text


async def test_a_yaml_configs_lost_edits_are_named_by_line(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "sed -i 's/tabWidth: 2/tabWidth: 4/' .prettierrc.yaml && "
                          "printf 'plugins:\\n  - ./evil.js\\n' >> .prettierrc.yaml")
    assert (ws / ".prettierrc.yaml").read_text() == FILES[".prettierrc.yaml"], result.text
    assert "other edits of it (lines 2-4) were set back too" in result.text, result.text


async def test_a_new_config_naming_code_is_moved_out_and_a_plain_one_stays(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "mkdir -p sub web "
                          "&& printf '[tool.mypy]\\nplugins = [\"p\"]\\n' > sub/pyproject.toml "
                          "&& printf '{\"plugins\": [\"./evil.js\"]}' > web/.prettierrc "
                          "&& printf '{\"semi\": true}' > .prettierrc.json")
    assert not (ws / "sub" / "pyproject.toml").exists(), result.text
    assert not (ws / "web" / ".prettierrc").exists(), result.text
    assert "sub/pyproject.toml: new:" in result.text and "quarantine" in result.text, result.text
    assert (ws / ".prettierrc.json").read_text() == '{"semi": true}', result.text


async def test_a_config_swapped_for_a_link_is_put_back(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "printf '[tool.pylint.main]\\ninit-hook = \"x\"\\n' > /tmp/p.toml && "
                          "mkdir -p lib && cp /tmp/p.toml lib/p.toml && ln -sf lib/p.toml pyproject.toml")
    assert not (ws / "pyproject.toml").is_symlink(), result.text
    assert (ws / "pyproject.toml").read_text() == PYPROJECT, result.text


async def test_a_new_nested_config_that_is_a_link_to_code_naming_json_is_moved_out(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "mkdir -p web && printf '{\"plugins\": [\"./evil.js\"]}' > web/conf.json "
                          "&& ln -s conf.json web/.eslintrc.json")
    assert not (ws / "web" / ".eslintrc.json").is_symlink(), result.text
    assert "web/.eslintrc.json: new:" in result.text, result.text
