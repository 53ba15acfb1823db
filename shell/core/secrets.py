"""The one idea of a secret: what it looks like, which names hold one, how to hide it.

A session file, an export, a trace, ``agent-shell config``, an error message and
the line mode's prompt history all outlive the moment: they get copied, pasted
into bug reports, synced. A key a tool printed (``env``, ``cat .env``), one the
user pasted, or one the config holds must not land in any of them. Two nets:

- *shapes*: the forms real tokens take (:data:`SHAPES`, one entry per kind:
  provider keys, cloud credentials, chat-app tokens, JWTs, ``Basic`` and
  ``Bearer`` credentials, passwords in URLs, private keys, ``password=…`` and
  ``"SecretAccessKey": "…"`` assignments …), and
- *values*: the secrets this process knows: the environment variables whose name
  says secret (:func:`is_secret_name`), the provider config's keys and headers,
  MCP servers' secret environment; each also in its URL-encoded forms. Values
  shorter than :data:`MIN_SECRET_LEN` are not used (redacting ``"1234"``
  everywhere would mangle ordinary text).

All shapes and values are one RE2 expression, matched over the UTF-8 bytes in a
single linear-time pass: hostile text (a megabyte of base64, a line of dashes)
cannot make redaction backtrack, and ordinary text costs one scan.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Self

from shell.core.secretcopies import originals
from shell.core.secretencodings import HALVES_SWAPPED, percent_decoded, readings
from shell.core.secretfilenames import SECRET_FILE_NAMES as _SECRET_FILE_NAMES
from shell.core.secretfilenames import WHY_BY_NAME as _WHY_BY_NAME
from shell.core.secretfilenames import WHY_BY_SUFFIX as _WHY_BY_SUFFIX
from shell.core.secretmatcher import REDACTED as REDACTED
from shell.core.secretmatcher import compiled, compiled_parts, first_match, hidden_characters, substitute
from shell.core.secretshapes import SHAPES as SHAPES
from shell.core.secretshapes import Shape as Shape
from shell.core.textsafety import map_strings, without_hidden

MIN_SECRET_LEN = 8

SECRET_WORDS = frozenset({
    "KEY", "KEYS", "APIKEY", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS",
    "PASSWD", "PASSPHRASE", "PWD", "CREDENTIAL", "CREDENTIALS", "AUTH", "AUTHORIZATION", "COOKIE", "PAT",
    "WEBHOOK", "WEBHOOKS", "DSN",
})
"""A name holds a secret when one of its words (split at ``_``, ``-``, ``.``) is one of these."""
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD", "SSH_AUTH_SOCK", "GPG_KEY_ID"})


def is_secret_name(name: str) -> bool:
    """Whether an environment variable, config key or header named ``name`` holds a
    secret: ``OPENAI_API_KEY``, ``PGPASSWORD``, ``x-api-key``, ``Authorization``,
    ``aws_secret_access_key``; not ``PWD`` or ``KEYBOARD``."""
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES:
        return False
    words = re.split(r"[^A-Z0-9]+", upper)
    if any(w in SECRET_WORDS for w in words):
        return True
    return upper.endswith(("PASSWORD", "PASSWD", "TOKEN", "SECRET", "APIKEY", "AUTHTOKEN"))


_SECRET_FILE_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".tfvars", ".kdbx", ".asc",
                         ".env", ".tfstate", ".ppk", "_accesskeys.csv", ".kubeconfig", ".htpasswd",
                         "-key.json", "_key.json", ".private.env.json")
_SECRET_JSON_PREFIXES = ("firebase-adminsdk-", "client_secret", "service_account", "service-account",
                         "serviceaccount")
"""``firebase-adminsdk-x1y2z-0123456789.json``, ``client_secret_<id>.apps.googleusercontent.com.json``:
the names the consoles give a downloaded key."""
_ENV_STAGES = frozenset({"production", "prod", "staging", "stage", "development", "dev", "local", "live",
                         "test", "secret", "secrets", "bak", "backup", "old", "orig", "save"})
"""The words after ``env`` of a ``.env`` named without its dot (``env.production``,
``env.prod.local``, ``env.bak``); not ``env.py`` (Alembic's), ``env.test.ts`` (code) nor a
bare ``env`` (a command, a virtualenv)."""
_WP_CONFIG = "wp-config"
_NOT_SECRET_ENV = (".example", ".sample", ".template", ".dist", ".defaults")
_PRIVATE_KEYS = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
"""ssh's private key names, and their variants (``id_rsa_deploy``, ``id_ed25519.work``);
the ``.pub`` halves are public."""
_SYSTEM_SECRETS = frozenset({"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "master.passwd"})
"""The system's password hashes and who may become root (``/etc/shadow``, ``/etc/sudoers``)."""
BY_FOLDER = {"config": ".kube", "config.json": ".docker", "hosts.yml": "gh", "hosts.json": "github-copilot",
             "token": "huggingface", "workspace.xml": ".idea"}
"""Names that hold secrets only in one folder: kubectl's, docker's, GitHub CLI's,
Copilot's and Hugging Face's credentials, JetBrains' run configurations (their
environment variables: ``OPENAI_API_KEY`` among them; kept out of git by JetBrains' own
``.gitignore``)."""
_SECRET_WORDS = frozenset({
    "password", "passwords", "passwd", "passphrase", "secret", "secrets", "token", "apikey", "credential",
    "credentials",
})
"""Words that name what a plain-text file holds (``db_password.txt``, ``github_token``).
Not ``tokens``: a tokenizer's vocabulary is ``tokens.txt``."""


def secret_name_hints() -> tuple[str, ...]:
    """A piece every name :func:`is_secret_file` accepts contains (``env``, ``auth.json``,
    ``shadow``, ``hosts.yml``…): a command line holding none of them names no secret
    file, so callers on a hot path can skip splitting it into words. Derived from the
    lists themselves, so a name added there is never missed by such a filter."""
    names = {*_SECRET_FILE_NAMES, *_SECRET_FILE_SUFFIXES, *_PRIVATE_KEYS, *_SYSTEM_SECRETS, *BY_FOLDER,
             *_SECRET_JSON_PREFIXES, _WP_CONFIG, *_HISTORY_FILE_NAMES}
    stems = {n.rsplit(".", 1)[0].lower().lstrip("._-") for n in names}  # dated: auth_20261129101500.json
    hints = {n.lower().lstrip("._") for n in names} | {s for s in stems if len(s) > 3}
    hints |= {"env", "ssh_host_", "sudoers", "history", *_SECRET_WORDS, "_key", "-key"}
    return tuple(sorted(h for h in hints if h))


_BACKUP_SUFFIXES = (".bak", ".backup", ".orig", ".old", ".save", ".swp", ".swo", ".tmp")
_NUMBERED = re.compile(r"\.?~\d+~$")
"""GNU numbered backups (``cp --backup=numbered``, Emacs' ``version-control``):
``.envrc.~1~``, ``id_rsa~2~``."""
_VIM_SUFFIXES = (*(f".sw{letter}" for letter in "abcdefghijklmnop"), ".swx", ".un~")
"""vim's swap file beside NAME, ``.NAME.swp`` (``.swo`` … ``.swa`` when one is there
already, ``.swx`` when vim tries the folder; ``%``-joined full paths in a swap folder):
the whole buffer, left behind after a crash; its undo file, ``.NAME.un~``: the text of
every change."""


def _vim_original(name: str) -> str:
    """The name vim's swap or undo file ``name`` is of (``..env.local.swp``: ``.env.local``), or empty."""
    if not name.endswith(_VIM_SUFFIXES):
        return ""
    base = name[: name.rindex(".")]
    if "%" in base:
        return base.rpartition("%")[2]
    return base[1:] if base.startswith(".") else ""


def _undecorated(name: str) -> str:
    """A backup's or an editor's copy named as the original: ``.env~``, ``#.env#``
    (Emacs), ``.netrc.bak``, ``credentials.json.orig``, ``.envrc.~1~``; they hold what it holds."""
    base = _NUMBERED.sub("", name.strip("#")).rstrip("~")
    for suffix in _BACKUP_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            return base[: -len(suffix)]
    return base


_HISTORY_FILE_NAMES = frozenset({
    ".aider.input.history", ".aider.chat.history.md", ".aider.llm.history", ".node_repl_history",
    ".ts_node_repl_history", ".rediscli_history", ".sqlite_history", ".duckdb_history", ".irb_history",
    ".pry_history", ".dbshell", ".mongosh_history", ".rhistory", ".histfile", ".sh_history", ".gdb_history",
    ".viminfo", "_viminfo", ".lesshst", ".octave_hist", "fish_history",
})
"""History files a REPL, an editor or an agent keeps in the folder it ran in (aider's
prompt and chat logs in the repository's root, R's ``.Rhistory``, gdb's, vim's registers and
searches in ``.viminfo``): what the user typed or pasted, keys among it. Also any dot file
ending in one of :data:`_HISTORY_SUFFIXES` (``.mycli-history``, ``.julia_history``)."""
_HISTORY_SUFFIXES = ("_history", "-history", ".history")
_DATED = re.compile(r"_\d{8}(?:\d{6})?(?=(?:\.[^.]+)?$)")
"""A dated copy: ``_`` and a date, or a date and time, before the name's last extension
or at its end. VS Code's Local History extension (``.history/``, in the workspace) keeps
every saved version of every file so: ``.env_20261129101500``,
``.env_20261129101500.local`` (of ``.env.local``), ``id_rsa_20261129101500``."""


def _history_file(name: str) -> bool:
    if name in _HISTORY_FILE_NAMES:
        return True
    return name.startswith(".") and any(
        name.endswith(suffix) and len(name) > len(suffix) + 1 for suffix in _HISTORY_SUFFIXES)


def _original_name(trimmed: str, name: str) -> str:
    """The name ``name`` is a copy of (a backup's, an editor's, a dated one), lowercase."""
    base = _undecorated(name)
    dated = _DATED.search(base, 1) if "_" in base else None
    if dated is None or _secret_name(trimmed, base):
        return base
    return base[: dated.start()] + base[dated.end() :]


def is_secret_file(path: str) -> bool:
    """Whether a file's name says it usually holds secrets (``.env``, ``.env.local``,
    ``id_ed25519``, ``*.pem``, ``.netrc``, AWS ``credentials`` …), so that reading it,
    which sends its content to the model's provider, is asked about first. Templates
    (``.env.example``) and public keys are not. A dotfile manager's source name or a file
    manager's duplicate is judged as the name it stands for (:mod:`.secretcopies`)."""
    trimmed = path.rstrip("/\\")
    name = os.path.basename(trimmed).lower()
    if _secret_name(trimmed, _original_name(trimmed, name)) or _dotless_env(name):
        return True
    vim = _vim_original(name)  # ..env.local.swp: vim's copy of .env.local
    if vim and _secret_name(trimmed, _original_name(trimmed, vim)):
        return True  # and chezmoi's dot_env, yadm's .env##os.linux, Finder's ".env copy":
    return any(_secret_name(trimmed, _original_name(trimmed, o)) for o in originals(name))


def _dotless_env(name: str) -> bool:
    """``env.production``, ``env-prod``, ``env.bak``: a ``.env`` named without its dot."""
    words = re.split(r"[._-]", name)
    return words[0] == "env" and 1 < len(words) <= 3 and all(w in _ENV_STAGES for w in words[1:])


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_secret_word(word: str) -> bool:
    """Whether a command line's word names a secret-looking file: as :func:`is_secret_file`
    says, but a bare identifier named only for what it holds (``api_token``, ``db_password``:
    no folder, no dot) is taken for what a command searches for (``grep -rn api_token src``);
    ``./api_token`` or ``/run/secrets/db_password`` is a file. In the workspace the sandbox
    hides such a file whatever the command line says."""
    if _IDENTIFIER.fullmatch(word):
        return _secret_name(word, _original_name(word, word.lower()), by_words=False)
    return is_secret_file(word)


def _secret_name(trimmed: str, name: str, by_words: bool = True) -> bool:
    if name.startswith((".env.", ".envrc.")) and not name.endswith(_NOT_SECRET_ENV):
        return True
    if name.startswith((".env-", ".env_")) and "." + re.split(r"[._-]", name)[-1] not in _NOT_SECRET_ENV:
        return True  # .env-production, .env_prod; not .env-example
    if by_words and _named_for_a_secret(trimmed, name):
        return True
    if name.startswith(_PRIVATE_KEYS) and not name.endswith(".pub"):
        return True
    if name in _SYSTEM_SECRETS or (name.startswith("ssh_host_") and name.endswith("_key")):
        return True
    if os.path.basename(os.path.dirname(trimmed)).lower() == "sudoers.d":
        return True
    folder = BY_FOLDER.get(name)
    if folder is not None and os.path.basename(os.path.dirname(trimmed)).lower() == folder:
        return True
    if name.endswith(".json") and (name.startswith(_SECRET_JSON_PREFIXES) or "firebase-adminsdk" in name):
        return True  # myproj-firebase-adminsdk-abc12-0123456789.json: the console's download name
    if name.startswith(_WP_CONFIG) and name.endswith(".php") and "sample" not in name:
        return True  # wp-config.local.php, wp-config-production.php: the same password
    return name in _SECRET_FILE_NAMES or name.endswith(_SECRET_FILE_SUFFIXES) or _history_file(name)


_LOWER_FILE_NAME = re.compile(r"[a-z0-9._~#%-]+")


def _named_for_a_secret(trimmed: str, name: str) -> bool:
    """A plain-text file (``.txt`` or no extension) named for the secret it holds:
    ``db_password.txt``, ``passwords.txt``, ``openai_key.txt``, ``github_token``, ``.token``,
    ``.vault-password``. Not code or documents named for what they handle (``token.go``,
    ``password_reset.py``, ``passwords.md``). Without an extension, not a single word
    (``token``, ``secret``: as often a command's word, ``kubectl get secrets``), a hyphenated
    one (``reset-password``: a script) or one with capitals (``GITHUB_TOKEN``, ``$DB_PASSWORD``:
    an environment variable on a command line)."""
    if name.endswith(".txt"):
        words = re.split(r"[._-]", name[:-4])
        return words[-1] == "key" or any(word in _SECRET_WORDS for word in words)
    stem = name[1:] if name.startswith(".") else name
    if "." in stem or not (name.startswith(".") or "_" in stem):
        return False
    if not _LOWER_FILE_NAME.fullmatch(os.path.basename(trimmed)):
        return False
    last = re.split(r"[_-]", stem)[-1]
    return last in _SECRET_WORDS or last == "key"


def secret_file_why(path: str) -> str:
    """Why :func:`is_secret_file` calls ``path`` secret, in a few words for the
    question that asks before it is read (``.envrc``: direnv exports what it sets,
    often API keys and tokens); empty when it does not."""
    if not is_secret_file(path):
        return ""
    name = _original_name(path.rstrip("/\\"), os.path.basename(path.rstrip("/\\")).lower())
    if _history_file(name):
        return "what was typed there (commands, queries, prompts), secrets typed inline among them"
    if name.startswith(_PRIVATE_KEYS) or name.startswith("ssh_host_"):
        return "an SSH private key"
    folder = os.path.basename(os.path.dirname(path.rstrip("/\\"))).lower()
    if name in _SYSTEM_SECRETS or folder == "sudoers.d":
        return "the system's password hashes or who may become root"
    if name in _WHY_BY_NAME:
        return _WHY_BY_NAME[name]
    for suffixes, why in _WHY_BY_SUFFIX:
        if name.endswith(suffixes):
            return why
    return "API keys and passwords"  # .env, .env.production, prod.env


def mask(value: str | None) -> str:
    """How ``agent-shell config`` shows a secret: ``sk-…wxyz`` when long, else ``****``."""
    if not value:
        return "(empty)"
    if len(value) < 16:
        return "****"
    return f"{value[:3]}…{value[-4:]}"


# -- the redactor -----------------------------------------------------------------------


class Secrets:
    """Replaces secrets in text and in JSON values. Cheap to build (compiled
    expressions are cached by their set of values); share one per process."""

    def __init__(self, values: Iterable[str] = (), *, patterns: bool = True) -> None:
        kept = {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_LEN}
        self.values: tuple[str, ...] = tuple(sorted(kept, key=lambda v: (-len(v), v)))
        self.patterns = patterns
        self._compiled = compiled(self.values, patterns)
        self._learned = 0

    @classmethod
    def from_environment(cls, settings: Any = None, environ: Mapping[str, str] | None = None) -> Self:
        """Shapes, plus the secrets of the environment and of ``settings`` (the config)."""
        return cls(secret_values(environ, settings))

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by ``[REDACTED]``."""
        return self._redact(text, None)

    def _redact(self, text: str, found: list[bytes] | None) -> str:
        if not text or self._compiled is None:
            return text
        regex, table = self._compiled
        if not text.isascii():
            text = self._redact_hidden(text)
        data = text.encode("utf-8", "surrogatepass")
        out = substitute(regex, table, data, found)
        return text if out is data else out.decode("utf-8", "surrogatepass")

    def _redact_hidden(self, text: str) -> str:
        """A key with U+200B or a soft hyphen between its letters (the receiver drops
        them): found in the text without them, then cut out of ``text`` whole,
        invisible characters included; text with none (an emoji's ZWJ) stays as is."""
        from .textsafety import without_hidden_where

        if self._compiled is None or not hidden_characters().search(text.encode("utf-8", "surrogatepass")):
            return text  # (most text: RE2 tells in 1.5 ms a MB; Python's re took 20, the map 20 more)
        stripped, where = without_hidden_where(text)
        regex, table = self._compiled
        data = stripped.encode("utf-8", "surrogatepass")
        spans: list[tuple[int, int]] = []
        substitute(regex, table, data, None, None, spans)
        pieces: list[str] = []
        done = at = char = 0  # text[:done] is placed; byte ``at`` of data is character ``char``
        for head, tail in sorted(spans):
            if head < at:
                continue  # (inside a span already cut)
            start = char + len(data[at:head].decode("utf-8", "surrogatepass"))
            end = start + len(data[head:tail].decode("utf-8", "surrogatepass"))
            at, char = tail, end
            if end > start:
                pieces += [text[done : where[start]], REDACTED]
                done = where[end - 1] + 1
        return "".join(pieces) + text[done:]

    def find(self, text: str) -> tuple[str, str] | None:
        """The first secret in ``text``: its kind (``GitHub token``, ``password in a URL``)
        and the secret itself, or ``None``. Searched with the shapes a dozen at a time
        (:func:`~shell.core.secretmatcher.compiled_parts`): bounded on hostile text."""
        if not text or self._compiled is None:
            return None
        found = first_match(compiled_parts(self.values, self.patterns), text.encode("utf-8", "surrogatepass"))
        return None if found is None else (found[0], found[1].decode("utf-8", "surrogatepass"))

    def _learn(self, values: Iterable[str]) -> None:
        """Redact ``values`` from now on, wherever they appear (see :meth:`Redactor.text
        <shell.sessions.redact.Redactor.text>`)."""
        room = MAX_LEARNED - self._learned
        new = {v for v in values if len(v) >= MIN_SECRET_LEN and v not in self.values}
        new = set(sorted(new)[: max(0, room)])
        if new:
            self._learned += len(new)
            self.values = tuple(sorted({*self.values, *new}, key=lambda v: (-len(v), v)))
            self._compiled = compiled(self.values, self.patterns)

    def matches(self, text: str) -> list[str]:
        """Each secret found in ``text``, as it is written there (what :meth:`text`
        replaces; zero-width characters between its letters left out): to say how many
        were redacted, and whose."""
        if not text or self._compiled is None:
            return []
        regex, table = self._compiled
        kinds: list[tuple[str, bytes]] = []
        data = text.encode("utf-8", "surrogatepass")
        if not text.isascii() and hidden_characters().search(data):
            data = without_hidden(text).encode("utf-8", "surrogatepass")
        substitute(regex, table, data, None, kinds)
        return [value.decode("utf-8", "surrogatepass") for _, value in kinds]

    def json(self, value: Any) -> Any:
        """A copy of a JSON value with every string and key redacted (iterative, any
        depth: see :func:`shell.core.textsafety.map_strings`)."""
        return map_strings(value, self.text)

    def __contains__(self, text: str) -> bool:
        return self.text(text) != text


MAX_LEARNED = 256
"""At most this many values learned by one redactor: each one recompiles the whole
expression (~65 ms with 5,000 values), so a hostile result of thousands of
``password=…`` lines, each repeated later, made every message cost seconds. Past it,
values are still redacted where their context shows them."""


NO_SECRETS = Secrets(patterns=False)
"""Redacts nothing (tests that need the raw text)."""


def secret_values(environ: Mapping[str, str] | None = None, settings: Any = None) -> list[str]:
    """The secret values this process knows, each also URL-encoded (see the module
    docstring). ``settings`` is the config (read by attribute: this module sits
    below it): providers' ``api_key``, ``api_key_env`` and secret headers, MCP
    servers' keys (:mod:`.mcpsecrets`: ``env``, ``headers``, URLs, arguments)."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if is_secret_name(k)}
    for provider in (getattr(settings, "providers", None) or {}).values():
        name = getattr(provider, "api_key_env", None)
        if name and env.get(name):
            found.add(env[name])
        found.add(getattr(provider, "api_key", None) or "")
        for header, value in (getattr(provider, "headers", None) or {}).items():
            if is_secret_name(header) and isinstance(value, str):
                found.add(value.split(None, 1)[-1])  # "Bearer xyz" → "xyz"
    from .mcpsecrets import mcp_secret_values  # it reads names with is_secret_name, from here

    found |= mcp_secret_values((getattr(settings, "mcp_servers", None) or {}).values())
    values = {v for v in found if isinstance(v, str) and len(v) >= MIN_SECRET_LEN}
    for value in list(values):
        values.update(encoded_forms(value))
    return sorted(values, key=len, reverse=True)


def encoded_forms(value: str) -> tuple[str, str]:
    """How a known secret value is also spelled where it travels: URL-encoded, as in a
    query string (``%2F``) and a form body (``+`` for a space)."""
    return urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value)


@lru_cache(maxsize=8)
def _environment_secrets(items: frozenset[tuple[str, str]]) -> Secrets:
    return Secrets(secret_values(dict(items)))


def environment_secrets(environ: Mapping[str, str] | None = None) -> Secrets:
    """Shapes plus the secret values of the environment (cached per environment)."""
    env = os.environ if environ is None else environ
    return _environment_secrets(frozenset((k, v) for k, v in env.items() if is_secret_name(k)))


MAX_CHECKED_TEXT = 1 << 16
"""Characters of one string looked through for encoded secrets (a few tenths of a
second at most). Past it the string is not called clean: :func:`secret_going_out` says
it could not check (finding L1: this cap let a base64 key through after 70,000 letters
of padding)."""
TOO_LONG = "too long to check for secrets"


def secret_going_out(
    text: str, secrets: Secrets, decodings: list[str] | None = None
) -> tuple[str, str] | None:
    """A secret ``text`` would carry out of the machine (a URL, a tool's arguments): its
    kind, said with how it is hidden, and the secret; or ``None``. Looked for as sent,
    then in each other spelling :func:`shell.core.secretencodings.readings` gives:
    percent-decoded, without zero-width characters, as UTF-16, reversed, and in each
    run of base64/base32/hex letters (a path segment, a query value, a subdomain label,
    a host's labels together, base64 wrapped over lines), since a prompt-injected model
    encodes what it smuggles out. A text over :data:`MAX_CHECKED_TEXT` (percent-decoded)
    is answered ``(TOO_LONG, "")``: not called clean. What no simple decoding shows (an
    encoding twice over, compression) is not found; README says so. ``decodings``, when
    given, gets what each encoding read said (for :mod:`shell.permissions.egressfolded`:
    a value lower-cased, then base64-encoded)."""
    found = secrets.find(text)
    if found:
        return found
    plain = percent_decoded(text)
    if plain != text and (found := secrets.find(plain)):
        return f"{found[0]}, percent-encoded", found[1]
    if len(plain) > MAX_CHECKED_TEXT:
        return TOO_LONG, ""
    for how, reading in readings(text, plain):
        # a run twice over: a shape found across its seam is no key, a known value is
        searched = Secrets(secrets.values, patterns=False) if how == HALVES_SWAPPED else secrets
        if found := searched.find(reading):
            return f"{found[0]}, {how}", found[1]
        if decodings is not None and (how.endswith("-encoded") or how.startswith(DECODED)):
            decodings.append(reading)
    return None


DECODED = ("as bits", "as HTML entities", "as octal bytes", "uuencoded")
"""Readings that decode, besides the ``…-encoded`` ones."""


def redact(text: str, secrets: Secrets | None = None) -> str:
    """``text`` with secrets replaced (the environment's when none are given)."""
    return (secrets or environment_secrets()).text(text)
