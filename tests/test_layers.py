"""The layers of DESIGN.md, checked: imports go one way between packages (no two
packages import each other, lazily or for types included), and nothing below the
UI imports a terminal library. A failure names the modules to look at."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("shell", "middleware", "themes")
UI_LIBRARIES = ("textual", "rich", "prompt_toolkit")
BELOW_THE_UI = ("shell.core", "shell.agent", "shell.providers", "shell.tools", "shell.sessions",
                "shell.permissions", "shell.speech", "shell.frontend", "middleware")


def unit_of(module: str) -> str | None:
    """The package a module belongs to: ``shell.X`` for each sub-package or
    top-level module of ``shell``, else the top-level package."""
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return None
    if parts[0] != "shell" or len(parts) == 1:
        return parts[0]
    here = ROOT / "shell" / parts[1]
    return f"shell.{parts[1]}" if here.is_dir() or here.with_suffix(".py").exists() else "shell"


def imports() -> Iterator[tuple[str, str, Path]]:
    """(importing module, imported module, file) for every import in the tree."""
    for top in PACKAGES:
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            module = ".".join(parts)
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        yield module, alias.name, path
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = package.split(".")[: len(package.split(".")) - node.level + 1]
                        target = ".".join(base + ([node.module] if node.module else []))
                    else:
                        target = node.module or ""
                    yield module, target, path
                    for alias in node.names:  # ``from shell import runtime`` names a module too
                        yield module, f"{target}.{alias.name}", path


def test_packages_import_each_other_one_way_only() -> None:
    edges: dict[str, dict[str, str]] = {}
    for source, target, path in imports():
        a, b = unit_of(source), unit_of(target)
        if a and b and a != b:
            edges.setdefault(a, {}).setdefault(b, str(path.relative_to(ROOT)))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            unit = todo.pop()
            if unit == goal:
                return True
            if unit not in seen:
                seen.add(unit)
                todo.extend(edges.get(unit, {}))
        return False

    cycles = sorted(
        f"{a} -> {b} (in {where}), and {b} leads back to {a}"
        for a, targets in edges.items()
        for b, where in targets.items()
        if reaches(b, a)
    )
    assert not cycles, "package-level import cycles:\n" + "\n".join(cycles)


def test_nothing_below_the_ui_imports_a_terminal_library() -> None:
    found = sorted(
        f"{path.relative_to(ROOT)} imports {target}"
        for source, target, path in imports()
        if any(source == p or source.startswith(p + ".") for p in BELOW_THE_UI)
        and target.split(".")[0] in UI_LIBRARIES
    )
    assert not found, "\n".join(found)


def test_themes_are_imported_by_the_tui_only() -> None:
    found = sorted(
        f"{path.relative_to(ROOT)} imports {target}"
        for source, target, path in imports()
        if unit_of(target) == "themes" and unit_of(source) not in ("themes", "shell.tui")
    )
    assert not found, "\n".join(found)


STARTPATH = "shell.startpath"
"""Below every layer: the ``PYTHONPATH`` rule the interpreter's start applies before any
other import (finding A10), so it may import only ``os`` and ``sys`` (checked below) and
cannot live in a package whose ``__init__`` imports more."""


def test_the_engine_layers_import_only_downwards() -> None:
    """shell.core -> middleware -> shell.agent: each may import only the ones before it
    (the sanitiser and the secrets policy they share live in shell.core), and
    :data:`STARTPATH`, which is below them all."""
    allowed = {"shell.core": {STARTPATH}, "middleware": {"shell.core", STARTPATH},
               "shell.agent": {"shell.core", "middleware", STARTPATH}}
    found = sorted(
        f"{path.relative_to(ROOT)} imports {target}"
        for source, target, path in imports()
        if (a := unit_of(source)) in allowed
        and (b := unit_of(target)) is not None
        and b != a
        and b not in allowed[a]
    )
    assert not found, "\n".join(found)


def test_the_start_path_rule_imports_only_what_the_interpreter_has_loaded() -> None:
    """Its own imports run before it drops the unsafe entries: anything beyond ``os`` and
    ``sys`` (even ``__future__`` or ``typing``) could be a planted module."""
    found = sorted({target for source, target, _ in imports() if source == STARTPATH})
    assert found == ["os", "sys"], found
