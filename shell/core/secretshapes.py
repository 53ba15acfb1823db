"""What a secret looks like in text: :data:`SHAPES`, one entry per kind of token or
credential, for :mod:`shell.core.secrets` (the one secrets policy) to redact and find.

Kept apart from the redactor only for size: nothing else should import from here but
:mod:`shell.core.secrets`, which re-exports :class:`Shape` and :data:`SHAPES`. Each
pattern is RE2 syntax over bytes (all are joined into one linear-time expression), and
an assignment's shape vetoes, through its ``check``, what is code or prose rather than
a value (``password = getpass()``, ``--password-file``, ``set DB_PASS to your password``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass


def _basic_credentials(value: bytes, after: bytes) -> bool:
    """``Basic dXNlcjpwdw==`` is credentials only if it decodes to ``user:password``."""
    try:
        decoded = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded and decoded.isascii()


_CODE_LIKE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|(?i:none|null|true|false|"
                        rb"undefined|required|optional|string|str|bytes|secret|password|token|env|"
                        rb"raise|return|continue|break|yield|await|lambda)")
"""Code, not a value: a dotted name, a literal, a type, a keyword (``if not password: raise``)."""


_PLACEHOLDER = re.compile(rb"\$\{[^}]{1,200}\}|\$[A-Z_][A-Z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%")
"""A variable a config or a shell fills in (``${env.MAVEN_PASSWORD}``, ``$MYSQL_PWD``,
``%DB_PASS%``): where the secret comes from, not the secret. A lower-case ``$ecret1``
may be a password and is not one of these."""
_PHRASE = re.compile(rb"[a-z]+(?: [a-z]+){2,}")
"""``put your unique phrase here``: the placeholder WordPress's sample config ships."""


def _assigned_secret(strict: bool) -> Callable[[bytes, bytes], bool]:
    """``password=hunter2`` yes; ``password=self.password``, ``token = next_token()``
    (code), ``password=${DB_PASSWORD}`` (a placeholder) no. ``strict`` (key and token
    names, unquoted): a digit is required too."""

    def check(value: bytes, after: bytes) -> bool:
        if after == b"(" or _CODE_LIKE.fullmatch(value) or _PLACEHOLDER.fullmatch(value):
            return False
        lowered = value.lower()
        if any(w in lowered for w in (b"pass", b"secret", b"token", b"key")) and b"_" in value:
            return False  # password=db_password: a name, not a value
        return not strict or any(48 <= c <= 57 for c in value)

    return check


_loose = _assigned_secret(strict=False)


def _defined_secret(value: bytes, after: bytes) -> bool:
    """A PHP ``define()``'s value, unless a placeholder phrase (WordPress's sample)."""
    return _loose(value, after) and not _PHRASE.fullmatch(value)


def _option_secret(value: bytes, after: bytes) -> bool:
    """``--password s3cret!`` yes; ``--password option`` (prose), ``-storepass changeit``
    no: a value given as the next word must hold a digit or a symbol to count (the
    shape's pattern asks for one: fewer matches to veto), since a plain word after an
    option's name is as often a sentence going on."""
    return len(value) >= 4 and _loose(value, after)


_PROSE = frozenset({b"takes", b"expects", b"requires", b"needs", b"sets", b"gives", b"is", b"and", b"or",
                    b"the", b"a", b"an", b"to", b"with", b"for", b"option", b"flag", b"argument"})
"""Words that go on a sentence about an option (``redis-cli -a takes the password``)."""


def _command_secret(value: bytes, after: bytes) -> bool:
    """A command's password argument, its quotes taken off: not ``"$PASS"``,
    ``"$(pass show db)"`` or a backquoted command (where it comes from), nor a word
    of a sentence about the option."""
    if value[:1] == b"\\":  # \"…\" (JSON inside JSON)
        value = value[1:]
        if value.endswith(b"\\" + value[:1]):
            value = value[:-2] + value[:1]
    if value[:1] in (b'"', b"'") and value[-1:] == value[:1]:
        value = value[1:-1]
    elif value in _PROSE:
        return False
    return not value.startswith((b"$(", b"`")) and _loose(value, after)


