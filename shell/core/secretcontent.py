"""Whether a file holds a credential by what it holds, where its name says nothing.

Names fail both ways: a GCP service-account key downloads as ``myproj-1a2b3c4d.json``,
and Rails' ``config/database.yml``, Maven's ``settings.xml``, ``gradle.properties`` or
``sentry.properties`` hold production passwords in some projects and nothing secret in
most (tester round 13, S3). Hiding every ``settings.xml`` would break builds; showing
every one sends a deploy password to the provider. So these are read, a bounded head of
each, and called secret when they hold:

- a private key block (``-----BEGIN … PRIVATE KEY-----``), in any file looked at: JSON,
  the settings files, and any text file of up to :data:`MAX_TEXT` whatever its name
  (``notes.txt``, ``config.yaml``, a ``.md``: tester round 18), there only as a whole block
  (the marker followed by a key's body, or PuTTY's ``PuTTY-User-Key-File`` with its
  ``Private-Lines``), so a document that only names the format is not hidden. Source code
  (:data:`CODE_SUFFIXES`: a key there is a test's fixture far more often, and hiding the
  test file breaks the run) and binary kinds are not read;
- in JSON: a service-account key (``"type": "service_account"``, or a ``private_key``
  beside a ``client_email``);
- in the settings files of :data:`SNIFFED_NAMES` (and home's dot folders' settings,
  :mod:`shell.permissions.configsniff`): a key named for a secret (``password``,
  ``token``, ``api_key``, ``auth``) set to a value of :data:`MIN_VALUE_LEN` characters
  or more (not a ``${VAR}``, not a URL), in JSON, YAML, TOML, INI, properties or XML, or
  a URL carrying a password (``http://user:pw@proxy``).

Bounded: settings files of at most :data:`MAX_BYTES`, JSON of at most
:data:`MAX_KEY_FILE` (a key is small; a big JSON is data) and other text of at most
:data:`MAX_TEXT`, each read whole (a Helm chart's copied 70-150 KB values.yaml sets its password
near the end: reading a 64 KB head left it, tester round 21 D10; a 1 MB settings file costs about
0.1 s once per version, 0.4 s when every line names a secret), each verdict kept by size, mtime, ctime
and inode (``benchmarks/secret_content_walk.py``): not the mtime alone, which a program sets
back (``touch -r``) after writing a key in place at the same size; the ctime only the clock
sets. A file read less than :data:`RACY_NS` after it last changed is read again next time (a
second write in the same coarse clock tick leaves the ctime as it was).
"""

from __future__ import annotations

import os
import re
import stat
import time

MAX_BYTES = 1 << 20
MIN_VALUE_LEN = 8
MAX_KEY_FILE = 16 * 1024
"""A JSON file larger than this is data, not a downloaded key (a service-account key is
about 2.3 KB): not read, so a folder of big JSON fixtures costs one ``stat`` each."""
MAX_TEXT = 256 * 1024
"""A text file larger than this is not read for a key block (logs, data, lock files)."""
CODE_SUFFIXES = frozenset({
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt", ".kts",
    ".scala", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".cs", ".rb", ".php", ".swift", ".m", ".mm",
    ".lua", ".pl", ".pm", ".r", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".groovy", ".vue",
    ".svelte", ".css", ".scss", ".less", ".html", ".htm", ".sql", ".ipynb", ".svg", ".map",
})  # fmt: skip
"""Source code: not read for a key block (a key there is mostly a test's fixture)."""
BINARY_SUFFIXES = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".pdf", ".zip", ".gz", ".tgz", ".bz2",
    ".xz", ".zst", ".7z", ".tar", ".jar", ".war", ".whl", ".so", ".dll", ".dylib", ".exe", ".bin",
    ".o", ".a", ".pyc", ".class", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".mov",
    ".avi", ".wav", ".flac", ".ogg", ".db", ".sqlite", ".sqlite3", ".parquet", ".npy", ".npz", ".pt",
    ".pth", ".onnx", ".safetensors", ".lock", ".wasm",
})  # fmt: skip
"""Binary (and lock) kinds: never read."""
SNIFFED_NAMES = frozenset({
    "settings.xml", "database.yml", "database.yaml", "gradle.properties", "sentry.properties",
    "local.properties", "application.properties", "application.yml", "application.yaml",
    "docker-compose.override.yml", "docker-compose.override.yaml", "appsettings.json",
    "appsettings.development.json", "appsettings.staging.json", "config.php", "parameters.yml",
    "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml", "vault.yml", "vault.yaml",
    "secrets.yml", "secrets.yaml", "group_vars.yml", "group_vars.yaml", "host_vars.yml", "host_vars.yaml",
    "web.config", "values.yaml", "values.yml",
})  # fmt: skip
"""Settings files (lowercase names) that hold passwords in some projects: looked into."""
SNIFFED_PATTERN = re.compile(
    r"(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml|stack(?:[.-][\w.-]+)?\.ya?ml"
    r"|(?:application|bootstrap)(?:[.-][\w.-]+)?\.(?:ya?ml|properties)|appsettings(?:\.[\w-]+)?\.json"
    r"|(?:web|app)(?:\.[\w-]+)?\.config|values(?:[.-][\w.-]+)?\.ya?ml|database(?:[.-][\w.-]+)?\.ya?ml"
    r"|(?:secrets|vault)(?:[.-][\w.-]+)?\.ya?ml|inventory(?:[.-][\w.-]+)?(?:\.(?:ya?ml|ini))?"
    r"|hosts(?:\.(?:ya?ml|ini))?|[\w.-]*\.tfvars\.json|my\.cnf|netrc|app\.ya?ml|wrangler\.toml|fly\.toml"
    r"|serverless(?:[.-][\w.-]+)?\.ya?ml|pulumi(?:\.[\w-]+)?\.ya?ml|zappa_settings\.json|\.travis\.ya?ml"
    r"|vercel\.json|now\.json")
