"""What of a package.json npm runs or publishes unasked, read from its words
(:mod:`shell.permissions.codekeys`): the entries of ``files`` that pack a secret file, the
dependencies it installs from elsewhere than the registry (whose lifecycle scripts it runs)."""

from __future__ import annotations

import json

from shell.permissions.codekeys import code_keys, secret_entries


def test_root_globs_of_files_that_pack_the_env_count_and_folder_ones_do_not() -> None:
    """``npm pack`` packs the root's ``.env`` for ``*``, ``**/*``, ``.*`` and ``*.*`` (npm 11)."""
    entries = ["*", "**/*", ".*", "*.*", "**", "./*.pem", ".env", "index.js", "*.js", "*.md", "dist",
               "dist/**", "config/*", "lib/**/*.js"]
    assert secret_entries(entries) == sorted(["*", "**/*", ".*", "*.*", "**", "./*.pem", ".env"])


def test_dependencies_from_a_folder_git_or_a_url_are_code_keys_and_registry_ones_are_not() -> None:
    package = {
        "dependencies": {"a": "^1.0", "n": "npm:b@2", "x": "file:./tools/x", "g": "user/repo",
                         "h": "git+https://example.invalid/y.git", "w": "workspace:*", "t": "1.x || 2"},
        "devDependencies": {"p": "./p", "u": "https://example.invalid/u.tgz", "l": "latest"},
        "overrides": {"q": {".": "link:../q", "r": "1.0.0"}}, "resolutions": {"z": "patch:z@1#./z.patch"},
    }
    keys = code_keys("package.json", json.dumps(package)) or {}
    places = ("dependencies", "devDependencies", "overrides", "resolutions")
    local = {k for k in keys if k.split(".")[0] in places}
    assert local == {"dependencies.x", "dependencies.g", "dependencies.h", "devDependencies.p",
                     "devDependencies.u", "overrides.q..", "resolutions.z"}


def test_the_workspaces_npm_installs_are_a_code_key() -> None:
    keys = code_keys("package.json", json.dumps({"name": "a", "workspaces": ["tools/*"]})) or {}
    assert keys == {"workspaces": '["tools/*"]'}
