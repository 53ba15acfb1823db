"""The words of a shell command line that name a secret-looking file.

The sandbox hides the secret files it finds inside the workspace
(:mod:`.secretfiles`), but a command line can name one it cannot hide: outside the
workspace (``cat ~/other/.env``), or reached by a wildcard (``find / -name '*.pem'``).
So a command line that names one asks first, in every mode, and the question quotes
the words as they name the files. The words are read as the shell reads them (quotes,
escapes, braces, a quoted script's own words) and as a program may read them (a
pattern, a printf line end), because each of those is a way past a plain search.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable

from shell.core.secrets import is_secret_word, secret_name_hints

from .ignorelines import only_appends_ignore_lines
from .shellwords import read_words

_WORD_SPLIT = re.compile(r"""[\s=:,;&|<>()`'"]+""")
"""Where a word holds more words: ``--env-file=.env``, ``HEAD:.env``, ``bash -c 'cat .env'``,
and quotes inside a quoted script: ``python -c "open('.env')"``, ``php -r 'include "wp-config.php";'``."""
_WORD = re.compile(r"""(?:[^\s'"\\;&|<>()`]|\\.|'[^']*'?|"(?:[^"\\]|\\.)*"?)+""", re.DOTALL)
"""A shell word: quoted parts and escapes belong to it; an unclosed quote runs to the end."""
_QUOTING = re.compile(r"""\\(.)|['"]""", re.DOTALL)
_PRINTF_ENDS = re.compile(r"(?:\\[nrt])+$")
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def _unquote(word: str) -> list[str]:
    """The word as the shell passes it on (:func:`.shellwords.read_words`: ``".e""nv"``
    and ``.e\\nv`` are ``.env``, ``{.env,x}`` is two words, but ``'*\\n'`` keeps its
    backslash: single quotes keep everything); an unclosed quote is read loosely."""
    words = read_words(word)
    if words is None:
        return [_QUOTING.sub(lambda m: m.group(1) or "", word)]
    return [w.text for w in words]


def _readings(piece: str) -> list[str]:
    """How a program may read a word that holds a backslash: as it is (a file name),
    and as a pattern (``find -name '*.p\\em'`` is ``*.pem``: fnmatch drops a backslash),
    with a printf line end (``'*.pem\\n'``) left off: the text printf writes."""
    if "\\" not in piece:
        return [piece]
    return [piece, _ESCAPED.sub(r"\1", _PRINTF_ENDS.sub("", piece))]


WILDCARD = re.compile(r"[*?\[]")
"""A word with a shell wildcard in it: it names files by pattern, not by name."""
_SAMPLE_SECRETS = (
    ".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "server.pem", "server.key",
    "store.p12", "credentials", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass",
    "secrets.json", "prod.tfvars",
)  # fmt: skip
"""Names a wildcard is tried against: one that matches any of them names secret files."""
_ONLY_WILDCARDS = re.compile(r"[*?.\[\]/]*")


@functools.lru_cache(maxsize=512)
def _glob_names_secret(word: str) -> bool:
    """``.e*``, ``*.pem``, ``id_*``: a wildcard with some letters of its own that
    matches a secret-looking name (``*`` or ``.*`` alone names everything, so nothing)."""
    base = word.rstrip("/").rsplit("/", 1)[-1]
    if _ONLY_WILDCARDS.fullmatch(base):
        return False
    return any(fnmatch.fnmatchcase(name, base.lower()) for name in _SAMPLE_SECRETS)


@functools.cache
def _maybe() -> re.Pattern[str]:
    """A substring every secret-looking name (or a wildcard) has: a line without one names
    none, and the shell-word split is skipped (decisions are in the policy's hot path).
    Compiled at the first decision, not at import (~2-3 ms of the start otherwise)."""
    return re.compile("|".join(map(re.escape, secret_name_hints())) + r"|[*?\[]")


def named_secret_files(command: str) -> list[str]:
    """See :func:`_named` (cached per command line: the policy asks once per call, and
    again for its question)."""
    plain = command.replace("'", "").replace('"', "").replace("\\", "").lower()
    if not _maybe().search(plain) or only_appends_ignore_lines(command):  # echo .env >> .gitignore
        return []
    return list(_named(command))


@functools.lru_cache(maxsize=256)
def _named(command: str) -> tuple[str, ...]:
    """The words of a shell command line that name a secret-looking file: ``cat .env``,
    ``source .env.local``, ``--env-file=.env``, ``git show HEAD:.env``, ``< ~/x/id_rsa``
    (quotes and escapes as the shell reads them), and wildcards that match such names
    (``.e*``, ``-name '*.pem'``): they would reach secret files outside the workspace,
    which are not hidden."""
    out: list[str] = []
    for readings in _pieces(command):
        for reading in readings:
            if _glob_names_secret(reading) if WILDCARD.search(reading) else is_secret_word(reading):
                out.append(reading)  # as it names the files: the question quotes this
                break
    return tuple(out)


def _pieces(command: str) -> list[list[str]]:
    """Each word of ``command`` and each piece of one (``HEAD:path``, a quoted script's
    words), with the ways a program may read it (:func:`_readings`); each reading once."""
    out: list[list[str]] = []
    seen: set[str] = set()
    for word in (text for w in _WORD.findall(command) for text in _unquote(w)):
        whole = [] if _WORD_SPLIT.search(word) else [word]  # else its pieces (a quoted command's words)
        for piece in [*whole, *_WORD_SPLIT.split(word)]:
            readings = [r for r in _readings(piece.strip()) if r and r not in seen]
            seen.update(readings)
            if readings:
                out.append(readings)
    return out


def named_paths(command: str, denied: Callable[[str], str]) -> list[tuple[str, str]]:
    """The words of ``command`` naming a path ``denied`` answers for (a deny rule on
    reading: ``git show HEAD:config/secrets/db.txt`` prints what the sandbox hides in
    the work tree, finding M8), each with that answer; words that cannot be paths (no
    ``/`` and no ``.``: options, subcommands) are not asked about."""
    out: list[tuple[str, str]] = []
    for readings in _pieces(command):
        for reading in readings:
            pathlike = ("/" in reading or "." in reading) and not reading.startswith("-")
            if pathlike and (why := denied(reading)):
                out.append((reading, why))
                break
    return out
