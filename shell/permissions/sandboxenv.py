"""The environment a sandboxed command gets: ours without secrets.

A command in the sandbox (which ``auto`` mode runs unasked) must not read provider
keys, cloud settings or handles on agents outside the sandbox from its environment;
which variables count is decided here, on the one secrets policy of
:mod:`shell.core.secrets`.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .credentialvars import names_credentials

if TYPE_CHECKING:
    from shell.core.secrets import Secrets

_CAPABILITY_NAMES = (
    "AWS_", "ANTHROPIC_", "OPENAI_", "AZURE_", "GOOGLE_APPLICATION_CREDENTIALS", "GCLOUD_", "GH_",
    "GITHUB_", "GITLAB_", "HF_", "HUGGINGFACE_", "VAULT_", "SSH_AUTH_SOCK", "SSH_AGENT", "GPG_AGENT",
    "KRB5", "DBUS_SESSION", "AGENT_SHELL_", "TWINE_", "XAUTHORITY", "SENTRY_DSN",
)  # fmt: skip
"""Prefixes of variables a command in the sandbox does not get, secret-looking or
not: provider and cloud settings, and handles on agents outside the sandbox (the
ssh and gpg agents, D-Bus, X authority)."""
_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.I)


def is_secret_variable(name: str, value: str = "") -> bool:
    """Whether an environment variable should not reach a sandboxed command.

    By name: what the one secrets policy (:mod:`shell.core.secrets`) calls secret
    (``*_KEY``, ``*_TOKEN``, ``PASSWORD``, ``AUTH``, ``COOKIE``…), plus the prefixes
    of providers, clouds and outside agents (``OPENAI_*``, ``AWS_*``,
    ``SSH_AUTH_SOCK``…). By value: what that policy recognises as a credential
    (``sk-…``, ``ghp_…``, ``AKIA…``, PEM blocks, passwords in URLs) and the values
    the provider config names."""
    from shell.core.secrets import is_secret_name

    upper = name.upper()
    if names_credentials(upper):  # KUBECONFIG, GOOGLE_APPLICATION_CREDENTIALS: where the keys are
        return True
    if is_secret_name(upper) or upper.startswith(_CAPABILITY_NAMES) or "SESSION" in upper.split("_"):
        return True
    if value and (_URL_WITH_PASSWORD.search(value) or value in _shapes()):
        return True
    return bool(value) and value in known_secret_values()


_added: frozenset[str] = frozenset()
_added_lock = threading.Lock()


def add_config_secrets(values: Iterable[str]) -> None:
    """Secret values of the settings this run actually loaded: the config ``--config``
    named (the default one is read by :func:`_known_secrets`), the MCP servers an editor
    gave, a trusted workspace's ``.mcp.json`` (finding Q4: these were unknown, so
    ``fetch_url`` sent an MCP server's token unasked and a command's environment kept
    it). Each is also known URL-encoded; what is too short to redact alone is left out."""
    from shell.core.secrets import MIN_SECRET_LEN, encoded_forms

    kept = {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_LEN}
    kept |= {form for v in kept for form in encoded_forms(v)}
    global _added
    with _added_lock:
        _added = _added | kept


@functools.cache
def _known_secrets() -> frozenset[str]:
    """The values the default config names (``api_key_env``, inline keys, MCP servers')."""
    from shell.core.secrets import secret_values

    try:
        from shell.config import load_config

        settings: Any = load_config()
    except Exception:  # a broken config is reported elsewhere; the names still protect
        settings = None
    return frozenset(secret_values(None, settings))


def known_secret_values() -> frozenset[str]:
    """The secret values of the environment at start and of the config (cached), and
    those of the settings the run loaded (:func:`add_config_secrets`)."""
    return _known_secrets() | _added


@functools.cache
def _shapes() -> Secrets:
    """The secrets policy's shapes of credentials (``sk-…``, ``ghp_…``, PEM), no values."""
    from shell.core.secrets import Secrets

    return Secrets((), patterns=True)


def scrubbed_environment(environ: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """A copy of ``environ`` (default: ours) without secret variables, and the
    names removed (for the tool result's details, never the values)."""
    source = os.environ if environ is None else environ
    kept: dict[str, str] = {}
    removed: list[str] = []
    for name, value in source.items():
        if is_secret_variable(name, value):
            removed.append(name)
        else:
            kept[name] = value
    return kept, sorted(removed)


__all__ = ["add_config_secrets", "is_secret_variable", "known_secret_values", "scrubbed_environment"]
