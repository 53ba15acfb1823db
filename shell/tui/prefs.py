"""Remember the TUI's own preferences (the theme, speech) between runs.

The config module (``shell.config``) owns ``config.toml`` and its ``theme`` key;
with a runtime's settings we write the choice back there. Without one (the app
built around a bare ``Agent``) a small ``tui.json`` in the config dir keeps it.
Preferences config.toml has no key for (``speak``) always live in ``tui.json``,
so the TUI never writes keys the config loader does not know. The config dir is
``shell.config``'s (``AGENT_SHELL_CONFIG_DIR`` moves both);
``AGENT_SHELL_TUI_PREFS`` points at another file (tests).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from shell.core.dirs import config_dir
from shell.core.filedata import json_loads


def prefs_path() -> Path:
    override = os.environ.get("AGENT_SHELL_TUI_PREFS")
    if override:
        return Path(override)
    return config_dir() / "tui.json"


def load() -> dict[str, Any]:
    try:
        data = json_loads(prefs_path().read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_via_config(theme: str, settings: Any) -> bool:
    """Write ``theme`` into config.toml through ``shell.config`` (the settings' owner)."""
    if settings is None or not hasattr(settings, "theme"):
        return False
    try:
        from shell.config import save_config

        settings.theme = theme
        save_config(settings)
    except Exception:
        return False
    return True


def save(key: str, value: Any) -> None:
    """Remember ``key`` in tui.json (best effort: a read-only config dir loses it)."""
    path = prefs_path()
    data = load()
    data[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2), "utf-8")
    except OSError:
        pass


def save_theme(theme: str, settings: Any = None) -> None:
    """Remember ``theme``: in the runtime's config when there is one, else in tui.json."""
    if not _save_via_config(theme, settings):
        save("theme", theme)


SPEAK_MODES = ("off", "on", "auto")


def saved_speak() -> str | None:
    """The last ``/speak`` choice (``off``, ``on`` or ``auto``), or None if never made."""
    value = load().get("speak")
    return value if value in SPEAK_MODES else None


def saved_theme() -> str | None:
    value = load().get("theme")
    return value if isinstance(value, str) else None
