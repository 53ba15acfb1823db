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
