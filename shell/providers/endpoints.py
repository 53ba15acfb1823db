"""Where a provider lives, worked out from the environment without loading httpx
(so choosing a model at start-up stays cheap)."""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_base_url(host: str | None) -> str:
    """``OLLAMA_HOST`` as a base URL: ``0.0.0.0`` → ``http://0.0.0.0:11434`` and so on."""
    host = (host or "").strip()
    if not host:
        return DEFAULT_HOST
    if "://" not in host:
        host = "http://" + host
    parts = urlsplit(host)
    hostname = parts.hostname or "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"
    port = parts.port or (11434 if parts.scheme == "http" else 443)
    return f"{parts.scheme}://{hostname}:{port}{parts.path.rstrip('/')}"
