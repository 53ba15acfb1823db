"""The secret values a secret file holds: what to redact when its content reaches
the model some other way than by reading the file.

The sandbox hides a workspace's ``.env`` from commands, but not what git keeps of
it: a ``.env`` once stashed with ``git stash -u``, or staged and unstaged, is in the
object store, and ``git stash show -p`` or ``git cat-file --batch-all-objects``
prints it (finding N0). The values themselves are the one thing that can still be
recognised there, so they are taken from the file and redacted as exact text by the
one secrets policy (:class:`shell.core.secrets.Secrets`, its values net).

Exact values only, and only those that look like secrets, so that ordinary output
is unchanged: ``NODE_ENV=production`` must not turn every "production" into
``[REDACTED]``. A value is taken when

- its name says secret (:func:`shell.core.secrets.is_secret_name`: ``API_KEY``,
  ``DB_PASSWORD``, ``"client_secret":``), it is at least
  :data:`~shell.core.secrets.MIN_SECRET_LEN` characters long, it is not where the
  secret is (a URL without credentials, a path), and it looks like a secret rather than
  a word or code (:func:`secret_looking`: a token, three kinds of characters,
  ``S3cr3t!pw``, or a digit and no blanks, ``hunter2-but-longer``). A file is anyone's
  to write (a cloned repository's committed ``.env`` with ``API_TOKEN=console.log``),
  and a value taken alone is redacted from every output and makes every call holding
  it ask (tester round 11, Q11): ``console.log``, ``return True``, ``postgres`` must
  not be such values. A word-like value under a secret name is taken as the short
  ones below are, with its name (``DB_PASSWORD=postgres``): the file's line is still
  redacted where git prints it, and the word elsewhere is not;
- or it looks like a token whatever its name (:func:`token_like`): :data:`TOKEN_LIKE_LEN`
  characters or more, no blanks, not a path, a URL or an option, letters and digits
  mixed as in a key, not as in a name (``my-bucket-2024-prod``);
- or, shorter than that, at least :data:`SHORT_VALUE_LEN` characters under a name that
  says secret (``DB_PASSWORD=hunter2``, ``PGPASSWORD=root``: short dev passwords are the
  common case, finding P16), not a flag word (``true``, ``off``) nor a ``$``
  placeholder. Such a value is taken with its name, as the file writes them
  (``DB_PASSWORD=hunter2``, ``password: admin1``), never alone: redacting every
  "root" or "admin" of a command's output would mangle ``ls -l`` and logs, while the
  pair is only ever the file's line. A value shorter still is a placeholder (``x``);
- or the policy's shapes find it anywhere in the file (a provider key, a URL's
  password, ``.netrc``'s ``password``, a private key), and each line of a private
  key's body (``git log -p`` prints them one by one, ``+`` before each).

Lines read as ``NAME=value``, ``export NAME="value"``, ``name: value`` (YAML),
``"name": "value",`` (JSON, one key a line) and ``-u user,password`` (lftp, curl);
quotes and a trailing comment are not part of the value.
"""

from __future__ import annotations

import itertools
import re

from .secrets import MIN_SECRET_LEN, Secrets, is_secret_name

MAX_VALUE_LEN = 8192
"""Longer values are not taken (a secret file's values are short; a JSON key file's
whole private key, escaped on one line, is about 2 KB)."""
MAX_VALUES = 256
"""Values taken from one file, in the order found."""
SHORT_VALUE_LEN = 4
"""The shortest value under a secret name that is taken (with its name: see above)."""
FLAG_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null", "nil", "enabled",
                        "disabled"})
"""Values that switch something (``AUTH_ENABLED=true``), not secrets."""
TOKEN_LIKE_LEN = 16
"""How long a value under a name that does not say secret must be to count as a token."""

_LINE = re.compile(
    r"""^[ \t]*(?:export[ \t]+)?["']?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)["']?"""
    r"""[ \t]*[=:][ \t]*(?P<value>.*?)[ \t]*$"""
)
_USER_PASSWORD = re.compile(r"""(?:^|\s)(?:-u|--user)\s+["']?[^\s,:'"]+[,:](?P<value>[^\s'"]+)""")
"""A user and password given as an option's value (``-u alice,PASS``, ``--user a:PASS``):
lftp's rc files and bookmarks, curl's config (finding A3); the password is taken as one
under a secret name."""
_QUOTED = re.compile(r"""^(?P<q>["'`])(?P<inner>.*)(?P=q)$""")
_PEM_LINE = re.compile(r"^[A-Za-z0-9+/=]{16,}$")
_NOT_TOKEN_START = ("/", "./", "../", "~", "-", "$")