"""The same files under their everyday other names (tester round 21, D1): Docker's
``docker-compose.prod.yml``, Spring's profiles (``application-prod.yml``), .NET's
``appsettings.Production.json`` and ``Web.Release.config``, Helm's ``values.prod.yaml``,
Ansible's inventories (``inventory.yml``, ``hosts``); and the deploy tools' settings that
carry environment values (Terraform's ``*.tfvars.json``, GAE's ``app.yaml``, ``wrangler.toml``,
``fly.toml``, ``serverless.yml``, ``Pulumi.prod.yaml``, Zappa, Travis, Vercel), ``my.cnf`` and
``netrc`` without their dot (Docker set-ups copy them in)."""
SETTINGS_FOLDERS = frozenset({"group_vars", "host_vars", "inventory", "inventories"})
"""Folders whose files, at any depth, are settings (Ansible's variables: ``vault_password: …``,
also ``group_vars/all/vault``; its inventories' ``ansible_ssh_pass=…``)."""

_KEY = (r"(?:[\w.-]*(?:token|secret|passw(?:or)?d?|api_?key|apikey|credential)[\w.-]*"
        r"|(?:[\w.-]*[_.-])?auth(?:_?key)?|[\w.-]*[_.-]pass)")
_VALUE = f"(?![^\\s\"']*://)(?!\\$\\{{)[^\\s\"'#,{{}}\\[\\]<]{{{MIN_VALUE_LEN},}}"  # not a URL, not ${VAR}
_JSON = f'"{_KEY}"\\s*:\\s*"{_VALUE}'
_INLINE = f"[{{,][ \\t]*{_KEY}[ \\t]*=[ \\t]*\"{_VALUE}"
_LINE = f"^[ \\t]*(?:-[ \\t]+)?[\"']?(?:[\\w-]+:)?{_KEY}[\"']?[ \\t]*[:=][ \\t]*[\"']?{_VALUE}"
_XML = f"<{_KEY}>[ \\t]*{_VALUE}"
_URL_PASSWORD = f"://[^\\s/:@\"'$]+:[^\\s/@\"'$]{{{MIN_VALUE_LEN},}}@"
_CONNECTION = f"(?:^|[;\"'\\s])(?:password|pwd)[ \\t]*=[ \\t]*(?!\\$\\{{)[^;\"'\\s]{{{MIN_VALUE_LEN},}}"
_ANSIBLE_INLINE = f"(?:^|[ \\t])ansible_\\w*pass\\w*[ \\t]*=[ \\t]*[\"']?{_VALUE}"
_NETRC = f"\\bmachine[ \\t]+\\S+[ \\t]+(?:login[ \\t]+\\S+[ \\t]+)?password[ \\t]+{_VALUE}"
SETS_A_SECRET = re.compile(
    f"(?im){_JSON}|{_INLINE}|{_LINE}|{_XML}|{_URL_PASSWORD}|{_CONNECTION}|{_ANSIBLE_INLINE}|{_NETRC}")
