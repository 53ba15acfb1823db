"""A key whose prefix says what it is, with one ordinary character put inside it:
another spelling for :func:`shell.core.secrets.secret_going_out` (finding P5).

``ghp_AbCdEfGhIjKlMnOp,QrStUvWxYz0123456789`` carried a GitHub token out unasked in a
URL or an MCP tool's arguments: neither half alone has the token's shape, and the
receiver strips the comma. The same with ``|``, ``~``, ``.``, ``-``, ``+``, ``!``,
``*``, ``:``, ``;``, ``_`` or a space (``%20``). So after each prefix a key kind is
known by (``ghp_``, ``sk-proj-``, ``AKIA``, ``xoxb-``…) the text that follows is read
again with one kind of character other than a letter or digit taken out, for each
kind found there (any kind: a list missed ``=``, ``@``, quotes, brackets, ``/``, a
newline), and with all of them taken out (two kinds in one key), and
the prefix put back as the shape spells it (``ghp-`` and ``ghp.``, a host label's
spelling, read as ``ghp_``); and a run spelled with one separator between its letters
(``g.h.p._.A.b…``) is read with it taken out. The secrets policy then looks for the
key's shape in what that gives.

Ordinary text must not ask: a reading is kept only when its key part is long, holds
a digit and a letter (keys are random letters and digits; ``sk-learn,docs`` is no
key) and differs from what was there; the key's shape test does the rest (a URL's
``/``, ``?`` or ``&`` after ``sk-learn`` gives lower-case words, no key). Kept apart from
:mod:`.secretencodings` only for size; nothing else should import from here.
"""

from __future__ import annotations

import re

_PREFIXES = re.compile(  # the look-ahead lets the regex engine skip to a likely first letter (3x faster)
    r"(?=[AGghnprswxy])(?:(gh[pousr])[_.~ ,|:;+!*-]"
    r"|(github_pat_|sk-ant-|sk-(?:proj|svcacct|admin)-|(?<![A-Za-z0-9])sk-|(?<![A-Za-z0-9])[rs]k_(?:live|test)_"
    r"|gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent)-|xox[abposre]-|AIza|GOCSPX-|ya29\.|hf_|npm_|pypi-AgE|gsk_"
    r"|whsec_|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)))"
)
"""The prefixes of key kinds the secrets policy knows by shape (:mod:`.secretshapes`);
GitHub's with any separator for its ``_``."""
SEPARATORS = frozenset(",|~.-+!*:; _\t")
_KEY = re.compile(r"[A-Za-z0-9_-]*")
_NOT_KEY_LETTER = re.compile(r"[^A-Za-z0-9]")
"""After a key's prefix, any other character is one the receiver strips as easily: not
a list (finding Q5: ``=``, ``@``, ``$``, quotes, brackets, ``/``, a newline … left
unasked while ``,`` and ``|`` asked)."""
WINDOW = 200
"""Characters after a prefix read again: the longest key kinds here are ~170 letters."""
MIN_KEY = 16
"""Key letters a reading needs after its prefix (the shortest shapes want 16)."""
MAX_PREFIXES = 64
"""Prefixes read again in one text (each costs a few short passes)."""


def without_a_separator(text: str) -> str:
    """The keys ``text`` would hold with one class of separator taken out after a key
    prefix, one a line; empty when there are none."""
    found: list[str] = []
    for n, match in enumerate(_PREFIXES.finditer(text)):
        if n >= MAX_PREFIXES:
            break
        prefix = f"{match.group(1)}_" if match.group(1) else match.group(2)
        tail = text[match.end() : match.end() + WINDOW]
        as_is = _KEY.match(tail)
        whole = as_is.group() if as_is else ""
        others = set(_NOT_KEY_LETTER.findall(tail))
        readings = [tail.replace(separator, "") for separator in others]
        if len(others) > 1:  # two kinds in one key (ghp_AbCd,EfGh|IjKl…), or ", "
            readings.append(_NOT_KEY_LETTER.sub("", tail))
        for reading in readings:
            key = _KEY.match(reading)
            body = key.group() if key else ""
            if len(body) >= MIN_KEY and body != whole and _random_looking(body, prefix):
                found.append(prefix + body)
        if match.group(1) and len(whole) >= MIN_KEY and _random_looking(whole, prefix):
            found.append(prefix + whole)  # ghp-… in a host label: the token with its "_" put back
    return "\n".join(dict.fromkeys(found))


def between_its_letters(text: str) -> str:
    """The runs of ``text`` spelled with one separator between (nearly) every letter
    (``g.h.p._.A.b…``, ``s k - p r o j…``) with the separator taken out, those that
    then hold a key prefix, one a line; empty when there are none."""
    found: list[str] = []
    for separator in SEPARATORS.intersection(text):
        between = re.escape(separator)
        spaced = re.compile(rf"(?:[A-Za-z0-9_-]{{1,2}}{between}){{{MIN_KEY},}}[A-Za-z0-9_-]{{0,2}}")
        for run in spaced.finditer(text):
            joined = run.group().replace(separator, "")
            if _PREFIXES.search(joined):
                found.append(joined)
    return "\n".join(dict.fromkeys(found))


def _random_looking(body: str, prefix: str) -> bool:
    """Whether ``body`` could be a key's random part: a digit in it, and both cases
    but after the prefixes of keys spelled in one case (AWS's, Slack's). Ordinary
    names after a prefix-like word (``sk-2024,release-notes``, ``ghp-pages.…/blog/2024``)
    are in one case."""
    one_case = prefix.startswith(("xox", "A")) and prefix != "AIza"
    mixed = one_case or (any(c.isupper() for c in body) and any(c.islower() for c in body))
    return mixed and any(c.isdigit() for c in body)


__all__ = ["between_its_letters", "without_a_separator"]
