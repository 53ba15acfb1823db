"""Whether a publisher's list file leaves a path out: ``.dockerignore``, ``.gcloudignore``,
``.vscodeignore``, ``.helmignore``, ``.vercelignore``, ``.slugignore`` (exclude lists) and
``MANIFEST.in`` (an sdist's include list), for :mod:`.unignored` (finding D19: a command
that drops the ``.env`` line makes the user's next ``docker build``, ``gcloud deploy`` or
``python -m build`` carry the key).

No tool here answers offline for these (docker needs its daemon, gcloud its login), so
their rules are read as documented, approximately: a pattern matches a path or one of its
folders, ``*`` and ``?`` within a name, ``**`` across folders, ``!`` re-includes, the last
match wins; in the gitignore-syntax lists (gcloud's, helm's, vsce's, vercel's) a pattern
without a ``/`` matches at any depth, in ``.dockerignore`` only from the root. A wrong
answer only makes a note said or not said; nothing is changed on its word.
"""

from __future__ import annotations

import re
from functools import lru_cache

EXCLUDE_LISTS = frozenset({".dockerignore", ".gcloudignore", ".vscodeignore", ".helmignore", ".vercelignore",
                           ".slugignore"})
INCLUDE_LISTS = frozenset({"MANIFEST.in"})
PUBLISHED_BY = {".dockerignore": "`docker build` (its context)", ".gcloudignore": "`gcloud deploy`",
                ".vscodeignore": "`vsce package`", ".helmignore": "`helm package`",
                ".vercelignore": "`vercel deploy`", ".slugignore": "a Heroku push",
                "MANIFEST.in": "`python -m build` (the sdist)"}


@lru_cache(maxsize=512)
def _pattern(glob: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            if glob.startswith("/", i):
                out[-1] = "(?:.*/)?"
                i += 1
            continue
        out.append("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) if c not in "[]" else c)
        i += 1
    try:
        return re.compile("".join(out))
    except re.error:
        return re.compile(re.escape(glob))


def _matches(glob: str, rel: str, any_depth: bool) -> bool:
    """Whether ``glob`` matches ``rel`` or one of its folders."""
    glob = glob.strip("/")
    if not glob:
        return False
    parts = rel.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    if any_depth and "/" not in glob:
        return any(_pattern(glob).fullmatch(p) for p in parts)
    return any(_pattern(glob).fullmatch(p) for p in prefixes)


def excluded(list_name: str, text: str, rel: str) -> bool:
    """Whether the exclude list ``list_name`` holding ``text`` leaves ``rel`` out."""
    any_depth = list_name != ".dockerignore"
    out = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if _matches(line[1:] if negated else line, rel, any_depth):
            out = not negated
    return out


def manifest_includes(text: str, rel: str) -> bool:
    """Whether ``MANIFEST.in`` holding ``text`` puts ``rel`` in the sdist (its commands in order)."""
    name = rel.rpartition("/")[2]
    folder = rel.rpartition("/")[0]
    inside = False
    for raw in text.splitlines():
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        command, args = words[0], words[1:]
        if command in ("include", "exclude"):
            hit = any(_matches(a, rel, False) and _pattern(a.strip("/")).fullmatch(rel) for a in args)
        elif command in ("global-include", "global-exclude"):
            hit = any(_pattern(a).fullmatch(name) for a in args)
        elif command in ("recursive-include", "recursive-exclude") and args:
            hit = (folder == args[0].strip("/") or folder.startswith(args[0].strip("/") + "/")
                   or args[0] in (".", "*")) and any(_pattern(a).fullmatch(name) for a in args[1:])
        elif command in ("graft", "prune"):
            hit = any(a in (".", "*") or rel.startswith(a.strip("/") + "/") for a in args)
        else:
            continue
        if hit:
            inside = command in ("include", "global-include", "recursive-include", "graft")
    return inside


def newly_published(list_name: str, before: str | None, after: str, rel: str) -> bool:
    """Whether the edit of ``list_name`` from ``before`` (None: there was none) to ``after``
    makes its publisher take ``rel``, which it did not take before."""
    if list_name in INCLUDE_LISTS:
        return manifest_includes(after, rel) and not (before is not None and manifest_includes(before, rel))
    return before is not None and excluded(list_name, before, rel) and not excluded(list_name, after, rel)


__all__ = ["EXCLUDE_LISTS", "INCLUDE_LISTS", "PUBLISHED_BY", "excluded", "manifest_includes",
           "newly_published"]
