"""Where a lock file says each package is downloaded from, read for :mod:`.codekeys` (finding D12).

``npm ci``/``npm install``, ``yarn``, ``pnpm install`` and ``uv sync`` fetch each package from
the URL its lock pins and run its install scripts or build code as the user: a command that
rewrote ``package-lock.json``'s ``resolved`` for lodash to ``https://evil.example/…`` (with a
matching ``integrity``) made the user's next plain install run that tarball. A lock is rewritten
at every install, so its keys are only what moves a package elsewhere:

- each host the lock downloads from that is not a public registry's
  (:data:`PUBLIC_HOSTS`), as one key: a private registry the lock already used stays an
  ordinary edit, a new host is not;
- each package from git or a file, by place (not a folder of the project: ``file:``
  dependencies and uv's path sources are package.json's and pyproject's keys, which the tools
  check the lock against);
- a public registry's tarball that is not the package's own (``lodash`` resolved to
  ``registry.npmjs.org/evil/-/evil-1.0.0.tgz``), by place.

Read as the tools read them: JSON (``package-lock.json``, ``npm-shrinkwrap.json``), yarn's and
pnpm's YAML-like text and ``uv.lock`` line by line (their URLs sit in fixed slots).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any
from urllib.parse import urlsplit

JSON_LOCKS = frozenset({"package-lock.json", "npm-shrinkwrap.json", "pipfile.lock", "flake.lock"})
TEXT_LOCKS = frozenset({"yarn.lock", "pnpm-lock.yaml", "uv.lock", "poetry.lock"})
NAMES = JSON_LOCKS | TEXT_LOCKS
PUBLIC_HOSTS = frozenset({"registry.npmjs.org", "registry.yarnpkg.com", "registry.npmmirror.com",
                          "pypi.org", "files.pythonhosted.org"})
"""Hosts a lock's URLs name without a word from the project (npm's, yarn's and PyPI's own)."""
CODE_HOSTS = frozenset({"github.com", "codeload.github.com", "gitlab.com", "bitbucket.org"})
"""Hosts of repositories: a URL there is a package from someone's repository, keyed whole (one
repointed to another repository on the same host is a change a host set would not see)."""
FLAKE_MOVING = frozenset({"rev", "narHash", "lastModified", "revCount", "ref"})
"""A flake input's ``locked`` keys an update moves within the same source."""
PIPENV_ELSEWHERE = frozenset({"git", "hg", "svn", "bzr", "path", "file", "editable"})
"""A Pipfile.lock package's keys that install it from a repository, a folder or a file."""
REGISTRY_ROOTS = frozenset(f"https://{host}" for host in PUBLIC_HOSTS if host.startswith("registry."))
MAX_ENTRIES = 200_000
WHY = ("says where npm, yarn, pnpm, uv, poetry, pipenv or nix get each package from (a resolved URL on "
       "another host, a git or file source, another package's tarball, a flake input's repository: the next "
       "npm ci, yarn, pnpm install, uv sync or direnv's use flake runs that package's install scripts or "
       "code as you)")

_TEXT_URL = re.compile(
    r"""^\s*(?:resolved|resolution)\s*:?\s*["']?([^"'\s,{}]+)"""
    r"""|\b(tarball|repo|directory)\s*:\s*["']?([^"'\s,{}]+)"""
    r"""|\bsource\s*=\s*\{\s*(\w+)\s*=\s*"([^"]*)\""""
    r"""|\burl\s*=\s*"([^"]+)\""""
    r"""|^\s*type\s*=\s*"(git|file|url)\""""
    r"""|^"?(@?[^@\s"]+)@.*:$""",
    re.M)