def secret_file_values(text: str) -> list[str]:
    """The values of a secret file's ``text`` worth redacting (see the module docstring),
    each once, at most :data:`MAX_VALUES`."""
    found: dict[str, None] = {}
    paired: dict[str, str] = {}  # the name with its value, as written: for a value not taken alone
    for line in text.splitlines():
        for option in _USER_PASSWORD.finditer(line):  # lftp's `open -u alice,PASS host`, curl's `-u a:PASS`
            if _worth("password", option["value"]):
                found[option["value"]] = None
            elif _paired("password", option["value"]):
                paired[option[0].strip()] = option["value"]
        match = _LINE.match(line)
        if match is None:
            continue
        value = _unquoted(match["value"])
        if _worth(match["name"], value):
            found[value] = None
        elif _paired(match["name"], value):
            end = match.start("value") + match["value"].find(value) + len(value)
            paired[line[match.start("name") : end]] = value
    for value in Secrets().matches(text):  # the policy's shapes: tokens, URL passwords, keys
        value = value.strip()
        if value in paired.values() and not secret_looking(value):
            continue  # PGPASSWORD=postgres: taken with its name above, not the word alone
        if MIN_SECRET_LEN <= len(value) <= MAX_VALUE_LEN:
            found[value] = None
        if "PRIVATE KEY" in value or "PuTTY-User-Key" in value:
            found.update((line, None) for line in map(str.strip, value.splitlines()) if _PEM_LINE.match(line))
    found.update((pair, None) for pair, value in paired.items() if value not in found)
    return list(found)[:MAX_VALUES]


def _unquoted(value: str) -> str:
    """A value as the program reading the file takes it: ``"abc",`` → ``abc``,
    ``abc # note`` → ``abc``."""
    if value.endswith(",") and value[:1] in "\"'":
        value = value[:-1].rstrip()
    quoted = _QUOTED.match(value)
    if quoted is not None:
        return quoted["inner"]
    if " #" in value or "\t#" in value:
        value = re.split(r"[ \t]#", value, maxsplit=1)[0].rstrip()
    return value


def _worth(name: str, value: str) -> bool:
    if not MIN_SECRET_LEN <= len(value) <= MAX_VALUE_LEN:
        return False
    if is_secret_name(name):  # not where it points: TOKEN_URL=https://…/token, KEY_FILE=./k.pem
        if ("://" in value and "@" not in value) or value.startswith(_NOT_TOKEN_START[:4]):
            return False
        return secret_looking(value)
    return token_like(value)


def _paired(name: str, value: str) -> bool:
    """A value under a name that says secret that is not redacted alone: too short, or
    word-like (see above); taken with its name."""
    return (SHORT_VALUE_LEN <= len(value) <= MAX_VALUE_LEN and is_secret_name(name)
            and value.lower() not in FLAG_WORDS and not value.startswith(_NOT_TOKEN_START))


_JOINERS = frozenset("._-")
PASSPHRASE_LEN = 20
"""How long a run of letters of one case must be to count as a passphrase under a secret name."""


def secret_looking(value: str) -> bool:
    """Whether a value under a secret name looks like a secret, not a word or code: a
    token (:func:`token_like`); or at least three of lowercase, uppercase, digits and
    other symbols (``.``, ``_``, ``-`` join words and count for none: ``S3cr3t!pw``,
    ``Tr0ub4dor and 3 horses``); or, without blanks, a digit (``hunter2-but-longer``,
    ``s3cr3t-value``); or a passphrase run together, :data:`PASSPHRASE_LEN` letters or
    more in one case. Not ``console.log``, ``return True``, ``agent-shell``,
    ``postgres``, ``return 0``: words of code and of every log, which a file anyone can
    commit would otherwise have redacted everywhere (finding Q11)."""
    if token_like(value):
        return True
    digit = any(c.isdigit() for c in value)
    kinds = (any(c.islower() for c in value), any(c.isupper() for c in value), digit,
             any(not c.isalnum() and c not in _JOINERS and not c.isspace() for c in value))
    if len(value) >= PASSPHRASE_LEN and value.isalnum() and (value.islower() or value.isupper()):
        return True  # correcthorsebatterystaple; not getElementsByClassName
    return sum(kinds) >= 3 or (digit and not any(c.isspace() for c in value))


def token_like(value: str) -> bool:
    """Whether ``value`` looks like a key or token rather than a word, a name, a host,
    a path or a URL: long, unbroken, letters and digits both, and either both cases of
    letters (base64, ``sk_live_51H…``) or letters and digits side by side three times
    or more (hex, ``7f3a9c…``); ``my-bucket-2024-prod`` is a name."""
    if len(value) < TOKEN_LIKE_LEN or any(c.isspace() for c in value) or "://" in value:
        return False
    if value.startswith(_NOT_TOKEN_START) or not any(c.isdigit() for c in value):
        return False
    if any(c.isupper() for c in value) and any(c.islower() for c in value):
        return True
    mixed = sum(1 for a, b in itertools.pairwise(value) if a.isdigit() != b.isdigit()
                and (a + b).isalnum())
    return mixed >= 3