@dataclass(frozen=True, slots=True)
class Shape:
    """One kind of secret. ``pattern`` is RE2 syntax over bytes; a ``(?P<keep>…)``
    prefix and a ``(?P<tail>…)`` suffix are kept, the rest becomes ``[REDACTED]``.
    ``check(secret, next_byte)`` may veto a match."""

    name: str
    pattern: str
    check: Callable[[bytes, bytes], bool] | None = None


_SEP = r"""(?:\\?["'])?[ \t]{0,5}(?:[:=]|=>|%3[dDaA])[ \t]{0,5}"""  # \" too: JSON inside JSON
_VALUE = r"""[^\s"'&,;<>(){}\[\]]"""
_SECRET_KEY_NAMES = (
    r"(?:api[_.-]?key|apikey|secret[_.-]?access[_.-]?key|secret[_.-]?key|client[_.-]?secret|"
    r"account[_.-]?key|private[_.-]?key|access[_.-]?key|auth[_.-]?token|access[_.-]?token|"
    r"refresh[_.-]?token|session[_.-]?token|security[_.-]?token|token|credentials?|"
    r"secret[_.-]?key[_.-]?base)"  # Rails
)
_PASSWORD_NAMES = r"(?:password|passwd|passphrase|pwd|secret|[a-z0-9][_.-]pass\b)"
"""``db_pass``, ``SMTP_PASS`` too; not a bare ``pass`` (``tests pass: everything works``)."""
_QUOTED_NAMES = rf"(?:{_SECRET_KEY_NAMES}|{_PASSWORD_NAMES}|\bpass\b)"
"""A quoted value is a value, not a sentence: ``"pass": "…"`` counts."""
_Q = r"""\\?["']"""  # a quote, escaped too (JSON inside JSON)
_OPTION_PREFIXES = (r"(?:db|database|admin|root|user|master|bind|proxy|smtp|mail|ldap|redis|mysql|postgres|"
                    r"pg|registry|api|app|client|server|login|account|store|key|keystore|truststore|sudo|"
                    r"auth|http|ftp|ssh|sftp|web|rpc|rcon)-")
"""The words an option's name may carry before ``password`` (``--db-password``), listed
rather than any word, because ``--no-password``, ``--ask-vault-pass`` are flags that
take no value and the next word is something else."""


def _quoted_setting(before: str, name_char: str, names: str, between: str) -> str:
    """A config line that names a secret in quotes and gives its value in quotes
    (``define('DB_PASSWORD', 'x')``, ``<add key="ApiKey" value="x"/>``): one builder so
    every such shape keeps the same rules: the name may carry a prefix of ``name_char``,
    the value is 4 or more characters on one line, and both quotes stay in the text."""
    return (rf"""(?i)(?P<keep>{before}{_Q}{name_char}*(?:{names}){_Q}{between}{_Q})"""
            rf"""[^"'\r\n]{{4,}}?(?P<tail>{_Q})""")


def _xml_element(names: str, shortest: int) -> str:
    """``<password>x</password>``: the element's text is the secret, the tags stay, so
    the redacted XML still reads as XML; one builder so every element shape agrees on
    what the text may hold (no ``<``, no white space, at least ``shortest`` bytes)."""
    return rf"(?i)(?P<keep><(?:{names})>[ \t]*)[^<\s]{{{shortest},}}(?P<tail>[ \t]*</)"


_COMMAND_VALUE = r"""(?:\\?"[^"\r\n]+"|\\?'[^'\r\n]+'|[^\s"'\\;&|<>()`]+)"""
"""A password a command takes as its next word (``sshpass -p …``, ``redis-cli -a …``),
quotes and all (escaped too: a command line inside JSON): any length, since the
command's name says what it is."""
_HTPASSWD_FLAGS = r"(?:[ \t]+-(?:C[ \t]+[0-9]+|[A-Za-z]+)){0,4}"
_HTPASSWD_ARG = r"""[ \t]+[^\s|;&<>-][^\s|;&<>]*"""
"""``htpasswd -b FILE USER PASSWORD``, ``htpasswd -nb USER PASSWORD`` (``-n``: no file)."""


