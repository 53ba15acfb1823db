"""What of a Python project's manifests pip, uv, poetry and pdm install from elsewhere than an
index, or run unasked, read from their words for :mod:`.codekeys` (finding D12).

A requirement that is a folder (``./vendor/helper``), a file (``dist/x.whl``), a URL, a VCS
repository (``-e git+https://…``, ``x @ git+https://…``) is installed without any index's name
or version to review, and its build code (``setup.py``) runs as the user at the next
``pip install -r`` / ``uv sync`` / ``poetry install``: the per-package twin of the index lines
already set back. The same in ``pyproject.toml``: PEP 508's ``name @ URL`` in ``[project]``'s
``dependencies`` and ``optional-dependencies``, ``[dependency-groups]``, ``[build-system]``'s
``requires``, uv's ``constraint-``/``override-``/``dev-dependencies``, pdm's
``dev-dependencies`` and ``resolution.overrides``; poetry's tables with ``git``/``path``/``url``.
And PDM's lifecycle hooks in ``[tool.pdm.scripts]`` (``post_install``, ``pre_lock`` …: a
plain ``pdm install`` runs them, npm's ``postinstall`` twin). Requirements from an index
(``requests>=2``, ``x[extra]; python_version<"3.12"``) are ordinary edits.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

MAX_ENTRIES = 20_000

EDITABLE = ("-e", "--editable")
"""A requirements line's option that installs a folder or a VCS checkout in place."""
ARCHIVES = (".whl", ".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar.lz",
            ".tlz")
"""Names pip takes as a distribution file to install (``is_archive_file``)."""
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
"""``https:``, ``git+ssh:``, ``file:``: a URL (pip also reads ``user@host:path`` only after a VCS scheme)."""
_AT_URL = re.compile(r"^[^@;]*@\s*\S")
"""PEP 508's ``name @ URL`` (before any ``;`` marker)."""

PDM_HOOKS = frozenset({
    "pre_install", "post_install", "pre_lock", "post_lock", "pre_build", "post_build", "pre_publish",
    "post_publish", "pre_init", "post_init", "pre_script", "post_script", "pre_run", "post_run",
    "post_use",
})
"""``[tool.pdm.scripts]`` names PDM runs at its own commands (``pdm install``, ``pdm lock`` …)
with no script named: npm's lifecycle scripts' twin. Other scripts run only when named."""
UV_LISTS = ("constraint-dependencies", "override-dependencies", "dev-dependencies",
            "build-constraint-dependencies")
"""``[tool.uv]``'s lists of requirements uv resolves with the project's."""
POETRY_ELSEWHERE = frozenset({"git", "path", "url", "develop", "source"})
PIPFILE_ELSEWHERE = frozenset({"git", "hg", "svn", "bzr", "path", "file", "editable", "index"})
"""Keys of a poetry dependency's table that install it from a repository, a folder, a URL or
another index."""


def direct_requirement(words: list[str]) -> bool:
    """Whether a requirements file's line (its words, comment gone) installs from a folder, a
    file, a URL or a VCS repository (see the module), as pip reads it: ``-e``, a path (it
    has a ``/`` or starts with ``.``), an archive's name, a URL, ``name @ URL``."""
    if not words:
        return False
    first = words[0]
    if first.split("=", 1)[0] in EDITABLE or first.startswith("-e"):
        return True
    if first.startswith("-"):
        return False
    return direct_spec(" ".join(words).split(" --", 1)[0])


def direct_spec(spec: str) -> bool:
    """Whether one requirement (PEP 508, or pip's path or URL form) is not from an index."""
    req = spec.split(";", 1)[0].strip()
    if not req:
        return False
    if _AT_URL.match(req) or _SCHEME.match(req):
        return True
    if "/" in req or "\\" in req or req.startswith((".", "~")):
        return True
    return req.casefold().endswith(ARCHIVES)


