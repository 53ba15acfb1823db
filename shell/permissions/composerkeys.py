"""What of a ``composer.json`` Composer runs or installs from elsewhere at a plain ``composer
install``, read for :mod:`.codekeys` (finding D11's twin in PHP): the ``scripts`` of its own
events (``post-install-cmd``, ``pre-autoload-dump`` …: npm's lifecycle scripts), the
``repositories`` it gets packages from (a VCS or path repository's package runs its own
scripts and plugins), and ``config``'s ``allow-plugins`` (a plugin is PHP that runs at every
Composer command). Other scripts run only when named (``composer test``)."""

from __future__ import annotations

import json
from typing import Any

NAME = "composer.json"
EVENTS = frozenset({
    "pre-install-cmd", "post-install-cmd", "pre-update-cmd", "post-update-cmd", "pre-status-cmd",
    "post-status-cmd", "pre-archive-cmd", "post-archive-cmd", "pre-autoload-dump", "post-autoload-dump",
    "post-root-package-install", "post-create-project-cmd", "pre-operations-exec", "pre-package-install",
    "post-package-install", "pre-package-update", "post-package-update", "pre-package-uninstall",
    "post-package-uninstall", "init", "command", "pre-file-download", "post-file-download",
    "pre-command-run", "pre-pool-create",
})
"""Composer's own events: it runs their ``scripts`` with no script named."""
WHY = ("holds what Composer runs or installs from elsewhere unasked (a script of its own events: "
       "post-install-cmd, pre-autoload-dump …; repositories; config's allow-plugins: the next composer "
       "install runs them as you)")


def composer_keys(data: Any) -> dict[str, str]:
    """A parsed composer.json's keys (see the module), by place."""
    if not isinstance(data, dict):
        return {}
    out: dict[str, str] = {}
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        out.update({f"scripts.{k}": _dump(v) for k, v in scripts.items() if k in EVENTS})
    if "repositories" in data:
        out["repositories"] = _dump(data["repositories"])
    config = data.get("config")
    if isinstance(config, dict) and "allow-plugins" in config:
        out["config.allow-plugins"] = _dump(config["allow-plugins"])
    return out


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (ValueError, RecursionError):
        return repr(value)


__all__ = ["EVENTS", "NAME", "WHY", "composer_keys"]
