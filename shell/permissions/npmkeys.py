"""What of a package.json npm (yarn, pnpm, bun) runs or publishes from elsewhere than its own
keys say outright, read from its words for :mod:`.codekeys` (finding A9's gaps): the
dependencies it installs from a folder, a git repository or a URL and the folders it installs as
workspaces (it runs each one's lifecycle scripts at ``npm install``), and the entries of
``files`` that pack a secret file (``npm publish`` sends it)."""

from __future__ import annotations

import fnmatch
import itertools
import json
import re
from typing import Any

from shell.core.secrets import is_secret_file

MAX_NODES = 20_000
MAX_DEPTH = 64

DEPENDENCY_KEYS = ("dependencies", "devDependencies", "optionalDependencies", "overrides", "resolutions")
"""package.json's keys naming what ``npm install`` (yarn, pnpm) installs, and with it runs the
lifecycle scripts of: only their entries not from the registry count (:func:`local_dependencies`)."""
NOT_FROM_REGISTRY = re.compile(
    r"\s*(file:|link:|portal:|patch:|git\+|git:|github:|gitlab:|bitbucket:|gist:|https?:|\.{0,2}/|~/"
    r"|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(#.*)?\s*$)")
"""A dependency's spec that names a folder, a link, a patch, a git repository or a URL: the
package npm installs from there runs its lifecycle scripts at ``npm install`` (a folder of
the workspace holding a ``postinstall``), with no registry's name or version to review; a
``user/repo`` is GitHub's. Not ``workspace:``: it names a package of the workspace's own
workspaces, installed (scripts and all) at every install anyway."""
WORKSPACES_KEY = "workspaces"
"""package.json's folders npm, yarn and bun install as the project's own packages, running each
one's lifecycle scripts at ``npm install`` (``"workspaces": ["tools/*"]`` ran the ``postinstall``
a folder of the workspace had: npm 11.19): whole, as :data:`DEPENDENCY_KEYS`' local entries."""
SECRET_SAMPLES = (".env", ".env.production", "id_rsa", "server.pem", "server.key")
"""Secret-looking names a ``files`` glob of the package's root is tried on, there and one
folder below: ``*``, ``**/*``, ``.*``, ``*.*`` pack the root's ``.env`` (``npm pack`` does)."""


def local_dependencies(data: dict[str, Any]) -> dict[str, str]:
    """The entries of a parsed package.json's :data:`DEPENDENCY_KEYS` whose spec is
    :data:`NOT_FROM_REGISTRY` (``"x": "file:./tools/x"``; in ``overrides`` at any depth), by
    place (finding A9's gap: npm ran the postinstall of a workspace folder a command named)."""
    out: dict[str, str] = {}
    stack: list[tuple[str, Any, int]] = [(key, data[key], 0) for key in DEPENDENCY_KEYS if key in data]
    while stack and len(out) < MAX_NODES:
        place, node, depth = stack.pop()
        if isinstance(node, str):
            if NOT_FROM_REGISTRY.match(node):
                out[place] = json.dumps(node)
        elif isinstance(node, dict) and depth < MAX_DEPTH:
            stack += [(f"{place}.{k}", v, depth + 1) for k, v in itertools.islice(node.items(), MAX_NODES)]
    return out


def secret_entries(files: Any) -> list[str]:
    """The entries of package.json's ``files`` that name a secret-looking file (``.env``,
    ``config/.env.production``, ``*.pem``: a ``*`` read as any name), or a glob of the root
    that matches one (``*``, ``.*``, ``**/*``: :data:`SECRET_SAMPLES`), sorted. A folder
    (``config``, ``dist/**``) packs what it holds: not judged here, by the entry's words alone."""
    if not isinstance(files, list):
        return []
    out = {e for e in itertools.islice(files, MAX_NODES) if isinstance(e, str) and _reaches_secret(e)}
    return sorted(out)


def _reaches_secret(entry: str) -> bool:
    pattern = entry.strip().removeprefix("./").removeprefix("/").rstrip("/")
    if is_secret_file(pattern.replace("*", "x")):
        return True
    if not any(c in pattern.split("/")[0] for c in "*?["):
        return False  # `dist/**`, `config/*`: a folder's, judged as the folder is (not here)
    samples = (f"{place}{name}" for place in ("", "a/") for name in SECRET_SAMPLES)
    return any(fnmatch.fnmatchcase(sample, pattern) for sample in samples)


__all__ = ["DEPENDENCY_KEYS", "NOT_FROM_REGISTRY", "SECRET_SAMPLES", "WORKSPACES_KEY", "local_dependencies",
           "secret_entries"]