"""A URL or a source in yarn.lock (``resolved "…"``; berry's ``resolution: "x@…"``), pnpm-lock
(``tarball:``, ``repo:``, ``directory:``) or uv.lock (``source = { registry = "…" }``, a
wheel's or sdist's ``url = "…"``), or poetry.lock (``[package.source]``'s ``type`` and ``url``);
and a yarn.lock v1 entry's first line (``lodash@^4.17.21, lodash@^4:``), for its package's name."""
_SLOT_WORDS = ("resolved", "resolution", "tarball", "repo", "directory", "source", "url", "type")
"""Words a line of a text lock holds when :data:`_TEXT_URL` can match it (others are skipped unread)."""
_REGISTRY_PREFIXES = tuple(f"https://{host}/" for host in sorted(PUBLIC_HOSTS))
FOLDER_SOURCES = frozenset({"path", "directory", "editable", "virtual"})
"""uv.lock's sources that are folders of the project (``editable = "."``, a workspace member):
pyproject's path dependencies and ``[tool.uv] sources`` say them, and uv checks the lock against it."""
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def lock_keys(name: str, text: str) -> dict[str, str] | None:
    """The keys of a lock file named ``name`` (see the module), or None when a JSON lock does
    not parse (compared whole)."""
    if name in JSON_LOCKS:
        try:
            data = json.loads(text) if text.strip() else {}
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict):
            return None
        if name == "flake.lock":
            return _flake_keys(data)
        return _pipenv_keys(data) if name == "pipfile.lock" else _npm_keys(data)
    return _text_keys(text)


