"""Where uv, poetry and pdm get packages from (finding Q28): a command that points
pyproject.toml's [[tool.uv.index]], [tool.uv] index-url, [tool.poetry.source] or
[tool.pdm.source] elsewhere, or writes a uv.toml, has that set back, as a virtualenv's
pip.conf and an .npmrc are: the user's next `uv sync` would download every dependency
from the attacker's index and run its build code, as the user, with the network. A
command's ordinary edit of pyproject.toml (a dependency, uv's dev-dependencies) stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions import quarantine
from shell.permissions.codekeys import code_keys
from shell.permissions.configmerge import merged
from shell.permissions.configtables import config_edit_why

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

PYPROJECT = '[project]\nname = "x"\nversion = "1.0"\ndependencies = []\n'
EVIL = "https://evil.invalid/simple"
INDEXES = {
    "uv index": f'\n[[tool.uv.index]]\nurl = "{EVIL}"\ndefault = true\n',
    "uv index-url": f'\n[tool.uv]\nindex-url = "{EVIL}"\n',
    "uv sources": '\n[tool.uv.sources]\nrequests = { git = "https://evil.invalid/requests" }\n',
    "poetry source": f'\n[[tool.poetry.source]]\nname = "x"\nurl = "{EVIL}"\npriority = "primary"\n',
    "pdm source": f'\n[[tool.pdm.source]]\nname = "pypi"\nurl = "{EVIL}"\n',
}


@pytest.mark.parametrize("kind", sorted(INDEXES))
def test_an_index_setting_is_a_code_key(kind: str) -> None:
    assert code_keys("pyproject.toml", PYPROJECT) == {}
    assert code_keys("pyproject.toml", PYPROJECT + INDEXES[kind]) != {}


OTHER_INDEXES = {
    "requirements.txt": ("requests==2\n", [f"--index-url {EVIL}", f"-i {EVIL}", f"--extra-index-url={EVIL}",
                                            "-f https://evil.invalid/w", "--trusted-host evil.invalid",
                                            "-r more.txt", "--no-index"]),
    "dev-requirements.in": ("pytest\n", [f"-i{EVIL}"]),
    "pixi.toml": ('[project]\nname = "x"\n', ['channels = ["evil"]']),
    "pyproject.toml": (PYPROJECT, ['[tool.pixi.project]\nchannels = ["evil"]',
                                   f'[tool.pixi.feature.gpu.pypi-options]\nindex-url = "{EVIL}"']),
}


@pytest.mark.parametrize("name", sorted(OTHER_INDEXES))
def test_pip_and_pixi_index_settings_are_code_keys(name: str) -> None:
    text, added = OTHER_INDEXES[name]
    assert code_keys(name, text) == {}
    for line in added:
        assert code_keys(name, f"{text}{line}\n") != {}, line
    assert code_keys(name, f"{text}# {added[0]}\n") == {}  # a comment names nothing


def test_a_file_edit_that_adds_an_index_line_asks(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("requests==2\n")
    path = str(tmp_path / "requirements.txt")
    add = {"old_string": "requests==2", "new_string": "rich\nrequests==2"}
    assert config_edit_why(path, "edit_file", add) == ""  # a dependency: no question
    redirect = {"old_string": "requests==2", "new_string": f"--index-url {EVIL}\nrequests==2"}
    assert "where pip gets packages from" in config_edit_why(path, "edit_file", redirect)


def test_uvs_other_settings_are_not() -> None:
    assert code_keys("pyproject.toml", PYPROJECT + '\n[tool.uv]\ndev-dependencies = ["pytest"]\n') == {}


def test_a_version_bump_is_kept_when_an_added_index_table_is_set_back() -> None:
    now = PYPROJECT.replace("1.0", "2.0") + INDEXES["uv index"]
    assert merged("pyproject.toml", PYPROJECT, now) == PYPROJECT.replace("1.0", "2.0")


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for project in later_workspace(monkeypatch, ".agent-shell-test-indexes-"):
        (project / "pyproject.toml").write_text(PYPROJECT)
        yield project


@pytest.mark.anyio
async def test_a_command_that_redirects_the_index_has_it_set_back(ws: Path) -> None:
    require_sandbox()
    (ws / "extra.toml").write_text(INDEXES["uv index"])
    result = await sh(ws, f"cat extra.toml >> pyproject.toml && printf 'index-url = \"{EVIL}\"\\n' > uv.toml")
    assert (ws / "pyproject.toml").read_text() == PYPROJECT, result.text
    assert not (ws / "uv.toml").exists(), result.text
    kept = {e.original for e in quarantine.entries()}
    assert {ws / "pyproject.toml", ws / "uv.toml"} <= kept, result.text


@pytest.mark.anyio
async def test_uvs_ordinary_edit_of_pyproject_stays(ws: Path) -> None:
    require_sandbox()
    result = await sh(ws, "printf '\\n[tool.uv]\\ndev-dependencies = [\"pytest\"]\\n' >> pyproject.toml")
    assert "dev-dependencies" in (ws / "pyproject.toml").read_text(), result.text
    assert "set back" not in result.text and not quarantine.entries(), result.text