def pyproject_keys(data: dict[str, Any]) -> dict[str, str]:
    """The entries of a parsed ``pyproject.toml`` that install from elsewhere than an index or
    run at PDM's own commands (see the module), by place (``project.dependencies.2``)."""
    out: dict[str, str] = {}
    project = _table(data, "project")
    _lists(out, "project.dependencies", project.get("dependencies"))
    for extra, specs in _items(_table(project, "optional-dependencies")):
        _lists(out, f"project.optional-dependencies.{extra}", specs)
    for group, specs in _items(_table(data, "dependency-groups")):
        _lists(out, f"dependency-groups.{group}", specs)
    _lists(out, "build-system.requires", _table(data, "build-system").get("requires"))
    tool = _table(data, "tool")
    uv, pdm, poetry = _table(tool, "uv"), _table(tool, "pdm"), _table(tool, "poetry")
    for key in UV_LISTS:
        _lists(out, f"tool.uv.{key}", uv.get(key))
    for group, specs in _items(_table(pdm, "dev-dependencies")):
        _lists(out, f"tool.pdm.dev-dependencies.{group}", specs)
    for name, spec in _items(_table(_table(pdm, "resolution"), "overrides")):
        if isinstance(spec, str) and direct_spec(f"{name} @ {spec}" if _SCHEME.match(spec) else spec):
            out[f"tool.pdm.resolution.overrides.{name}"] = json.dumps(spec)
    for name, script in _items(_table(pdm, "scripts")):
        if name in PDM_HOOKS:
            out[f"tool.pdm.scripts.{name}"] = json.dumps(script, sort_keys=True, default=str)
    tables = [("tool.poetry.dependencies", _table(poetry, "dependencies")),
              ("tool.poetry.dev-dependencies", _table(poetry, "dev-dependencies"))]
    tables += [(f"tool.poetry.group.{g}.dependencies", _table(_table(body, "dependencies"), ""))
               for g, body in _items(_table(poetry, "group")) if isinstance(body, dict)]
    for place, deps in tables:
        for name, spec in _items(deps):
            if _poetry_elsewhere(spec):
                out[f"{place}.{name}"] = json.dumps(spec, sort_keys=True, default=str)
    return out


def pipfile_keys(data: dict[str, Any]) -> dict[str, str]:
    """The packages of a parsed ``Pipfile`` that ``pipenv install`` takes from a folder, a
    file, a URL or a repository (``x = {path = "./vendor/x"}``, ``{git = …}``, ``{file = …}``)."""
    out: dict[str, str] = {}
    for section in ("packages", "dev-packages"):
        for name, spec in _items(_table(data, section)):
            if isinstance(spec, dict) and PIPFILE_ELSEWHERE & set(spec):
                out[f"{section}.{name}"] = json.dumps(spec, sort_keys=True, default=str)
    return out


def _poetry_elsewhere(spec: Any) -> bool:
    specs = spec if isinstance(spec, list) else [spec]  # multiple-constraints: a list of tables
    return any(isinstance(s, dict) and POETRY_ELSEWHERE & set(s)
               for s in itertools.islice(specs, MAX_ENTRIES))


def _lists(out: dict[str, str], place: str, specs: Any) -> None:
    if not isinstance(specs, list):
        return
    for number, spec in enumerate(itertools.islice(specs, MAX_ENTRIES)):
        if isinstance(spec, str) and direct_spec(spec):
            out[f"{place}.{number}"] = json.dumps(spec)


def _table(node: Any, key: str) -> dict[str, Any]:
    """``node[key]`` when a table (``""``: ``node`` itself, when one), else empty."""
    value = node if not key else node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, dict) else {}


def _items(node: dict[str, Any]) -> list[tuple[str, Any]]:
    return list(itertools.islice(node.items(), MAX_ENTRIES))


__all__ = ["ARCHIVES", "EDITABLE", "PDM_HOOKS", "PIPFILE_ELSEWHERE", "POETRY_ELSEWHERE", "direct_requirement",
           "direct_spec", "pipfile_keys", "pyproject_keys"]
