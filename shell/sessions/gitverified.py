"""Kept git objects put back only when their content still hashes to their name.

The history keep (:mod:`.gitkeep`) hard-links each object and pack into the
checkpoints: a link costs nothing per command, where a copy of a 100 MB pack costs
seconds and counts against the checkpoints' limit (BENCHMARKS.md,
``git_history_kept``). The price is that the kept file *is* the repository's file:
a sandboxed command that makes an object writable and rewrites it in place
changes the kept copy too. So nothing kept is trusted at ``/rewind``:

- a loose object is inflated and hashed (``"<type> <size>\\0<content>"``, SHA-1 or
  SHA-256 by the name's length); only the bytes that were checked are written, to
  a new file (a later change of the kept file cannot reach the repository);
- a pack is copied to a private folder while its bytes are hashed: the sum must
  be its trailer and its name (git names packs after that sum since 1.8.5). Its
  index is never taken from the store (an index that maps a name to other bytes
  passes any trailer check): ``git index-pack`` writes a new one from the pack,
  hashing every object. ``.keep`` and ``.promisor`` marks come back empty (git
  reads only that they exist); bitmaps and ``.mtimes`` do not come back (git works
  without them and writes them again at its next repack).

Whatever fails a check is not written, and its reason is returned to be said.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import BinaryIO

from shell.permissions import githardened

CHUNK = 1 << 20
HEX = frozenset("0123456789abcdef")
MARKS = (".keep", ".promisor")
"""Pack marks put back empty: git only looks whether they exist."""


def algorithm(name: str) -> str | None:
    """The hash an object or pack name of this length is made with (None: neither)."""
    if not HEX.issuperset(name):
        return None
    return {40: "sha1", 64: "sha256"}.get(len(name))


def put_back_loose(kept: Path, target: Path) -> str:
    """Write the loose object ``kept`` at ``target`` if it hashes to its name
    (``xx/yyy…``); the reason it was not written otherwise (empty: written)."""
    name = target.parent.name + target.name
    kind = algorithm(name)
    if kind is None:
        return "not an object name"
    try:
        data = _read(kept)
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if not _inflates_to(data, name, kind):
        return "its content does not hash to its name"
    _write_new(target, data, 0o444)
    return ""


def still_whole(kept: Path, rel: str) -> bool:
    """Whether the kept object file ``rel`` (``xx/yyy…`` or ``pack/pack-….pack``) still
    hashes to its name: a command that rewrote the repository's file in place rewrote
    this one too (the same file), and then it is no kept copy. Asked only of what the
    repository no longer has (few, after a command; a 100 MB pack is ~0.2 s). A pack's
    index and marks are not needed to put it back (:func:`put_back_pack`)."""
    folder, _, rest = rel.partition("/")
    try:
        if folder == "pack":
            stem = rest.removeprefix("pack-").removesuffix(".pack")
            kind = algorithm(stem)
            return not rest.endswith(".pack") or kind is None or _copy_hashed(kept / rel, None, stem, kind)
        kind = algorithm(folder + rest)
        return kind is None or _inflates_to(_read(kept / rel), folder + rest, kind)
    except OSError:
        return False


def _inflates_to(data: bytes, name: str, kind: str) -> bool:
    digest = hashlib.new(kind)
    inflate = zlib.decompressobj()
    view = memoryview(data)
    try:
        for start in range(0, len(data), CHUNK):
            pending: bytes | memoryview = view[start:start + CHUNK]
            while pending and not inflate.eof:  # bounded pieces: a small bomb is no 1 GB string
                digest.update(inflate.decompress(pending, CHUNK))
                pending = inflate.unconsumed_tail
            if inflate.eof and start + CHUNK < len(data):
                return False  # bytes after the object's end
    except zlib.error:
        return False
    return inflate.eof and not inflate.unused_data and digest.hexdigest() == name


def put_back_pack(kept: Path, pack_dir: Path, *, present: bool, work: Path) -> str:
    """Put back pack ``kept`` (``pack-<sum>.pack``) in ``pack_dir`` with a new index
    (``present``: the repository still has the pack file and lacks its index; it is
    checked, not replaced), checked and indexed in a private folder made under ``work``.
    The reason it was not put back (empty: it was)."""
    stem = kept.name.removesuffix(".pack")
    kind = algorithm(stem.removeprefix("pack-"))
    if not stem.startswith("pack-") or kind is None:
        return "not a pack name"
    with tempfile.TemporaryDirectory(prefix="pack-check-", dir=work) as private:
        copy = Path(private) / "p.pack"
        try:
            source = pack_dir / kept.name if present else kept
            if not _copy_hashed(source, copy, stem.removeprefix("pack-"), kind):
                return "its content does not hash to its name"
        except OSError as exc:
            return f"unreadable ({exc.strerror or exc})"
        done = githardened.run(
            ["index-pack", f"--object-format={kind}", "-o", str(copy.with_suffix(".idx")), str(copy)],
            cwd=private, timeout=60 + copy.stat().st_size / 5e6,
            env={"GIT_CEILING_DIRECTORIES": str(Path(private).parent)},
        )
        if done is None or done.returncode != 0:
            return "git index-pack refused it"
        if not present:
            _install(copy, pack_dir / kept.name, 0o444)
        with contextlib.suppress(FileNotFoundError):  # made from the pack: one there is replaced
            _install(copy.with_suffix(".rev"), pack_dir / f"{stem}.rev", 0o444, replace=True)
        _install(copy.with_suffix(".idx"), pack_dir / f"{stem}.idx", 0o444, replace=True)
    return ""


def put_back_mark(target: Path) -> None:
    """A ``.keep``/``.promisor`` mark, empty (its kept text is not needed)."""
    _write_new(target, b"", 0o444)


def _copy_hashed(source: Path, target: Path | None, name: str, kind: str) -> bool:
    """Copy ``source`` to ``target`` (None: only read it): True when its bytes before the
    trailer hash to the trailer and to ``name``."""
    digest = hashlib.new(kind)
    size = digest.digest_size
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    writing = target.open("wb") if target is not None else contextlib.nullcontext()
    with os.fdopen(fd, "rb") as src, writing as out:
        tail = b""
        while chunk := src.read(CHUNK):
            if out is not None:
                out.write(chunk)
            tail += chunk
            digest.update(tail[:-size])
            tail = tail[-size:]
    return len(tail) == size and digest.digest() == tail and digest.hexdigest() == name


def _install(source: Path, target: Path, mode: int, *, replace: bool = False) -> None:
    """Copy the checked ``source`` to ``target`` (over a file that is there only when
    ``replace``: an index made from the pack)."""
    tmp = target.with_name(f"tmp_pack_{secrets.token_hex(6)}")
    try:
        with source.open("rb") as src, _open_new(tmp, mode) as out:
            shutil.copyfileobj(src, out, CHUNK)
        if replace and not target.is_symlink():
            os.replace(tmp, target)
        else:
            os.link(tmp, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _write_new(target: Path, data: bytes, mode: int) -> None:
    tmp = target.with_name(f"tmp_obj_{secrets.token_hex(6)}")
    try:
        with _open_new(tmp, mode) as out:
            out.write(data)
        os.link(tmp, target)  # never replaces: an object that is there is left as it is
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _open_new(path: Path, mode: int) -> BinaryIO:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    return os.fdopen(fd, "wb")


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as src:
        return src.read()
