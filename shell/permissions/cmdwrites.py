"""The files a shell command line writes, as far as its words say.

Why: ``deny write_file(secrets/**)`` means "the model does not change these", and
``echo x >> secrets/plan.txt``, ``tee``, ``cp``, ``mv``, ``sed -i``, ``rm``,
``truncate`` and ``dd of=`` change them as surely as ``write_file`` does. So the
policy asks this module which paths a line writes (:func:`command_writes`): its
output redirections, and the operands of the programs listed here, read through
wrappers and shells the way deny rules read them (:mod:`.cmdword`: ``sudo tee``,
``bash -c 'rm …'``, ``find -exec rm {} +``).

Three answers for a line:

* the paths it writes (``targets``), as written and with globs expanded in the
  workspace (``rm *.txt``);
* the directories it changes with everything under them (``recursive``: ``rm -r``,
  ``mv``, ``chmod -R``), so ``rm -rf .`` reaches a denied ``secrets/``;
* why some of its writes cannot be known from the line (``unknown``): a target
  from a variable or ``$(…)`` (``> "$F"``, ``rm $X``), ``{}`` of ``find -exec``, file
  names ``xargs`` reads from its input, a command word known only at run time, a
  line that cannot be read (a here-document, a loop).

What a program writes by its own logic (``python gen.py``, ``make``, ``git
checkout``) is out of view here: the sandbox keeps what write rules name outright
read-only for those (:meth:`shell.permissions.sandbox.Sandbox.wrap`).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .cmdword import read_part
from .shellsplit import split_command
from .shellwords import Word, read_words

__all__ = ["Writes", "command_writes"]

_MAX_GLOB = 2000
_MODE = re.compile(r"-[rwxXstugoa]+")
"""``chmod -w FILE``: a mode, not an option."""


@dataclass(frozen=True, slots=True)
class _Spec:
    """``takes``: options whose value is the next word; ``skip``: leading operands
    that are not files (``chmod MODE``); ``last``: only the last operand is written
    (``cp SRC… DEST``); ``recursive``: options that reach everything below."""

    takes: frozenset[str] = frozenset()
    skip: int = 0
    last: bool = False
    recursive: frozenset[str] = frozenset()
    target: bool = False
    """``-t DIR`` / ``--target-directory=DIR`` names where the operands go."""


def _s(takes: str = "", skip: int = 0, last: bool = False, recursive: str = "", target: bool = False,
       ) -> _Spec:
    return _Spec(frozenset(takes.split()), skip, last, frozenset(recursive.split()), target)


WRITERS: dict[str, _Spec] = {
    "tee": _s("--output-error"),
    "cp": _s(target=True, takes="-t --target-directory -S --suffix", last=True),
    "mv": _s(target=True, takes="-t --target-directory -S --suffix", last=True),
    "install": _s(target=True, takes="-t --target-directory -m --mode -o --owner -g --group -S --suffix",
                  last=True),
    "ln": _s(target=True, takes="-t --target-directory -S --suffix", last=True),
    "rsync": _s("-e --rsh --exclude --include --filter -f --exclude-from --include-from --files-from "
                "--log-file --partial-dir --temp-dir -T --compare-dest --link-dest --copy-dest --chmod "
                "--chown --rsync-path -B --block-size --max-size --min-size --timeout", last=True),
    "rm": _s(recursive="-r -R --recursive"),
    "unlink": _s(), "shred": _s("-n --iterations -s --size --random-source"), "rmdir": _s(),
    "truncate": _s("-s --size -r --reference -o"),
    "touch": _s("-d --date -t -r --reference"),
    "mkdir": _s("-m --mode --context"),
    "chmod": _s("--reference", skip=1, recursive="-R --recursive"),
    "chown": _s("--reference --from", skip=1, recursive="-R --recursive"),
    "chgrp": _s("--reference", skip=1, recursive="-R --recursive"),
    "sed": _s("-e --expression -f --file -l --line-length"),
    "perl": _s("-e -E -M -m -I -x"),
    "dd": _s(),
}
"""Programs that write the files named among their operands."""
_FEEDERS = frozenset({"xargs", "parallel"})
"""Wrappers that hand their input's words to the command as operands."""


@dataclass(slots=True)
class Writes:
    """What one command line writes: see the module's docstring."""

    targets: list[str] = field(default_factory=list)
    recursive: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.targets or self.recursive or self.unknown)


def command_writes(command: str, root: Path) -> Writes:
    """The files ``command`` writes, run in ``root`` (a copy: the cache is shared)."""
    found = _command_writes(command, str(root))
    return Writes(list(found.targets), list(found.recursive), list(found.unknown))


@lru_cache(maxsize=512)
def _command_writes(command: str, root: str) -> Writes:
    out = Writes()
    split = split_command(command)
    if not split.confident and _may_write(command):
        out.unknown.append(f"the line cannot be read for sure ({'; '.join(split.problems)})")
    for part in split.parts:
        _redirects(part.writes, out, root)
        if not part.text:
            continue
        reading = read_part(part.text)
        _redirects(reading.redirects, out, root)
        if reading.runtime:
            out.unknown.append(f"what `{part.text}` runs is known only when it runs")
        elif not reading.understood:
            out.unknown.append(f"`{part.text}` cannot be read for sure")
        fed = False
        for words in reading.commands:
            name = words[0].text
            if name in WRITERS:
                _operands(name, words[1:], out, root, fed)
            fed = fed or name in _FEEDERS
    out.targets[:] = list(dict.fromkeys(out.targets))
    return out


_WRITER_WORD = re.compile(
    r"(?<![\w.-])(?:" + "|".join(map(re.escape, [*WRITERS, *_FEEDERS])) + r")(?![\w.-])")
