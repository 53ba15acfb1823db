"""Textual themes of agent-shell and their registry.

Only ``shell.tui`` imports this package (themes are a UI concern). The TUI
registers every theme from :func:`all_themes` and widgets style themselves with
theme variables only, so a theme here restyles the whole app.
"""

from __future__ import annotations

from textual.theme import Theme

from .builtin import CONTRAST, DARK, LIGHT

DEFAULT_THEME = DARK.name

_THEMES: dict[str, Theme] = {t.name: t for t in (DARK, LIGHT, CONTRAST)}


def all_themes() -> list[Theme]:
    """Every theme of our own, in menu order (dark, light, high contrast, then user ones)."""
    return list(_THEMES.values())


def get_theme(name: str) -> Theme | None:
    return _THEMES.get(name)


def register(theme: Theme) -> None:
    """Add a user theme (e.g. loaded from config) to the registry."""
    _THEMES[theme.name] = theme


__all__ = ["CONTRAST", "DARK", "DEFAULT_THEME", "LIGHT", "all_themes", "get_theme", "register"]