"""``"token": "…"`` (JSON, anywhere on a line), ``{ token = "…" }`` (a TOML inline table),
``api_token: …`` / ``token = "…"`` / ``signing.password=…`` at a line's start (YAML,
TOML, INI, properties; also a list item, compose's ``- POSTGRES_PASSWORD=…``),
``<password>…</password>`` (Maven's XML), a URL with a password, or a connection
string's ``Password=…;`` / ``Pwd=…`` (.NET's appsettings.json, finding A13), an Ansible
inventory's ``host1 ansible_ssh_pass=…``, a netrc's ``machine h login u password p``; a key may
carry a namespace (Pulumi's ``app:dbPassword``). A match counts only when :func:`sets_a_secret`
agrees it is a value, not something about one."""
_KEY_WORD = re.compile(r"token|secret|passw(?:or)?d?|pass\b|api_?key|apikey|credential|auth", re.IGNORECASE)
_ABOUT = re.compile(
    r"(?:name|path|file|dir|ref|validity|timeout|ttl|expir\w*|length|size|enabled|required|prompt|policy"
    r"|type|header|field|algorithm|encoder|url|uri|endpoint|env|var|mode|format|regex|pattern)$",
    re.IGNORECASE)
"""What a key names when it ends so after its secret word: something about a secret
(``POSTGRES_PASSWORD_FILE``, ``passwordSecretName``, ``tokenPath``, ``token-validity``), not
its value (tester round 21, D2: Docker's own advice, a Helm chart's and Spring's settings)."""
_MATCHED_KEY = re.compile(r"[\w.-]+")
_MATCHED_VALUE = re.compile(r"""[^\s"'=:>]+$""")


def sets_a_secret(text: str) -> bool:
    """Whether ``text`` sets a secret by :data:`SETS_A_SECRET`: a match whose key names
    something about a secret (:data:`_ABOUT`; ``adminPasswordKey``, Bitnami's name of a key
    in a Kubernetes Secret; ``existingSecret``) or whose value is a path is not one."""
    for found in SETS_A_SECRET.finditer(text):
        said = found.group()
        value = _MATCHED_VALUE.search(said)
        if value and value.group().startswith(("/", "./", "../", "~/")):
            continue
        key = next((k for k in _MATCHED_KEY.findall(said) if _KEY_WORD.search(k)), "")
        if key and _about_a_secret(key):
            continue
        return True
    return False


