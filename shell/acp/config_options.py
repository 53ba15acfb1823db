"""The session's switches as ACP config options: the permission mode, the model,
and one per middleware, as in the TUI's side panel.

A middleware is a ``boolean`` option when the client says it can show one
(``clientCapabilities.session.configOptions.boolean``) and an ``On`` / ``Off``
``select`` otherwise, so every client that shows config options can switch it.
Option ids: ``mode``, ``model``, ``middleware.<Name>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from .permissions import MODES

MODE_OPTION = "mode"
MODEL_OPTION = "model"
MIDDLEWARE_PREFIX = "middleware."
ON, OFF = "on", "off"

ConfigOption = SessionConfigOptionSelect | SessionConfigOptionBoolean


def mode_state(current: str) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=m.id, name=m.name, description=m.description) for m in MODES],
    )


def mode_option(current: str) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        type="select",
        id=MODE_OPTION,
        name="Permissions",
        description="What runs without asking.",
        category="mode",
        current_value=current,
        options=[
            SessionConfigSelectOption(value=m.id, name=m.name, description=m.description) for m in MODES
        ],
    )


def model_option(current: str, available: Sequence[str]) -> SessionConfigOptionSelect:
    values = [current, *(m for m in available if m != current)]
    return SessionConfigOptionSelect(
        type="select",
        id=MODEL_OPTION,
        name="Model",
        description="The model the next request uses.",
        category="model",
        current_value=current,
        options=[SessionConfigSelectOption(value=v, name=v) for v in values],
    )


def middleware_option(name: str, description: str, enabled: bool, *, boolean: bool) -> ConfigOption:
    option_id = MIDDLEWARE_PREFIX + name
    text = description or None
    if boolean:
        return SessionConfigOptionBoolean(
            type="boolean", id=option_id, name=name, description=text, current_value=enabled
        )
    return SessionConfigOptionSelect(
        type="select",
        id=option_id,
        name=name,
        description=text,
        current_value=ON if enabled else OFF,
        options=[
            SessionConfigSelectOption(value=ON, name="On"),
            SessionConfigSelectOption(value=OFF, name="Off"),
        ],
    )


def as_switch(value: Any) -> bool | None:
    """A middleware option's new value as on/off (None: not a value it can take)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in (ON, OFF, "true", "false"):
        return value.lower() in (ON, "true")
    return None
