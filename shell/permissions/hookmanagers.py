"""The command lines other commit-hook managers' configs run (finding U12).

Their configs are guarded by name (:mod:`.laternames`: ``captainhook.json``,
``.rusty-hook.toml``, ``hk.pkl`` …); the scripts they name are not, unless read: with
``"action": "./tools/check.sh"`` in ``captainhook.json``, ``pre-commit = "sh tools/r.sh"`` in
``.rusty-hook.toml`` or ``check = "tools/hk.sh {{files}}"`` in ``hk.pkl``, a changed
``tools/…`` runs as the user at the next commit. :mod:`.hookscripts` reads these command
lines like pre-commit's ``entry:`` and guards the files they name.

Read: CaptainHook's JSON (every ``action`` string, at any depth: hooks' actions and their
``conditions`` are PHP classes or commands), rusty-hook's TOML (every string of ``[hooks]``),
hk's Pkl without a Pkl evaluator (none is a dependency): the string a step's command keys
(``check``, ``fix``, ``check_list_files``, ``check_diff``, ``shell``) are set to, one-line or
``\"\"\"`` multi-line. A config that does not parse names nothing more (it is guarded whole).
"""

from __future__ import annotations

import json
import re
import tomllib

CAPTAINHOOK = ("captainhook.json",)
RUSTY_HOOK = (".rusty-hook.toml", "rusty-hook.toml")
HK = ("hk.pkl", "hk.local.pkl", ".config/hk.pkl", ".config/hk.local.pkl")
CONFIGS = (*CAPTAINHOOK, *RUSTY_HOOK, *HK)
"""Where each manager reads its config, from the work tree's root."""
MAX_STRINGS = 1024
_HK_KEY = re.compile(
    r"""\b(?:check|fix|check_list_files|check_diff|check_first|shell)\s*=\s*"""
    r"""(?:\"\"\"(?P<long>.*?)\"\"\"|"(?P<short>(?:[^"\\\n]|\\.)*)")""", re.S)


def commands(name: str, text: str) -> list[str]:
    """The command lines of the config ``name`` (one of :data:`CONFIGS`, by its base name)."""
    base = name.rsplit("/", 1)[-1]
    if base in CAPTAINHOOK:
        try:
            return _actions(json.loads(text.removeprefix("\ufeff")))  # a BOM read past: fail closed
        except (ValueError, RecursionError):
            return []
    if base in RUSTY_HOOK:
        try:
            hooks = tomllib.loads(text).get("hooks")
        except (tomllib.TOMLDecodeError, RecursionError):
            return []
        return [v for v in hooks.values() if isinstance(v, str)] if isinstance(hooks, dict) else []
    lines: list[str] = []
    for found in _HK_KEY.finditer(text):
        lines += (found.group("long") or "").splitlines() or [found.group("short") or ""]
    return [line for line in lines if line.strip()][:MAX_STRINGS]


def _actions(data: object) -> list[str]:
    """Every ``action`` string below ``data``, walked without recursion."""
    out: list[str] = []
    stack = [data]
    while stack and len(out) < MAX_STRINGS:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("action", "exec") and isinstance(value, str):
                    out.append(value)
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack += item
    return out


__all__ = ["CONFIGS", "commands"]