def _about_a_secret(key: str) -> bool:
    if key.lower().startswith("existing"):
        return True
    words = list(_KEY_WORD.finditer(key))
    rest = key[words[-1].end():] if words else ""
    if not rest.strip("_.-"):
        return False
    word = words[-1].group().lower()
    return bool(_ABOUT.search(rest)) or (word.startswith("passw") and rest.lower().endswith("key"))
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""Files read for a Kubernetes Secret (a tutorial's Markdown showing one is not one)."""
_K8S_KIND = re.compile(
    r"""(?m)(?:^[ \t]*(?:-[ \t]+)?|[{,][ \t]*)["']?kind["']?[ \t]*:[ \t]*(?:!!str[ \t]+)?["']?Secret["']?"""
    r"""[ \t]*(?:[,}][^\n]*|#[^\n]*)?\r?$""")
"""``kind: Secret`` as YAML or JSON writes it: CRLF line ends, a comment after it, a
``!!str`` tag, or a JSON object's member that is not alone on its line (round 21, D1)."""
_K8S_DATA = re.compile(r"""(?m)(?:^[ \t]*|[{,][ \t]*)["']?(?:data|stringData)["']?[ \t]*:""")
_K8S_CONFIG_MAP = re.compile(
    r"""(?m)(?:^[ \t]*(?:-[ \t]+)?|[{,][ \t]*)["']?kind["']?[ \t]*:[ \t]*["']?ConfigMap\b""")
"""A ConfigMap carrying ``DB_PASSWORD: …`` holds it in the clear as a settings file does."""
_TEMPLATED = re.compile(r"\{\{|\{%")
_DATA_ENTRY = re.compile(r"""^([ \t]+)["']?[\w.-]+["']?[ \t]*:[ \t]*(.*?)\r?$""")
_RC_KEY = f"(?:{_KEY}|[\\w.-]*bearer)"
_RC_SEP = "(?:[ \\t]*[=:][ \\t]*|[ \\t]+)"
_RC_LINE = f"^[ \\t]*(?:set[ \\t]+)?-{{0,2}}{_RC_KEY}{_RC_SEP}[\"']?{_VALUE}"
_RC_USER = f"^[ \\t]*(?:-[uU]|-{{0,2}}(?:proxy-)?user){_RC_SEP}[\"']?[^\\s:\"']+:{_VALUE}"
RC_SETS_A_SECRET = re.compile(f"(?im){_RC_LINE}|{_RC_USER}")
"""What an rc file of ``key value`` lines with no extension sets a secret by (finding A3):
wget's ``http_password = …``, s-nail's ``set smtp-auth-password=…``, esmtp's ``password
…``, curl's ``oauth2-bearer = "…"`` and ``user = "name:password"`` / ``-u name:password``."""
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{16,}")
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:.*?Private-Lines:\s*\d+", re.DOTALL)
KEY_BODY = 64
"""Base64 characters after the marker that make it a key, not a format's name."""
_SERVICE_ACCOUNT = re.compile(r'"type"\s*:\s*"service_account"')
RACY_NS = 100_000_000
"""A verdict taken this soon after the file's last change is not trusted later."""
_verdicts: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def looked_into(name: str) -> bool:
    """Whether a file named ``name`` is read to tell (any JSON, :data:`SNIFFED_NAMES`, and
    any other text for a key block: not source code or a binary kind)."""
    lower = name.lower()
    return lower.endswith(".json") or _sniffed(lower) or _text_kind(lower)


def _sniffed(lower: str) -> bool:
    return lower in SNIFFED_NAMES or SNIFFED_PATTERN.fullmatch(lower) is not None


def _text_kind(lower: str) -> bool:
    suffix = os.path.splitext(lower)[1]
    return suffix not in CODE_SUFFIXES and suffix not in BINARY_SUFFIXES


def secret_content_why(path: str) -> str:
    """What credential the file at ``path`` holds, in a few words; empty when none is
    found or the file is not one :func:`looked_into` names."""
    name = os.path.basename(path.rstrip("/\\"))
    if not looked_into(name):
        return ""
    lower = name.lower()
    return content_why(path, settings=_settings(path, lower), text=not lower.endswith(".json"))


def _settings(path: str, lower: str) -> bool:
    """Whether the file is one whose secret-named keys count: a name of
    :data:`SNIFFED_NAMES` or :data:`SNIFFED_PATTERN`, or a file under one of
    :data:`SETTINGS_FOLDERS` at any depth (``group_vars/all/vault``)."""
    if _sniffed(lower):
        return True
    if os.path.splitext(lower)[1] not in ("", ".yml", ".yaml", ".ini", ".json"):
        return False
    folders = path.replace("\\", "/").lower().rstrip("/").split("/")[:-1]
    return any(folder in SETTINGS_FOLDERS for folder in folders)


def content_why(path: str, settings: bool, text: bool = False) -> str:
    """As :func:`secret_content_why` for any file; ``settings``: look for a secret-named
    key with a value too (not only a private key or a service account); ``text``: a file
    of any other kind, read (up to :data:`MAX_TEXT`) for a whole private key block only."""
    try:
        info = os.stat(path)
    except OSError:
        return ""
    cap = MAX_BYTES if settings else MAX_TEXT if text else MAX_KEY_FILE
    small = text and not settings and info.st_size < KEY_BODY  # no room for a key's body
    if not stat.S_ISREG(info.st_mode) or info.st_size > cap or small:
        return ""
    key = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
    known = _verdicts.get(f"{settings}{text}:{path}")
    if known is not None and known[0] == key:
        return known[1]
    settled = time.time_ns() - info.st_ctime_ns >= RACY_NS  # taken before the read
    try:
        with open(path, "rb") as handle:
            raw = handle.read(cap)  # the whole file (it is within the cap): a password set last counts
    except OSError:
        return ""
    if settings or not text:
        why = _why(raw.decode("utf-8", "replace"), path.lower().endswith(".json"), settings)
    else:  # most text files: one byte search, decoded only when a marker is there
        marked = b"PRIVATE KEY" in raw or b"PuTTY" in raw
        why = _key_block_why(raw.decode("utf-8", "replace")) if marked else ""
        if not why and (b"Secret" in raw or b"ConfigMap" in raw) and path.lower().endswith(MANIFEST_SUFFIXES):
            why = _manifest_why(raw.decode("utf-8", "replace"))
    if len(_verdicts) > 8192:
        _verdicts.clear()
    if settled:
        _verdicts[f"{settings}{text}:{path}"] = (key, why)
    else:
        _verdicts.pop(f"{settings}{text}:{path}", None)
    return why


def judged_by_content(path: str) -> bool:
    """Whether a file at ``path`` (``/``-separated, relative) is one whose credentials
    only its content shows and that a repository's history is read for (finding C1):
    the settings files :func:`_settings` names and manifest-looking YAML/JSON (a
    Kubernetes Secret, a compose file). Not every text file: a key block in a README's
    old version is left to the name rule's files, so history's reading stays bounded."""
    name = os.path.basename(path.rstrip("/\\"))
    lower = name.lower()
    return _settings(path, lower) or lower.endswith(MANIFEST_SUFFIXES)


def text_content_why(path: str, text: str) -> str:
    """As :func:`secret_content_why` for a text already read (a version git's history
    holds, finding C1): what credential it holds, judged by the same rules as the file
    at ``path`` would be today."""
    name = os.path.basename(path.rstrip("/\\"))
    lower = name.lower()
    if not looked_into(name):
        return ""
    settings = _settings(path, lower)
    if settings or lower.endswith(".json"):
        return _why(text, lower.endswith(".json"), settings)
    why = _key_block_why(text) if ("PRIVATE KEY" in text or "PuTTY" in text) else ""
    if not why and ("Secret" in text or "ConfigMap" in text) and lower.endswith(MANIFEST_SUFFIXES):
        why = _manifest_why(text)
    return why


def _key_block_why(text: str) -> str:
    """"a private key" where a marker is followed by a key's body (:data:`KEY_BODY` base64
    characters before its END line: PEM headers, indents, quotes and ``\\n`` escapes of a
    key pasted into YAML or a string allowed), or a PuTTY key with its private lines."""
    if _PUTTY.search(text):
        return "a private key"
    for found in _PRIVATE_KEY.finditer(text):
        body = 0
        for line in text[found.end():found.end() + 4096].replace("\\n", "\n").splitlines():
            line = line.strip().strip("\"',|>")
            if line.startswith("-----END"):
                break
            if _BASE64_LINE.fullmatch(line):
                body += len(line)
        if body >= KEY_BODY:
            return "a private key"
    return ""


def _manifest_why(text: str) -> str:
    """"a Kubernetes Secret" for a manifest of ``kind: Secret`` with its ``data`` or
    ``stringData`` (YAML or JSON, any document of a multi-document file; a Helm chart's
    template too): the place Kubernetes projects keep credentials, base64 or plain."""
    if _K8S_KIND.search(text) and _K8S_DATA.search(text) and not _only_templates(text):
        return "a Kubernetes Secret"
    if _K8S_CONFIG_MAP.search(text) and sets_a_secret(text):
        return "a password or token set in it"
    return ""


def _only_templates(text: str) -> bool:
    """Whether a templated manifest (Helm's ``{{ .Values.db.password | b64enc }}``, Jinja)
    has no literal value under its ``data``/``stringData``: a chart's templates/secret.yaml,
    which every chart has and which holds nothing (round 21, D2)."""
    if not _TEMPLATED.search(text):
        return False
    lines = text.splitlines()
    for at, line in enumerate(lines):
        opened = _K8S_DATA.match(line)
        if not opened:
            continue
        inline = line[opened.end():].strip()
        if inline:  # ``data: {password: …}``: a literal one counts
            if not _TEMPLATED.match(inline):
                return False
            continue
        indent = len(line) - len(line.lstrip())
        for entry in lines[at + 1:]:
            if not entry.strip() or entry.lstrip().startswith("#"):
                continue
            found = _DATA_ENTRY.match(entry)
            if found is None or len(found.group(1)) <= indent:
                break
            value = found.group(2).strip().strip("\"'")
            if value and not _TEMPLATED.match(value):  # a block scalar (``|``) holds a literal
                return False
    return True


def _why(text: str, json: bool, settings: bool) -> str:
    if _PRIVATE_KEY.search(text):
        return "a private key"
    if "Secret" in text and _manifest_why(text):
        return "a Kubernetes Secret"
    if json and (_SERVICE_ACCOUNT.search(text) or ('"private_key"' in text and '"client_email"' in text)):
        return "a service account's private key"
    if settings and sets_a_secret(text):
        return "a password or token set in it"
    return ""


__all__ = ["RACY_NS", "RC_SETS_A_SECRET", "SETS_A_SECRET", "SNIFFED_NAMES", "content_why", "sets_a_secret",
           "judged_by_content", "looked_into", "secret_content_why", "text_content_why"]
