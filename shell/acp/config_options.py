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

from shell.runtime.options import HITL

from .permissions import MODES

MODE_OPTION = "mode"
MODEL_OPTION = "model"
MIDDLEWARE_PREFIX = "middleware."
ON, OFF = "on", "off"

ConfigOption = SessionConfigOptionSelect | SessionConfigOptionBoolean


APPROVALS_OFF = (
    "Approvals are off (HumanInTheLoop is off): every call that would ask runs unasked, as in "
    "bypass mode; deny rules and plan mode still hold."
)
"""What the editor is told while the HumanInTheLoop switch is off, in the words the
other front ends use: switching "a middleware" off must not silently mean bypass."""
OFF_NAME = " — approvals off"


def _shown(mode_id: str, name: str, description: str, current: str, approvals_off: bool) -> tuple[str, str]:
    """A mode's name and description as the editor lists them: the current one says
    that approvals are off while they are (the mode alone would read "Ask")."""
    if approvals_off and mode_id == current and mode_id != "bypass":
        return name + OFF_NAME, APPROVALS_OFF + " " + description
    return name, description


def mode_state(current: str, approvals_off: bool = False) -> SessionModeState:
    modes = []
    for m in MODES:
        name, description = _shown(m.id, m.name, m.description, current, approvals_off)
        modes.append(SessionMode(id=m.id, name=name, description=description))
    return SessionModeState(current_mode_id=current, available_modes=modes)


def mode_option(current: str, approvals_off: bool = False) -> SessionConfigOptionSelect:
    options = []
    for m in MODES:
        name, description = _shown(m.id, m.name, m.description, current, approvals_off)
        options.append(SessionConfigSelectOption(value=m.id, name=name, description=description))
    return SessionConfigOptionSelect(
        type="select",
        id=MODE_OPTION,
        name="Permissions",
        description=APPROVALS_OFF if approvals_off else "What runs without asking.",
        category="mode",
        current_value=current,
        options=options,
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


GATE_OFF = "Off: nothing asks (as bypass; deny rules and plan mode hold)"


def middleware_option(name: str, description: str, enabled: bool, *, boolean: bool) -> ConfigOption:
    option_id = MIDDLEWARE_PREFIX + name
    text = description or None
    if name == HITL:  # an editor's On/Off must say what Off means here
        text = f"{description} {GATE_OFF}." if description else GATE_OFF + "."
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
            SessionConfigSelectOption(value=OFF, name=GATE_OFF if name == HITL else "Off"),
        ],
    )


def as_switch(value: Any) -> bool | None:
    """A middleware option's new value as on/off (None: not a value it can take)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in (ON, OFF, "true", "false"):
        return value.lower() in (ON, "true")
    return None
