"""Finding C5: spellings the values net did not read, cheap for a model after an
approved ``git log -p``: four spaces between letters (``sed 's/./&    /g'``), a line
break every seven letters (``fold -w7``), rot13 of the value reversed, atbash, and every
other letter (half the value in one line, the other half in another). Each line holding
one is now withheld; ordinary output is not touched, and many values (a home full of
``.env`` files) are all still looked for."""

from __future__ import annotations

import codecs
import random
import string
from pathlib import Path

import pytest

from shell.core.secretspellings import holds_any, spelled_lines
from shell.permissions.hiddenvalues import StreamRedaction, hidden_values

VALUE = "Yt83hdPq2LmXz7RtQ9wE"
WHOSE = "a value of a hidden secret file"
ATBASH = str.maketrans(string.ascii_lowercase + string.ascii_uppercase,
                       string.ascii_lowercase[::-1] + string.ascii_uppercase[::-1])

SPELLED = {
    "four spaces between letters": "".join(c + "    " for c in VALUE),
    "seven dots between letters": ".......".join(VALUE),
    "reversed, then rot13": codecs.encode(VALUE[::-1], "rot13"),
    "atbash": VALUE.translate(ATBASH),
    "atbash, reversed": VALUE.translate(ATBASH)[::-1],
    "every other letter, the first": VALUE[0::2],
    "every other letter, the second": VALUE[1::2],
}


@pytest.mark.parametrize("how", SPELLED)
def test_each_spelling_withholds_its_line(how: str) -> None:
    text = f"commit 3f9a0c4\n+{SPELLED[how]}\n done\n"
    out, found = spelled_lines(text, (VALUE,), WHOSE)
    assert SPELLED[how] not in out and found == [VALUE]
    assert out.startswith(f"commit 3f9a0c4\n[REDACTED: a line holding {WHOSE}, ")
    assert out.endswith("]\n done\n")


def test_a_value_folded_over_lines_withholds_each_of_them(tmp_path: Path) -> None:
    """``fold -w7``: no line holds eight of its letters, so no one line was a spelling."""
    env = tmp_path / ".env"
    env.write_text(f"DB_PASSWORD={VALUE}\n")
    folded = "\n".join(VALUE[i : i + 7] for i in range(0, len(VALUE), 7))
    stream = StreamRedaction(hidden_values([env]))
    text = f"-DB_PASSWORD=\n{folded}\nafter\n"
    out = "".join(stream.feed(text[i : i + 5]) for i in range(0, len(text), 5)) + stream.flush()
    for line in folded.splitlines():
        assert line not in out
    assert out.startswith("-DB_PASSWORD=\n[REDACTED") and out.endswith("]\nafter\n")


def test_only_short_lines_that_may_be_a_values_piece_wait_for_the_next(tmp_path: Path) -> None:
    """A stream holds a short line back only while it may be a piece of a value folded
    over lines: ``start`` or ``done`` before a pause shows at once."""
    env = tmp_path / ".env"
    env.write_text(f"DB_PASSWORD={VALUE}\n")
    stream = StreamRedaction(hidden_values([env]))
    assert stream.feed("start\n") == "start\n"
    assert stream.feed(f"{VALUE[:7]}\n") == ""
    assert stream.feed("ok then\n") == f"{VALUE[:7]}\nok then\n"
    assert stream.flush() == ""


def test_ordinary_code_and_logs_hold_no_spelling_of_many_values() -> None:
    rng = random.Random(5)
    letters = string.ascii_letters + string.digits
    values = tuple("".join(rng.choices(letters, k=rng.randint(16, 48))) for _ in range(200))
    ordinary = "".join(p.read_text() for p in sorted((Path(__file__).parent).glob("test_secret_*.py")))
    ordinary += "\n".join(f"[{n:3}%] Building CXX object src/app.dir/m{n}.cpp.o" for n in range(100))
    assert not holds_any(ordinary, values, ())
    assert spelled_lines(ordinary, values, WHOSE) == (ordinary, [])


def test_the_last_of_many_values_is_still_found_in_every_spelling() -> None:
    """Many values are looked for in several passes (one expression for all of them ran
    out of RE2's memory: 16 s a megabyte); the last value is in the last pass."""
    rng = random.Random(6)
    letters = string.ascii_letters + string.digits
    values = (*("".join(rng.choices(letters, k=40)) for _ in range(255)), VALUE)
    for spelled in (VALUE, VALUE[::-1], " ".join(VALUE), SPELLED["atbash"]):
        assert holds_any(f"x {spelled} y", values, ())
        assert spelled_lines(f"a\n{spelled}\nb", values, WHOSE)[1] == [VALUE]
    assert holds_any(f"x {values[0]} y", (), (values[0],))  # a written form: the first pass's
