"""Whether a file holds a credential by what it holds, where its name says nothing.

Names fail both ways: a GCP service-account key downloads as ``myproj-1a2b3c4d.json``,
and Rails' ``config/database.yml``, Maven's ``settings.xml``, ``gradle.properties`` or
``sentry.properties`` hold production passwords in some projects and nothing secret in
most (tester round 13, S3). Hiding every ``settings.xml`` would break builds; showing
every one sends a deploy password to the provider. So these are read, a bounded head of
each, and called secret when they hold:

- a private key block (``-----BEGIN … PRIVATE KEY-----``), in any file looked at;
- in JSON: a service-account key (``"type": "service_account"``, or a ``private_key``
  beside a ``client_email``);
- in the settings files of :data:`SNIFFED_NAMES` (and home's dot folders' settings,
  :mod:`shell.permissions.configsniff`): a key named for a secret (``password``,
  ``token``, ``api_key``, ``auth``) set to a value of :data:`MIN_VALUE_LEN` characters
  or more (not a ``${VAR}``, not a URL), in JSON, YAML, TOML, INI, properties or XML, or
  a URL carrying a password (``http://user:pw@proxy``).

Bounded: settings files of at most :data:`MAX_BYTES` and JSON of at most
:data:`MAX_KEY_FILE` (a key is small; a big JSON is data), the first :data:`READ_BYTES` read, each
verdict kept by size, mtime, ctime and inode.
"""

from __future__ import annotations

import os
import re

MAX_BYTES = 1 << 20
READ_BYTES = 64 * 1024
MIN_VALUE_LEN = 8
MAX_KEY_FILE = 16 * 1024
"""A JSON file larger than this is data, not a downloaded key (a service-account key is
about 2.3 KB): not read, so a folder of big JSON fixtures costs one ``stat`` each."""
SNIFFED_NAMES = frozenset({
    "settings.xml", "database.yml", "database.yaml", "gradle.properties", "sentry.properties",
    "local.properties", "application.properties", "application.yml", "application.yaml",
    "docker-compose.override.yml", "docker-compose.override.yaml", "appsettings.json",
    "appsettings.development.json", "appsettings.staging.json", "config.php", "parameters.yml",
})  # fmt: skip
"""Settings files (lowercase names) that hold passwords in some projects: looked into."""

_KEY = (r"(?:[\w.-]*(?:token|secret|passw(?:or)?d?|api_?key|apikey|credential)[\w.-]*"
        r"|(?:[\w.-]*[_.-])?auth(?:_?key)?)")
_VALUE = f"(?![^\\s\"']*://)(?!\\$\\{{)[^\\s\"'#,{{}}\\[\\]<]{{{MIN_VALUE_LEN},}}"  # not a URL, not ${VAR}
_JSON = f'"{_KEY}"\\s*:\\s*"{_VALUE}'
_INLINE = f"[{{,][ \\t]*{_KEY}[ \\t]*=[ \\t]*\"{_VALUE}"
_LINE = f"^[ \\t]*[\"']?{_KEY}[\"']?[ \\t]*[:=][ \\t]*[\"']?{_VALUE}"
_XML = f"<{_KEY}>[ \\t]*{_VALUE}"
_URL_PASSWORD = f"://[^\\s/:@\"'$]+:[^\\s/@\"'$]{{{MIN_VALUE_LEN},}}@"
SETS_A_SECRET = re.compile(f"(?im){_JSON}|{_INLINE}|{_LINE}|{_XML}|{_URL_PASSWORD}")
"""``"token": "…"`` (JSON, anywhere on a line), ``{ token = "…" }`` (a TOML inline table),
``api_token: …`` / ``token = "…"`` / ``signing.password=…`` at a line's start (YAML,
TOML, INI, properties), ``<password>…</password>`` (Maven's XML), or a URL with a password."""
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")
_SERVICE_ACCOUNT = re.compile(r'"type"\s*:\s*"service_account"')
_verdicts: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def looked_into(name: str) -> bool:
    """Whether a file named ``name`` is read to tell (any JSON, :data:`SNIFFED_NAMES`)."""
    lower = name.lower()
    return lower.endswith(".json") or lower in SNIFFED_NAMES


def secret_content_why(path: str) -> str:
    """What credential the file at ``path`` holds, in a few words; empty when none is
    found or the file is not one :func:`looked_into` names."""
    name = os.path.basename(path.rstrip("/\\"))
    if not looked_into(name):
        return ""
    return content_why(path, settings=name.lower() in SNIFFED_NAMES)


def content_why(path: str, settings: bool) -> str:
    """As :func:`secret_content_why` for any file; ``settings``: look for a secret-named
    key with a value too (not only a private key or a service account)."""
    try:
        info = os.stat(path)
    except OSError:
        return ""
    if not os.path.isfile(path) or info.st_size > (MAX_BYTES if settings else MAX_KEY_FILE):
        return ""
    key = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
    known = _verdicts.get(f"{settings}:{path}")
    if known is not None and known[0] == key:
        return known[1]
    try:
        with open(path, "rb") as handle:
            text = handle.read(READ_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    why = _why(text, path.lower().endswith(".json"), settings)
    if len(_verdicts) > 8192:
        _verdicts.clear()
    _verdicts[f"{settings}:{path}"] = (key, why)
    return why


def _why(text: str, json: bool, settings: bool) -> str:
    if _PRIVATE_KEY.search(text):
        return "a private key"
    if json and (_SERVICE_ACCOUNT.search(text) or ('"private_key"' in text and '"client_email"' in text)):
        return "a service account's private key"
    if settings and SETS_A_SECRET.search(text):
        return "a password or token set in it"
    return ""


__all__ = ["SETS_A_SECRET", "SNIFFED_NAMES", "content_why", "looked_into", "secret_content_why"]
