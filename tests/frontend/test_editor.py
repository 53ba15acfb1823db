"""Text edited in the user's editor: what it saved comes back, and the file goes."""

from __future__ import annotations

from pathlib import Path

from shell.frontend.editor import edit_in_editor


def test_the_editor_gets_the_text_and_what_it_saves_comes_back(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    editor = ["sh", "-c", f'cp "$1" {seen}; echo "$1" >> {seen}; printf "edited \\377" > "$1"', "sh"]
    edited = edit_in_editor('{"a": 1}', editor, suffix=".md")
    assert edited == "edited \ufffd"  # a byte that is not UTF-8: replaced, not lost to an error
    given, path = seen.read_text().split("\n", 1)[0], seen.read_text().rstrip("\n").rsplit("\n", 1)[-1]
    assert given.startswith('{"a": 1}') and path.endswith(".md")
    assert not Path(path).exists()
