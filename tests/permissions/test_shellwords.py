"""The words a program receives: quotes removed, ``$'…'`` decoded, braces expanded,
and expansions marked as known only at run time (what deny rules rely on)."""

from __future__ import annotations

import pytest

from shell.permissions.shellwords import Word, read_words


@pytest.mark.parametrize(("text", "words"), [
    (r"$'\x72m' -rf x", ["rm", "-rf", "x"]),
    (r"$'\162\155'", ["rm"]),
    (r"$'\u0072m'", ["rm"]),
    (r"$'a\tb\'c'", ["a\tb'c"]),
    ("r''m \\r\\m \"r\"m", ["rm", "rm", "rm"]),
    ("{rm,-rf,x}", ["rm", "-rf", "x"]),
    ("rm{,} x", ["rm", "rm", "x"]),
    ("x{1..3}", ["x1", "x2", "x3"]),
    ("'{a,b}' \"{a,b}\"", ["{a,b}", "{a,b}"]),
    ("{a} {}", ["{a}", "{}"]),
    ("a '' b", ["a", "", "b"]),
])
def test_words_are_what_the_program_receives(text: str, words: list[str]) -> None:
    found = read_words(text)
    assert found is not None
    assert [w.text for w in found] == words
    assert not any(w.dynamic for w in found)


@pytest.mark.parametrize("text", ["$R$M", "$(echo rm)", "`echo rm`", "${X}", "r*", "/bin/r?", "<(echo)",
                                  '"$X"'])
def test_expansions_are_known_only_at_run_time(text: str) -> None:
    found = read_words(text)
    assert found is not None and found[0].dynamic


def test_a_lone_dollar_and_a_test_bracket_are_plain() -> None:
    expected = [Word("echo"), Word("$"), Word("["), Word("-f"), Word("x"), Word("]")]
    assert read_words("echo $ [ -f x ]") == expected


def test_a_quote_that_does_not_close_cannot_be_read() -> None:
    assert read_words("echo 'oops") is None
    assert read_words("echo $'oops") is None


def test_a_huge_brace_range_is_given_up_on_not_expanded() -> None:
    found = read_words("{1..100000000}")
    assert found is not None and len(found) == 1 and found[0].dynamic
