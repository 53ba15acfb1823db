"""Whether a git command's remote is another repository on this machine (tester finding U1).

``git push q HEAD:x`` copies the whole history into ``q``, where no deny rule hides
anything, and ``git -C q checkout x`` then lays out what the sandbox hides at the root.
The old test took a remote as local only when it began like a path (``/``, ``./``,
``~``, ``file:``): a bare relative name (``q``, ``tmp/out``) passed, as did ``.`` after
``--``. git itself treats any word that is not a configured remote as a URL, and a URL
with no ``scheme://`` and no ``host:`` before its first slash as a path.

So the question is turned round: a remote is known to be elsewhere only when every URL
it stands for is a network URL (``https://``, ``ssh://``, ``git://``, ``host:path``) and
no such path exists on disk; a configured remote is judged by its URLs, a rewrite
(``url.*.insteadOf``) or a legacy ``.git/remotes``/``.git/branches`` file makes any remote
local. Anything else is local, and the caller asks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from . import githardened

NETWORK = re.compile(r"(?:(?:https?|ssh|git|git\+ssh|ssh\+git)://[^/\s]+|[A-Za-z0-9_.@-]+:(?!:))\S*")
"""A URL git reaches over the network: a known scheme with a host, or scp-like
``[user@]host:path`` (a colon before any slash; ``x::y`` is a transport helper)."""
_URLS = r"^(remote\..*\.(url|pushurl)|url\..*\.(insteadof|pushinsteadof))$"


def remote_local(repo: Path, remote: str | None) -> bool:
    """Whether ``remote`` (a word given to fetch/push/pull; None: none given, so a
    configured one) may be a repository on this machine."""
    configured = _configured(repo)
    if configured is None:
        return True  # git could not say: fail closed
    urls, rewrites = configured
    if rewrites or _legacy(repo):
        return True
    if remote is None:
        return any(_local(u, repo) for found in urls.values() for u in found)
    if remote in urls:
        return any(_local(u, repo) for u in urls[remote])
    return _local(remote, repo)


def urls_local(repo: Path, words: Sequence[str]) -> bool:
    """Whether any of ``words`` (URLs ``git remote add``/``set-url`` is given) is local."""
    return any(_local(w, repo) for w in words)


def _local(url: str, repo: Path) -> bool:
    if not NETWORK.fullmatch(url):
        return True
    try:
        return os.path.lexists(repo / url)
    except (OSError, ValueError):
        return True


def _configured(repo: Path) -> tuple[dict[str, list[str]], bool] | None:
    """Each configured remote's URLs, and whether any URL rewrite is configured."""
    done = githardened.run(["-C", str(repo), "config", "--null", "--get-regexp", _URLS])
    if done is None or done.returncode not in (0, 1):
        return None
    urls: dict[str, list[str]] = {}
    rewrites = False
    for item in done.stdout.split(b"\0"):
        key, _, value = os.fsdecode(item).partition("\n")
        if key.startswith("url."):
            rewrites = True
        elif key.startswith("remote."):
            urls.setdefault(key[len("remote."):].rsplit(".", 1)[0], []).append(value)
    return urls, rewrites


def _legacy(repo: Path) -> bool:
    """A ``.git/remotes/`` or ``.git/branches/`` file names a remote git still reads."""
    for name in ("remotes", "branches"):
        try:
            if any(os.scandir(repo / ".git" / name)):
                return True
        except OSError:
            continue
    return False


__all__ = ["NETWORK", "remote_local", "urls_local"]
