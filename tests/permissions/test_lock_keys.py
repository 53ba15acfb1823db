"""Where a lock file downloads each package from (:mod:`shell.permissions.lockkeys`): a new
host, a git or file source, another package's tarball count; the public registries and the
project's own folders do not (finding D12's locks)."""

from __future__ import annotations

import json

from shell.permissions.codekeys import code_keys

PNPM = ("packages:\n\n  lodash@4.17.21:\n    resolution: {integrity: sha512-v2kDE}\n\n"
        "  w@file:packages/w:\n    resolution: {directory: packages/w, type: directory}\n")
UV = ('[[package]]\nname = "requests"\nversion = "2.31.0"\n'
      'source = { registry = "https://pypi.org/simple" }\n'
      'sdist = { url = "https://files.pythonhosted.org/packages/r.tar.gz", hash = "sha256:x" }\n'
      '[[package]]\nname = "a"\nversion = "0.1.0"\nsource = { editable = "." }\n')
BERRY = ('"lodash@npm:^4.17.21":\n  version: 4.17.21\n  resolution: "lodash@npm:4.17.21"\n'
         '"typescript@patch:typescript@^5#~builtin<compat/typescript>":\n'
         '  resolution: "typescript@patch:typescript@npm%3A5.0.0#~builtin<compat/typescript>'
         '::version=5.0.0"\n')


def test_public_registries_and_the_projects_own_folders_name_nothing() -> None:
    assert code_keys("pnpm-lock.yaml", PNPM) == {}
    assert code_keys("uv.lock", UV) == {}
    assert code_keys("yarn.lock", BERRY) == {}


def test_another_host_or_a_git_source_counts() -> None:
    pnpm = PNPM + "  x@1.0.0:\n    resolution: {tarball: https://evil.example/x.tgz}\n"
    assert code_keys("pnpm-lock.yaml", pnpm) == {"(hosts)": '["https://evil.example"]'}
    pnpm = PNPM + "  y@1.0.0:\n    resolution: {commit: c, repo: https://github.com/e/y, type: git}\n"
    assert code_keys("pnpm-lock.yaml", pnpm) == {"git https://github.com/e/y": "https://github.com/e/y"}
    assert code_keys("uv.lock", UV.replace("files.pythonhosted.org", "evil.example")) == {
        "(hosts)": '["https://evil.example"]'}
    berry = BERRY.replace('resolution: "lodash@npm:4.17.21"', 'resolution: "lodash@https://evil.example/l.tgz"')
    assert code_keys("yarn.lock", berry) == {"(hosts)": '["https://evil.example"]'}


def test_a_package_lock_that_does_not_parse_is_compared_whole() -> None:
    assert code_keys("package-lock.json", '{"packages": ') is None


def test_a_poetry_lock_git_source_counts_by_its_url_and_a_registry_package_does_not() -> None:
    plain = '[[package]]\nname = "y"\nversion = "1"\nfiles = [{file = "y.whl", hash = "sha256:a"}]\n'
    git = plain + '\n[package.source]\ntype = "git"\nurl = "https://github.com/e/x.git"\nreference = "main"\n'
    assert code_keys("poetry.lock", plain) == {}
    assert code_keys("poetry.lock", git) == {"git https://github.com/e/x.git": "https://github.com/e/x.git"}


def test_a_yarn_entry_resolved_to_another_packages_tarball_or_a_repository_counts() -> None:
    yarn = ('lodash@^4.17.21, lodash@^4:\n  version "4.17.21"\n'
            '  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#ab"\n\n'
            '"@s/p@^1":\n  version "1.0.0"\n  resolved "https://registry.yarnpkg.com/@s/p/-/p-1.0.0.tgz#ab"\n')
    assert code_keys("yarn.lock", yarn) == {}
    other = "https://registry.yarnpkg.com/evil/-/evil-1.0.0.tgz"
    own = "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz"
    assert code_keys("yarn.lock", yarn.replace(own, other)) == {f"tarball {other}": other}
    repo = "https://codeload.github.com/e/x/tar.gz/abc"
    assert code_keys("yarn.lock", yarn.replace("https://registry.yarnpkg.com/@s/p/-/p-1.0.0.tgz", repo)) == {
        f"source {repo}": repo}


def test_a_pipfile_lock_source_elsewhere_or_a_git_package_counts() -> None:
    lock = {"_meta": {"sources": [{"name": "pypi", "url": "https://pypi.org/simple", "verify_ssl": True}]},
            "default": {"requests": {"version": "==2.31.0", "hashes": ["sha256:a"], "index": "pypi"}},
            "develop": {}}
    assert code_keys("Pipfile.lock", json.dumps(lock)) == {}
    lock["develop"] = {"x": {"git": "https://evil.example/x.git", "ref": "abc"}}
    lock["_meta"]["sources"][0]["url"] = "https://evil.example/simple"  # type: ignore[index]
    assert set(code_keys("Pipfile.lock", json.dumps(lock)) or {}) == {"develop.x", "(hosts)"}


def test_a_flake_lock_input_repointed_counts_and_an_update_does_not() -> None:
    def lock(owner: str, rev: str) -> str:
        return json.dumps({"nodes": {"nixpkgs": {"locked": {
            "type": "github", "owner": owner, "repo": "nixpkgs", "rev": rev, "narHash": f"sha256-{rev}",
            "lastModified": 1}}, "root": {"inputs": {"nixpkgs": "nixpkgs"}}}, "root": "root", "version": 7})

    assert code_keys("flake.lock", lock("NixOS", "a")) == code_keys("flake.lock", lock("NixOS", "b"))
    assert code_keys("flake.lock", lock("NixOS", "a")) != code_keys("flake.lock", lock("evil", "a"))
