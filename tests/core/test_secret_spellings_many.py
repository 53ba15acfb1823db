"""Finding D18: the values net read other spellings (reversed, base64, hex, spaced …)
only of the first 256 values, and those with expressions that cost seconds a command
past ~100 values. The spellings are now told by plain anchors read from the text folded
the same way, and only the values found there are read in full: every value of a big
net (2,000, the net's own bound) is read in every spelling, and each anchor's folding
still finds the spellings at the edges of what the full expressions read."""

from __future__ import annotations

import base64
import codecs
import random
import string
from functools import cache

import pytest

from shell.core import secretspellings
from shell.core.secretspellings import spelled_lines

WHOSE = "a value of a hidden secret file"


@cache
def many() -> tuple[str, ...]:
    rng = random.Random(18)
    letters = string.ascii_letters + string.digits
    return tuple("".join(rng.choice(letters) for _ in range(24)) for _ in range(2000))


def _hexed(value: str, between: str, prefix: str = "") -> str:
    return between.join(prefix + f"{b:02x}" for b in value.encode())


LATE = 1500
"""A value far past the old bound of 256."""

SPELLINGS = {
    "reversed": lambda v: v[::-1],
    "base64 after two bytes": lambda v: base64.b64encode(b"ab" + v.encode()).decode(),
    "base32": lambda v: base64.b32encode(v.encode()).decode(),
    "upper-cased, seven dots and a line break between letters": lambda v: "...\n...".join(v.upper()),
    "rot13": lambda v: codecs.encode(v, "rot13"),
    "every other letter": lambda v: v[1::2],
    "hex with 0x prefixes, an x after it": lambda v: _hexed(v, ",", "0x") + "x",
    "hex as \\x escapes, upper-cased": lambda v: _hexed(v, "", "\\x").upper(),
    "hex with colons, two separators": lambda v: _hexed(v, ": "),
    "percent-encoded, upper-cased": lambda v: "".join(f"%{b:02X}" for b in v.encode()),
}


@pytest.mark.parametrize("how", SPELLINGS)
def test_a_late_value_of_a_big_net_is_withheld_in_each_spelling(how: str) -> None:
    value = many()[LATE]
    spelled = SPELLINGS[how](value)
    text = f"ok one\n{spelled}\nok two\n"
    out, found = spelled_lines(text, many(), WHOSE)
    assert spelled not in out and found and set(found) == {value}
    assert out.startswith("ok one\n[REDACTED") and out.endswith("\nok two\n")


def test_a_text_is_read_in_full_only_for_the_values_its_anchors_name() -> None:
    values = many()
    text = "build ok\n" + values[7][::-1] + "\n" + base64.b64encode(values[LATE].encode()).decode() + "\n"
    assert sorted(secretspellings.may_hold(text, values, ())[0]) == sorted((values[7], values[LATE]))
    assert secretspellings.may_hold("build ok\n" * 1000, values, ()) == ((), False)


def test_a_written_form_is_told_apart_from_the_spellings() -> None:
    assert secretspellings.may_hold(f"x {many()[3]} y", (), (many()[3],)) == ((), True)


def test_hex_ending_in_a_zero_then_an_x_is_withheld() -> None:
    """The hex anchor is read with each ``0x`` taken out: ``…30x`` loses its last 0 so."""
    value = "Qm4vPz8rLk2sXw9Tp0"
    values = (*many()[:LATE], value)
    spelled = _hexed(value, "", "0x") + "x"
    assert spelled.endswith("0x30x")
    out, found = spelled_lines(f"a\n{spelled}\nb", values, WHOSE)
    assert found == [value] and out.startswith("a\n[REDACTED")