SHAPES: tuple[Shape, ...] = (
    Shape("private key (PEM, OpenSSH, PGP, PKCS#8)",
          r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----(?s:.*?)"
          r"(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|\z)"),
    Shape("PuTTY private key", r"PuTTY-User-Key-File-[0-9]:(?s:.*?)(?:Private-MAC: [0-9a-f]+|\z)"),
    Shape("Anthropic key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    Shape("OpenAI key (project, service account or admin)", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"),
    Shape("OpenAI key (and sk- look-alikes: OpenRouter, DeepSeek)", r"\bsk-[A-Za-z0-9_-]{16,}"),
    Shape("Stripe secret or restricted key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}"),
    Shape("Stripe webhook secret", r"whsec_[A-Za-z0-9+/=]{20,}"),
    Shape("GitHub token", r"gh[pousr]_[A-Za-z0-9]{30,}"),
    Shape("GitHub fine-grained token", r"github_pat_[A-Za-z0-9_]{20,}"),
    Shape("GitLab token", r"gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),
    Shape("Slack token", r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    Shape("Slack webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}"),
    Shape("Discord webhook", r"discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}"),
    Shape("Microsoft Teams or Office 365 webhook",
          r"(?i)(?:\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/[A-Za-z0-9@/_-]{20,}"),
    Shape("Zapier webhook", r"hooks\.zapier\.com/hooks/catch/[0-9]+/[A-Za-z0-9]{5,}"),
    Shape("IFTTT webhook key",
          r"maker\.ifttt\.com/(?:trigger/[^/\s]{1,100}/(?:json/)?with/key|use)/[A-Za-z0-9_-]{16,}"),
    Shape("webhook URL (Mattermost, Rocket.Chat, Gitea, generic)",
          r"(?i)(?P<keep>://[^\s/]{1,253}/(?:[^\s/?#]{1,100}/){0,6}(?:web)?hooks?/(?:[^\s/?#]{1,100}/){0,4})"
          r"[A-Za-z0-9_-]{20,}"),
    Shape("Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    Shape("Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    Shape("Google OAuth access token", r"ya29\.[0-9A-Za-z_-]{20,}"),
    Shape("AWS access key id",
          r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[0-9A-Z]{16}\b"),
    Shape("age secret key (sops)", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    Shape("Hugging Face token", r"hf_[A-Za-z0-9]{30,}"),
    Shape("npm token", r"npm_[A-Za-z0-9]{36}\b"),
    Shape("PyPI token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    Shape("Groq key", r"gsk_[A-Za-z0-9]{40,}"),
    Shape("Replicate token", r"r8_[A-Za-z0-9]{30,}"),
    Shape("Perplexity key", r"pplx-[A-Za-z0-9]{40,}"),
    Shape("xAI key", r"xai-[A-Za-z0-9]{40,}"),
    Shape("SendGrid key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    Shape("Mailgun key", r"\bkey-[0-9a-f]{32}\b"),
    Shape("Twilio API key", r"\bSK[0-9a-f]{32}\b"),
    Shape("Telegram bot token", r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{30,40}\b"),
    Shape("Shopify token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    Shape("DigitalOcean token", r"do[opr]_v1_[a-f0-9]{64}\b"),
    Shape("Atlassian API token", r"ATATT3[A-Za-z0-9_=-]{30,}"),
    Shape("Linear key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    Shape("Notion token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b"),
    Shape("Databricks token", r"dapi[a-f0-9]{32}\b"),
    Shape("HashiCorp Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    Shape("age secret key (X25519, post-quantum or a plugin's)",
          r"AGE-(?:SECRET-KEY-(?:PQ-)?|PLUGIN-[A-Z0-9]{1,30}-)1[0-9A-Z]{40,}"),
    Shape("Postman key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    Shape("Doppler token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    # finding M4: more tokens whose prefix says what they are (gitleaks' rule list)
    Shape("Docker Hub token", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    Shape("Tailscale key", r"tskey-[a-z]{2,10}-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    Shape("Grafana token", r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|"
                           r"\beyJrIjoi[A-Za-z0-9]{70,400}={0,3}"),
    Shape("1Password service account token", r"ops_eyJ[A-Za-z0-9+/_-]{40,}={0,3}"),
    Shape("Supabase key", r"sb(?:p|_secret)_[A-Za-z0-9_-]{30,}"),
    Shape("Figma token", r"figd_[A-Za-z0-9_-]{30,}"),
    Shape("Fly.io token", r"fo1_[A-Za-z0-9_-]{30,}|fm[12][ar]?_[A-Za-z0-9+/=_-]{40,}"),
    Shape("New Relic key", r"NR(?:AK|II|JS|RA)-[A-Za-z0-9_-]{20,}"),
    Shape("Pulumi token", r"\bpul-[a-f0-9]{40}\b"),
    Shape("Netlify token", r"nf[pcou]_[A-Za-z0-9]{36,}"),
    Shape("Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    Shape("Alibaba Cloud access key id", r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    Shape("Square token", r"\bEAAA[A-Za-z0-9_-]{50,70}\b|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}"),
    Shape("Discord bot token", r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"),
    Shape("Google OAuth refresh token", r"\b1//0[A-Za-z0-9_-]{30,}"),
    Shape("HTTP cookie holding a session",
          r"(?i)(?P<keep>\b(?:set-)?cookie:[ \t]*(?:[^\r\n;]*;[ \t]*)*"
          r"[A-Za-z0-9_.-]*(?:sess|sid|token|auth|jwt)[A-Za-z0-9_.-]*=)[^\s;\"',]{8,}"),
    Shape("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"),
    Shape("Bearer credentials", r"(?i)(?P<keep>\bbearer[ \t]+)[A-Za-z0-9._~+/-]{8,}=*"),
    Shape("Basic credentials", r"(?i)(?P<keep>\bbasic[ \t]+)[A-Za-z0-9+/]{8,}={0,2}", _basic_credentials),
    Shape("password in a URL",  # ``redis://:pw@h``, ``ftp://me@mail.org:pw@h``, ``p@ss``: up to the last @
          r"(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://[^\s:/]{0,256}:)[^\s/?#]{1,512}(?P<tail>@)"),
    Shape("key as the user of a URL (Sentry DSN)",
          r"(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://)[a-f0-9]{32}(?::[a-f0-9]{32})?(?P<tail>@)"),
    Shape(".pgpass line (host:port:database:user:password)",
          # a host with a dot or / (not /etc/passwd's), read from its last one: a match wherever
          # the host's has one, with one count (two counts, one each side of any dot, made RE2's
          # DFA build a state for each place of the dots: 60 KB of punctuation took 0.1-0.9 s, Z5)
          r"(?P<keep>(?:\*|\blocalhost|[./][^:\s./]{0,126}):(?:[0-9]{2,5}|\*):"
          r"[^:\s]+:[^:\s]+:)[^\s\"']+"),
    Shape("Azure connection-string key",
          r"(?i)(?P<keep>\b(?:AccountKey|SharedAccessKey|SharedSecret)[ \t]*=[ \t]*)[^;\s\"']{8,}"),
    Shape("key in a URL query",
          r"(?i)(?P<keep>[?&](?:api[_-]?key|apikey|key|token|access[_-]?token|auth|sig|signature|"
          r"secret|client[_-]?secret|password|x-amz-signature|x-amz-security-token|"
          r"x-goog-signature)=)[^&\s#\"'<>]{6,}"),
    Shape("quoted value of a secret name",
          rf"""(?i)(?P<keep>{_QUOTED_NAMES}"""
          rf"""{_SEP}(?P<quote>\\?["']))[^"'\r\n]{{4,}}?(?P<tail>\\?["'])""",
          _assigned_secret(strict=False)),
    # finding L11: the forms configs and command lines hold passwords in
    Shape("PHP define() of a secret (WordPress's wp-config.php)",
          _quoted_setting(r"\bdefine[ \t]*\([ \t]*", "[a-z0-9_]",
                          "password|passwd|pass|pwd|secret|key|token|salt", r"[ \t]*,[ \t]*"),
          _defined_secret),
    Shape("password in an XML element (Maven's settings.xml, Jenkins)",
          _xml_element(r"[a-z0-9_.:-]*(?:password|passwd|passphrase)|(?:[a-z0-9]+[_.-])?pass", 4),
          _loose),
    Shape("key, token or secret in an XML element",
          _xml_element(r"[a-z0-9_.:-]*(?:secret|token|api[_-]?key|private[_-]?key|access[_-]?key)", 8),
          _assigned_secret(strict=True)),
    Shape(".NET appSettings secret",
          _quoted_setting(r"<add[ \t]+key[ \t]*=[ \t]*", "[a-z0-9_.:-]",
                          "password|passwd|pwd|secret|api[_.-]?key|token", r"[ \t]+value[ \t]*=[ \t]*"),
          _loose),
    Shape("MySQL password on the command line (-pPASSWORD)",
          rf"""(?P<keep>\b(?:mysql[a-z]*|mariadb(?:-[a-z]+)?)(?:[ \t]+[^\s|;&]+){{0,8}}?[ \t]+-p{_Q}?)"""
          r"""[^\s"'\\;&|<>()]{4,}""",
          _loose),
    Shape("password given as a command-line option",
          rf"""(?i)(?P<keep>(?:\A|\s)(?:--?(?:{_OPTION_PREFIXES})?(?:password|passwd|passphrase|pass)|"""
          r"""-(?:src|dest)?(?:store|key)pass)[ \t]+\\?["']?)"""
          r"""[A-Za-z._-]*[^A-Za-z._\s"'\\&;|<>(){}\[\]-][^\s"'\\&;|<>(){}\[\]]*""",
          _option_secret),
    # r13: more of the places configs and command lines hold a password (verify7's L11)
    Shape("password in an array element (Drupal's $databases[…]['password'] = '…')",
          rf"""(?i)(?P<keep>\[[ \t]*{_Q}(?:{_PASSWORD_NAMES}|\bpass\b){_Q}[ \t]*\][ \t]*=[ \t]*{_Q})"""
          r"""[^"'\r\n]{1,}?(?P<tail>\\?["'])""",
          _loose),
    Shape("password given to sshpass -p",
          rf"""(?P<keep>\bsshpass(?:[ \t]+-[A-OQ-Za-oq-z][^\s|;&]*){{0,4}}[ \t]+-p[ \t]*)"""
          rf"""{_COMMAND_VALUE}""",
          _command_secret),
    Shape("password of curl -u user:password",
          rf"""(?P<keep>\bcurl[ \t](?:[^\n|;&]*?[ \t])??(?:-u[ \t]*|--user(?:[ \t]+|=)){_Q}?"""
          r"""[^\s:"'|;&<>]*:)"""
          r"""[^\s"'\\;&|<>()`]+""",
          _command_secret),
    Shape("password given to redis-cli -a",
          rf"""(?P<keep>\bredis-cli[ \t](?:[^\n|;&]*?[ \t])??(?:-a|--pass)[ \t]+)"""
          rf"""{_COMMAND_VALUE}""",
          _command_secret),
    Shape("password given to htpasswd -b",
          rf"""(?P<keep>\bhtpasswd{_HTPASSWD_FLAGS}[ \t]+(?:"""
          rf"""-[A-Za-z]*(?:n[A-Za-z]*b|b[A-Za-z]*n)[A-Za-z]*{_HTPASSWD_FLAGS}{_HTPASSWD_ARG}|"""
          rf"""-[A-Za-mo-z]*b[A-Za-mo-z]*{_HTPASSWD_FLAGS}{_HTPASSWD_ARG}{_HTPASSWD_ARG})[ \t]+)"""
          rf"""{_COMMAND_VALUE}""",
          _command_secret),
    Shape("password in a Java properties XML entry",
          rf"""(?i)(?P<keep><entry[ \t]+key[ \t]*=[ \t]*{_Q}[a-z0-9_.:-]*"""
          rf"""(?:password|passwd|pwd|passphrase|secret|api[_.-]?key|token){_Q}[ \t]*>[ \t]*)"""
          r"""[^<\r\n]{1,}?(?P<tail>[ \t]*</)""",
          _loose),
    Shape(".netrc password",
          r"""(?P<keep>(?:\bmachine\s+\S+|\bdefault)(?:\s+(?:account|port)\s+\S+){0,2}\s+login\s+\S+"""
          r"""(?:\s+(?:account|port)\s+\S+){0,2}\s+password\s+)"""
          r"""\S+""",
          _loose),
    Shape("openssl's pass: argument", r"(?P<keep>-pass(?:in|out)?[ \t]+pass:)[^\s\"']{4,}"),
    Shape("password assigned a value",
          rf"""(?i)(?P<keep>{_PASSWORD_NAMES}{_SEP}){_VALUE}{{4,}}""",
          _assigned_secret(strict=False)),
    Shape("key or token assigned a value",
          rf"""(?i)(?P<keep>{_SECRET_KEY_NAMES}{_SEP}){_VALUE}{{8,}}""",
          _assigned_secret(strict=True)),
)
