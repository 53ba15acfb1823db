"""Keep secrets out of session files and exports.

A session file outlives the terminal: it gets copied, attached to bug reports,
exported to Markdown. A key that a tool printed (``env``, ``cat .env``) or that
the user pasted must not land there. Two nets, applied on write:

- *patterns* for the shapes keys have (``sk-…``, ``sk-ant-…``, ``Bearer …``,
  ``AKIA…``, GitHub tokens, ``api_key=…``, PEM private keys), and
- *values*: the actual secrets this process knows, the values of environment
  variables whose name says secret (``*_KEY``, ``*_TOKEN``, ``*_SECRET``,
  ``*_PASSWORD``) and those the provider config names (``api_key_env``, inline
  ``api_key``, secret-looking headers). Values shorter than 8 characters are
  not used: redacting ``"1234"`` everywhere would mangle ordinary text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from shell.core.messages import (
    AssistantMessage,
    Block,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 8
SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")

_PATTERNS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
        REDACTED,
    ),
    (re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_\-]{16,}"), REDACTED),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\b(Bearer\s+)[A-Za-z0-9._~+/=\-]{8,}", re.I), r"\1" + REDACTED),
    # ``api_key=…``, ``"password": "…"``: a quoted value, or an unquoted one with a
    # digit in it, so that code (``token = next_token()``) is left alone.
    (
        re.compile(
            r"""(?ix)
            \b((?:[a-z0-9]+[_-])*(?:api[_-]?key|secret(?:[_-]key)?|access[_-]?key|auth[_-]?token|
                token|password|passwd)["']?\s*[:=]\s*)
            (?:(["'])(?!\[REDACTED\])[^"'\s]{6,}(?=\2)
              |(?!\[REDACTED\])(?=[^\s"'&,;<>()]*\d)[^\s"'&,;<>()]{6,}(?![\w(]))
            """
        ),
        lambda m: m.group(1) + (m.group(2) or "") + REDACTED,
    ),
)


def is_secret_env_name(name: str) -> bool:
    return name.upper().endswith(SECRET_SUFFIXES)


def secret_values(
    environ: Mapping[str, str] | None = None, settings: Any = None
) -> list[str]:
    """The secret values this process knows (see the module docstring)."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if is_secret_env_name(k) and len(v) >= MIN_SECRET_LEN}
    providers = getattr(settings, "providers", None) or {}
    for provider in providers.values():
        name = getattr(provider, "api_key_env", None)
        if name and len(env.get(name, "")) >= MIN_SECRET_LEN:
            found.add(env[name])
        key = getattr(provider, "api_key", None)
        if isinstance(key, str) and len(key) >= MIN_SECRET_LEN:
            found.add(key)
        headers = getattr(provider, "headers", None) or {}
        for header, value in headers.items():
            if _secret_header(header) and isinstance(value, str):
                token = value.split(None, 1)[-1]  # "Bearer xyz" → "xyz"
                if len(token) >= MIN_SECRET_LEN:
                    found.add(token)
    return sorted(found, key=len, reverse=True)


def _secret_header(name: str) -> bool:
    lowered = name.lower()
    return any(w in lowered for w in ("key", "token", "secret", "auth", "password", "cookie"))


class Redactor:
    """Replaces secrets in strings and in JSON values (recursively)."""

    def __init__(self, values: Iterable[str] = (), *, patterns: bool = True) -> None:
        self.values = sorted({v for v in values if len(v) >= MIN_SECRET_LEN}, key=len, reverse=True)
        self.patterns = patterns
        self._values_re = (
            re.compile("|".join(re.escape(v) for v in self.values)) if self.values else None
        )

    @classmethod
    def from_environment(
        cls, settings: Any = None, environ: Mapping[str, str] | None = None
    ) -> Redactor:
        """Patterns plus the secrets of the environment and the provider config."""
        return cls(secret_values(environ, settings))

    def text(self, text: str) -> str:
        if not text:
            return text
        if self._values_re is not None:
            text = self._values_re.sub(REDACTED, text)
        if self.patterns:
            for pattern, replacement in _PATTERNS:
                text = pattern.sub(replacement, text)
        return text

    def json(self, value: Any) -> Any:
        """A copy of a JSON value with every string (and dict key) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.json(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.json(v) for v in value]
        return value


    def block(self, block: Block) -> Block:
        """A content block with its text redacted; data blocks (bytes) pass as they are."""
        if isinstance(block, TextBlock):
            return TextBlock(self.text(block.text))
        if isinstance(block, ThinkingBlock):
            return ThinkingBlock(self.text(block.text), block.signature)
        if isinstance(block, HintBlock):
            return HintBlock(self.text(block.text))
        if isinstance(block, ToolCallBlock):
            return ToolCallBlock(block.id, block.name, self.json(block.args))
        return block

    def content(self, content: str | tuple[Any, ...]) -> Any:
        if isinstance(content, str):
            return self.text(content)
        return tuple(self.block(b) for b in content)

    def message(self, message: Message) -> Message:
        """A copy of ``message`` with every text, argument and result redacted."""
        if isinstance(message, SystemMessage):
            return SystemMessage(self.text(message.text))
        if isinstance(message, UserMessage):
            return UserMessage(self.content(message.content))
        if isinstance(message, AssistantMessage):
            return AssistantMessage(self.content(message.content), message.usage, message.stop_reason)
        return ToolResultMessage(
            message.call_id, message.name, self.content(message.content), message.is_error
        )


NO_REDACTION = Redactor(patterns=False)
"""For tests that need the raw text."""


def redact(text: str, redactor: Redactor | None = None) -> str:
    """``text`` with secrets replaced (the environment's redactor when none is given)."""
    return (redactor or Redactor.from_environment()).text(text)