_HARMLESS = re.compile(r"[0-9&]?>&[0-9-]|[0-9&]?>>?\s*/dev/null\b")


def _may_write(command: str) -> bool:
    """For a line that cannot be read for sure (a loop, a here-document): whether it
    redirects output anywhere but ``/dev/null`` or names a program listed here."""
    return ">" in _HARMLESS.sub("", command) or _WRITER_WORD.search(command) is not None


def _redirects(texts: tuple[str, ...] | list[str], out: Writes, root: str) -> None:
    for text in texts:
        words = read_words(text)
        if words is None or len(words) != 1:
            out.unknown.append(f"the redirection to {text} cannot be read for sure")
            continue
        _target(words[0], out, root, f"> {text}")


def _target(word: Word, out: Writes, root: str, said: str, recursive: bool = False) -> list[str]:
    """Add what ``word`` names (a glob expanded in ``root``); returns the paths."""
    text = word.text
    if text.startswith("~"):
        text = os.path.expanduser(text)
    if text == "{}" or (word.dynamic and (any(c in text for c in "$`") or text.startswith(("<(", ">(")))):
        out.unknown.append(f"{said}: the file is known only when it runs")
        return []
    names = [text]
    if word.dynamic:  # a glob: bash writes what it matches (or the word itself when nothing does)
        matched = sorted(glob.iglob(text, root_dir=root) if not os.path.isabs(text) else glob.iglob(text))
        if len(matched) > _MAX_GLOB:
            out.unknown.append(f"{said}: the pattern matches too many files to check")
            return []
        names = matched or names
    out.targets.extend(names)
    if recursive:
        out.recursive.extend(names)
    return names


def _operands(name: str, words: list[Word], out: Writes, root: str, fed: bool) -> None:
    """The files ``name`` writes among its arguments ``words``."""
    spec = WRITERS[name]
    if fed:
        out.unknown.append(f"{name} gets file names from its input (xargs): they are known only when it runs")
    if name == "dd":
        for w in words:
            if w.text.startswith("of="):
                _target(Word(w.text[3:], w.dynamic), out, root, f"dd {w.text}")
        return
    operands, options, target_dir = _split(spec, words)
    if name in ("sed", "perl"):
        if not any(_in_place(name, o) for o in options):
            return
        script = any(o.split("=", 1)[0] in ("-e", "--expression", "-f", "--file", "-E") for o in options)
        operands = operands if script else operands[1:]  # the first operand is the script
    recursive = any(_recursive(spec, o) for o in options)
    operands = operands[0 if any(o.startswith("--reference") for o in options) else spec.skip :]
    said = f"{name} {' '.join(w.text for w in words)}"[:200]
    if target_dir is not None:
        written = [Word(_join(target_dir.text, w.text), w.dynamic or target_dir.dynamic) for w in operands]
        _target(target_dir, out, root, said)
        for w in written:
            _target(w, out, root, said)
    elif spec.last and operands:
        _copied(name, operands, "--delete" in options, out, root, said)
    else:
        for w in operands:
            _target(w, out, root, said, recursive=recursive)


def _copied(name: str, operands: list[Word], delete: bool, out: Writes, root: str, said: str) -> None:
    """``cp``/``mv``/``install``/``ln``/``rsync SRC… DEST``: DEST, or DEST/NAME of each
    source when DEST is a folder; ``mv`` also removes its sources."""
    *sources, dest = operands
    for d in _target(dest, out, root, said, recursive=name == "rsync" and delete):
        if len(sources) > 1 or d.endswith("/") or os.path.isdir(os.path.join(root, d)):
            for src in sources:
                _target(Word(_join(d, src.text), src.dynamic), out, root, said)
    if name == "mv":  # what is moved away is gone from where it was, everything under it
        for src in sources:
            _target(src, out, root, said, recursive=True)


def _recursive(spec: _Spec, option: str) -> bool:
    """``-r``, ``-R``, ``--recursive``, also in a cluster (``-rf``)."""
    if option in spec.recursive:
        return True
    return option[:2] != "--" and any("-" + c in spec.recursive for c in option[1:])


def _split(spec: _Spec, words: list[Word]) -> tuple[list[Word], list[str], Word | None]:
    """``(operands, options, -t DIR)``: options and their values stepped over."""
    operands: list[Word] = []
    options: list[str] = []
    target_dir: Word | None = None
    i = 0
    while i < len(words):
        w = words[i]
        text = w.text
        if text == "--":
            operands.extend(words[i + 1 :])
            break
        if text.startswith("-") and text != "-" and not (spec.skip and _MODE.fullmatch(text)):
            options.append(text)
            key = text.split("=", 1)[0]
            value: Word | None = None
            if key in spec.takes and "=" not in text and i + 1 < len(words):
                value = words[i + 1]
                options[-1] = f"{text}={value.text}"
                i += 1
            elif "=" in text:
                value = Word(text.split("=", 1)[1], w.dynamic)
            elif len(key) > 2 and key[:2] in spec.takes and key[1] != "-":
                value = Word(text[2:], w.dynamic)  # -tDIR
            if spec.target and (key in ("-t", "--target-directory") or key.startswith("-t")):
                target_dir = value
        else:
            operands.append(w)
        i += 1
    return operands, options, target_dir


def _in_place(name: str, option: str) -> bool:
    """``sed -i``, ``-i.bak``, ``-Ei``, ``--in-place``; ``perl -i``, ``-pi``, ``-pie``."""
    key = option.split("=", 1)[0]
    if key.startswith("--"):
        return key == "--in-place"
    if key in WRITERS[name].takes:
        return False
    return "i" in key[1:]


def _join(directory: str, name: str) -> str:
    return os.path.join(directory, os.path.basename(name.rstrip("/")) or name)