def _npm_keys(data: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    hosts: set[str] = set()
    packages = data.get("packages")
    entries: list[tuple[str, str, Any]] = []
    if isinstance(packages, dict):
        entries = [(place, place.rpartition("node_modules/")[2], body)
                   for place, body in itertools.islice(packages.items(), MAX_ENTRIES) if place]
    stack: list[tuple[str, Any]] = [("dependencies", data.get("dependencies"))]  # lockfile v1: nested
    while stack and len(entries) < MAX_ENTRIES:
        place, node = stack.pop()
        for dep, body in (node.items() if isinstance(node, dict) else ()):
            entries.append((f"{place}.{dep}", dep, body))
            if isinstance(body, dict):
                stack.append((f"{place}.{dep}.dependencies", body.get("dependencies")))
    for place, dep, body in entries:
        if not isinstance(body, dict) or body.get("link") is True:
            continue  # a workspace's own folder (package.json's workspaces: codekeys)
        resolved, version = body.get("resolved"), body.get("version")
        spec = resolved if isinstance(resolved, str) else version if isinstance(version, str) else ""
        named = body.get("name")  # an alias's real package (npm:lodash@4)
        real = named if isinstance(named, str) else dep
        _judge(out, hosts, place, spec, real, version if isinstance(version, str) else "")
    if hosts:
        out["(hosts)"] = json.dumps(sorted(hosts))
    return out


def _flake_keys(data: dict[str, Any]) -> dict[str, str]:
    """flake.lock: where each input comes from (its ``locked`` but the revision and hashes
    ``nix flake update`` moves): an ``.envrc``'s ``use flake`` evaluates them at the next ``cd``."""
    nodes = data.get("nodes")
    out: dict[str, str] = {}
    for name, node in itertools.islice(nodes.items() if isinstance(nodes, dict) else (), MAX_ENTRIES):
        locked = node.get("locked") if isinstance(node, dict) else None
        if isinstance(locked, dict):
            where = {k: v for k, v in locked.items() if k not in FLAKE_MOVING}
            out[f"nodes.{name}"] = json.dumps(where, sort_keys=True, default=str)
    return out


def _pipenv_keys(data: dict[str, Any]) -> dict[str, str]:
    """Pipfile.lock: its ``_meta.sources``' hosts, and each package from git, a folder or a file."""
    out: dict[str, str] = {}
    hosts: set[str] = set()
    meta = data.get("_meta")
    sources = meta.get("sources") if isinstance(meta, dict) else None
    for source in itertools.islice(sources if isinstance(sources, list) else (), MAX_ENTRIES):
        url = source.get("url") if isinstance(source, dict) else None
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is not None and parts.hostname not in PUBLIC_HOSTS:
            hosts.add(f"{parts.scheme}://{parts.netloc}")
    for section in ("default", "develop"):
        packages = data.get(section)
        entries = packages.items() if isinstance(packages, dict) else ()
        for name, body in itertools.islice(entries, MAX_ENTRIES):
            if isinstance(body, dict) and PIPENV_ELSEWHERE & set(body):
                out[f"{section}.{name}"] = json.dumps(body, sort_keys=True, default=str)
    if hosts:
        out["(hosts)"] = json.dumps(sorted(hosts))
    return out


def _judge(out: dict[str, str], hosts: set[str], place: str, spec: str, name: str, version: str) -> None:
    if name and version:  # the usual entry, the package's own tarball on a public registry: no parse
        tail = f"/{name}/-/{name.rpartition('/')[2]}-{version}.tgz"
        if spec.endswith(tail) and spec[:-len(tail)] in REGISTRY_ROOTS:
            return
    if not spec or re.fullmatch(r"[\w.+~^<>=| -]*", spec):
        return  # a version (lockfile v1 without resolved)
    parts = urlsplit(spec)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        out[place] = json.dumps(spec)  # git+…, file:, a folder
        return
    if parts.hostname in CODE_HOSTS:
        out[place] = json.dumps(spec)
    elif parts.hostname not in PUBLIC_HOSTS:
        hosts.add(f"{parts.scheme}://{parts.netloc}")
    elif parts.hostname.startswith("registry.") and name and version:
        base = name.rpartition("/")[2]
        if not parts.path.endswith(f"/{name}/-/{base}-{version}.tgz"):
            out[place] = json.dumps(spec)  # another package's tarball


def _slot_lines(text: str) -> list[str]:
    """The lines of a text lock that hold a slot (:data:`_SLOT_WORDS`), and yarn's headers."""
    return [line for line in text.splitlines()
            if any(word in line for word in _SLOT_WORDS) or (line[:1] not in ("", " ", "\t", "#")
                                                             and line.endswith(":"))]


def _own_tarball(url: str, package: str) -> bool:
    """Whether a public registry's tarball ``url`` is ``package``'s own (True when unknown)."""
    return not package or f"/{package}/-/{package.rpartition('/')[2]}-" in url


def _url_key(out: dict[str, str], hosts: set[str], spec: str, package: str) -> None:
    """What one URL of a text lock adds: nothing for a package's own public tarball."""
    if spec.startswith(_REGISTRY_PREFIXES):
        if "/-/" in spec and not _own_tarball(spec, package):
            out[f"tarball {spec}"] = spec  # yarn v1: lodash@^4 resolved to another package's
        return  # the usual entry: no parse
    parts = urlsplit(spec)
    if parts.scheme in ("http", "https") and parts.hostname:
        if parts.hostname in CODE_HOSTS:
            out[f"source {spec}"] = spec
        elif parts.hostname not in PUBLIC_HOSTS:
            hosts.add(f"{parts.scheme}://{parts.netloc}")
    elif len(parts.scheme) > 1:  # git+ssh:, file:
        out[f"source {spec}"] = spec


def _text_keys(text: str) -> dict[str, str]:
    """Keyed by what they say, not where (a package added above moves none)."""
    out: dict[str, str] = {}
    hosts: set[str] = set()
    sourced_from = ""
    package = ""
    for match in itertools.islice((m for line in _slot_lines(text) for m in _TEXT_URL.finditer(line)),
                                  MAX_ENTRIES):
        line, slot, slotted, source, sourced, url, typed, header = match.groups()
        if header:
            package = header
            continue
        if typed:  # poetry.lock's [package.source] type: git, a file, a URL; its url line follows
            sourced_from = typed
            continue
        if url and sourced_from:
            out[f"{sourced_from} {url}"] = url
            sourced_from = ""
            continue
        if source in FOLDER_SOURCES or slot == "directory":
            continue  # the project's own folders: what pyproject's and package.json's keys say
        if source == "git" or slot == "repo":  # uv's and pnpm's git packages
            out[f"git {sourced or slotted}"] = sourced or slotted
            continue
        spec = (line or slotted or sourced or url or "").split("#", 1)[0]
        if "@" in spec and not _SCHEME.match(spec):  # berry's resolution: "x@npm:1.0.0", "x@https://…"
            spec = spec[1:].partition("@")[2]
            if spec.startswith(("npm:", "workspace:", "patch:")):  # patch: a patch of package.json's
                continue
        _url_key(out, hosts, spec, package)
    if hosts:
        out["(hosts)"] = json.dumps(sorted(hosts))
    return out


__all__ = ["JSON_LOCKS", "NAMES", "PUBLIC_HOSTS", "TEXT_LOCKS", "WHY", "lock_keys"]
