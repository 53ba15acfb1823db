"""The three built-in themes: a calm dark one, a light one and a high-contrast one.

Extra variables (``tool-running``, ``tool-done`` ...) are not needed: widgets use
the standard semantic colours ($success, $warning, $error, $accent) so any Textual
theme works, including the ones Textual ships.
"""

from __future__ import annotations

from textual.theme import Theme

DARK = Theme(
    name="agent-dark",
    primary="#5FA8D3",
    secondary="#9D7CD8",
    accent="#E0AF68",
    foreground="#D5D8E0",
    background="#16181D",
    surface="#1E2128",
    panel="#262A33",
    success="#8FBF7F",
    warning="#E5C07B",
    error="#E06C75",
    dark=True,
)

LIGHT = Theme(
    name="agent-light",
    primary="#1F6FB2",
    secondary="#7A4FB5",
    # accent (the footer's keys), warning (a pending call) and muted text (the status
    # line) are dark enough for 4.5:1 on the panel, also under a dialog's 10% backdrop
    # (app.tcss): lighter ones were pale grey and yellow on near-white (finding F21)
    accent="#8A4600",
    foreground="#1F2328",
    background="#FAFAF7",
    surface="#F0F0EB",
    panel="#E4E6E1",
    success="#2E7D32",
    warning="#7A5200",
    error="#C62828",
    dark=False,
    variables={"text-muted": "#4F504E"},
)

CONTRAST = Theme(
    name="agent-contrast",
    primary="#00D7FF",
    secondary="#FF87FF",
    accent="#FFFF00",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1C1C1C",
    success="#00FF5F",
    warning="#FFD700",
    error="#FF5F5F",
    dark=True,
    luminosity_spread=0.25,
    text_alpha=1.0,
)
