"""Long pastes: a token in the prompt that expands to the whole text, a summary to draw."""

from __future__ import annotations

from shell.frontend.paste import Pastes, is_long_paste, shown_part, size_label


def test_a_token_expands_to_the_paste_and_an_edited_or_foreign_token_stays() -> None:
    pastes = Pastes()
    text = "line\n" * 50
    token = pastes.add(text)
    assert token == "[Pasted text #1: 50 lines, 250 B]"
    assert pastes.expand(f"look: {token} please") == f"look: {text} please"
    edited = token.replace("50 lines", "5 lines")
    assert pastes.expand(edited) == edited  # changed by hand: sent as typed
    assert pastes.expand("[Pasted text #7: 1 line, 3 B]") == "[Pasted text #7: 1 line, 3 B]"
    second = pastes.add("x" * 2000)
    assert second.startswith("[Pasted text #2: 1 line, 2.0 KB")
    assert pastes.expand(token + second) == text + "x" * 2000


def test_what_is_long_and_how_it_is_drawn() -> None:
    assert not is_long_paste("a short line") and not is_long_paste("a\nb\nc")
    assert is_long_paste("a\n" * 9) and is_long_paste("x" * 801)
    assert shown_part("one\ntwo") == ("one\ntwo", "")
    rows = "".join(f"row {i}\n" for i in range(100))
    head, more = shown_part(rows)
    assert head == "row 0\nrow 1\nrow 2"
    assert more == f"… 97 more lines ({size_label(rows)} in all; sent in full)"
    assert size_label(rows).startswith("100 lines, ")
    head, more = shown_part("y" * 5000)  # one long line: cut, not 60 rows
    assert head == "y" * 200 + "…" and more.startswith("… more (1 line, 4.9 KB")
