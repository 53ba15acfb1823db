"""A password said in words: "the db password is hunter2secret", "token: Xk29ab…".

Why: the secrets policy (:mod:`.secrets`) knows keys by their shape and by the values
in the environment and the config; a password a user types into a chat has neither,
so the memory store kept "password hunter2secret" verbatim while its docs said
secrets are redacted before anything is stored (finding R12). Where text is kept for
later and replayed into prompts (LongTermMemory), the word after a secret's name is
redacted too when it looks like a secret, not a word: at least 6 characters with a
digit, a symbol or both cases ("password reset flow" and "the token expired" stay).
"""

from __future__ import annotations

import re

_SAID = re.compile(
    r"(?P<name>\b(?:passwords?|passwd|passphrase|pass ?code|pwd|pin|secret|token"
    r"|api[ _-]?key|access[ _-]?key)"
    r"(?:\s+(?:is|was|=|:|for\s+\S+\s+is))?\s*[:=]?\s*[\"'`]?)(?P<value>[^\s\"'`]{6,})",
    re.IGNORECASE,
)
REDACTED = "[REDACTED]"


def redact_spoken(text: str) -> str:
    """``text`` with each secret-looking word said after a secret's name replaced."""
    return _SAID.sub(_replace, text) if text else text


def _replace(match: re.Match[str]) -> str:
    value = match.group("value").rstrip(".,;:!?)")
    tail = match.group("value")[len(value):]
    if not _secret_looking(value):
        return match.group(0)
    return match.group("name") + REDACTED + tail


def _secret_looking(word: str) -> bool:
    if len(word) < 6 or word == REDACTED:
        return False
    digit = any(c.isdigit() for c in word)
    symbol = any(not c.isalnum() for c in word)
    cases = any(c.isupper() for c in word) and any(c.islower() for c in word)
    return digit or symbol or cases


__all__ = ["REDACTED", "redact_spoken"]
