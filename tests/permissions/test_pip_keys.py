"""What of a Python project's manifests installs from elsewhere than an index or runs at a
plain install (:mod:`shell.permissions.pipkeys`, read through :func:`code_keys`): set back
after a command and asked before a file edit (finding D12); a byte-order mark hides nothing
(finding D16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shell.permissions.codekeys import code_keys
from shell.permissions.pipkeys import direct_spec


@pytest.mark.parametrize("spec", ["./vendor/helper", "vendor/helper", "../x", "~/x", "dist/x-1.0.tar.gz",
                                  "x-1.0-py3-none-any.whl", "https://evil.example/p.tar.gz",
                                  "git+https://evil.example/x.git#egg=x", "file:///tmp/x",
                                  "requests @ git+https://evil.example/r.git",
                                  "x[extra] @ https://e.example/x.whl ; python_version < '3.13'"])
def test_a_requirement_from_a_folder_a_file_a_url_or_a_repository_is_direct(spec: str) -> None:
    assert direct_spec(spec)


@pytest.mark.parametrize("spec", ["requests", "requests==2.31.0", "flask[async]>=2 ; python_version < '3.13'",
                                  "helper", "x ~= 1.0", "zope.interface>=5"])
def test_a_requirement_from_the_index_is_not(spec: str) -> None:
    assert not direct_spec(spec)


def test_requirements_lines_are_read_as_pip_joins_them_and_a_bom_goes() -> None:
    text = ("\ufeff--index-url https://evil.example/simple\nrequests==2\nflask \\\n  >=2\n"
            "-e git+https://evil.example/x.git#egg=x\n./vendor/helper  # ours\nfoo==1 --hash=sha256:ab\n")
    assert code_keys("requirements.txt", text) == {
        "--index-url#0": "--index-url https://evil.example/simple",
        "direct#1": "-e git+https://evil.example/x.git#egg=x", "direct#2": "./vendor/helper"}


def test_a_package_json_behind_a_bom_has_its_scripts_read_and_one_that_does_not_parse_is_whole() -> None:
    assert code_keys("package.json", '\ufeff{"scripts": {"postinstall": "id"}}') == {
        "scripts.postinstall": json.dumps("id")}
    assert code_keys("package.json", '{"scripts": {"postinstall": "id"}') is None


def test_pyproject_entries_from_elsewhere_and_pdm_hooks_count_and_index_ones_do_not() -> None:
    text = """
[project]
dependencies = ["requests>=2", "r @ git+https://evil.example/r.git"]
optional-dependencies = {dev = ["pytest", "h @ file:///tmp/h"]}
[dependency-groups]
lint = ["ruff", "./tools/lint"]
[tool.uv]
constraint-dependencies = ["x @ https://evil.example/x.whl", "y<2"]
[tool.pdm.scripts]
post_install = "id"
test = "pytest"
[tool.pdm.resolution.overrides]
urllib3 = "git+https://evil.example/u.git"
idna = ">=3"
[tool.poetry.dependencies]
python = "^3.12"
p = {git = "https://evil.example/p.git"}
q = {version = "^1", optional = true}
[tool.poetry.group.dev.dependencies]
d = {path = "../d", develop = true}
"""
    assert set(code_keys("pyproject.toml", text) or {}) == {
        "project.dependencies.1", "project.optional-dependencies.dev.1", "dependency-groups.lint.1",
        "tool.uv.constraint-dependencies.0", "tool.pdm.scripts.post_install",
        "tool.pdm.resolution.overrides.urllib3", "tool.poetry.dependencies.p",
        "tool.poetry.group.dev.dependencies.d"}


def test_a_file_tool_edit_that_plants_behind_a_bom_or_a_local_requirement_asks(tmp_path: Path) -> None:
    from shell.permissions.configtables import config_edit_why

    (tmp_path / "package.json").write_text('{"name": "a"}')
    (tmp_path / "requirements.txt").write_text("requests\n")
    planted = '\ufeff{"name": "a", "scripts": {"postinstall": "id"}}'
    assert config_edit_why(str(tmp_path / "package.json"), "write_file", {"content": planted})
    requirements = str(tmp_path / "requirements.txt")
    assert config_edit_why(requirements, "write_file", {"content": "requests\n./vendor/h\n"})
    assert not config_edit_why(requirements, "write_file", {"content": "requests>=2\n"})


def test_the_scripts_a_bom_package_json_names_for_a_commit_hook_are_found(tmp_path: Path) -> None:
    """The user's own package.json saved with a byte-order mark: lint-staged's script is still a hook's."""
    from shell.permissions.hookscripts import hook_scripts

    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "fmt.js").write_text("0;\n")
    hooks = '{"husky": {"hooks": {"pre-commit": "node scripts/fmt.js"}}}'
    (tmp_path / "package.json").write_text("\ufeff" + hooks)
    found, _ = hook_scripts(tmp_path)
    assert tmp_path / "scripts" / "fmt.js" in found, found
