"""The sandbox's file binds made inside it by a small launcher, not one by one by bubblewrap.

Most of what a sandboxed command's set-up costs is bubblewrap's mounts, and most of those
are files: each secret file of the other projects under home and of the workspace gets an
empty (or git's staged, or a scrubbed) copy bound over it, 100 on a developer's home with
50 projects. bubblewrap reads the whole mount table (``/proc/self/mountinfo``) after every
bind to remount it read-only, so the cost grows with binds x (host mounts + binds): ~190
ms a command with 20 host mounts, ~720 ms with 1,000 (snaps, container hosts), while the
same 150 binds made directly take 7 ms (``benchmarks/sandbox_setup.py``, BENCHMARKS.md).

Weighed, and why this one: masking a folder with one tmpfs and binding its other entries
back saves nothing where each project holds one ``.env`` beside its sources (the common
case: one mount becomes many); a cache of the options between commands saves Python's
~40 ms, not bubblewrap's. So bubblewrap makes the rest of the sandbox as before and runs
a launcher (:data:`LAUNCHER`, Python's own interpreter, ``-I -S``, its code on the
command line, not a file a command could change) with ``CAP_SYS_ADMIN`` in the
sandbox's user namespace. It

1. reads the binds from a descriptor (a ``memfd``: the map of hidden paths is on no
   command line, and closed before the command starts; bubblewrap's init closes it too);
2. makes its own mount namespace (``unshare``): where bubblewrap maps the user to root
   first for ``/dev/pts``, it runs the command in a second user namespace, which does not
   own bubblewrap's mount namespace, so mounts must be made in one of its own;
3. writes the copies' contents into a private tmpfs, remounts it read-only, binds each
   copy over its file (a bind of a read-only mount is read-only: no remount, no read of
   the mount table), and detaches the tmpfs (the binds keep it);
4. drops every capability (ambient, bounding, effective, permitted, inheritable), checks
   ``/proc/self/status`` says so, writes ``ok`` to a second descriptor, puts back the
   signals Python ignores (``yes | head`` would print "Broken pipe"), and execs the
   command (bubblewrap set ``no_new_privs``: nothing gives them back).

Fails closed: a launcher that could not do all of it exits before the command, without
the ``ok``; :meth:`.sandboxlaunch.Launch.never_started` then says the command never ran,
and the caller sets it up again with bubblewrap's own mounts (:func:`fast_path_failed`).
The command runs with no capability whichever way, and the binds made are the same
files: only bubblewrap's ``--ro-bind SRC DST`` of a small file over an existing file
that no later mount covers move (:func:`split`); the rest stays with bubblewrap, in order.

Only for bubblewrap started by our own ``run_shell`` (descriptors passed), when the binds
are enough to pay for the interpreter's start (:func:`worth_it`).
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import paths

LAUNCHER = r"""
import ctypes, errno, marshal, os, signal, sys
def main():
    listing, marker = int(sys.argv[1]), int(sys.argv[2])
    chunks = []
    while True:
        chunk = os.read(listing, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(listing)
    contents, binds, environ = marshal.loads(b"".join(chunks))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    def check(rc, what):
        if rc != 0:
            code = ctypes.get_errno()
            raise OSError(code, what + ": " + (errno.errorcode.get(code) or str(code)))
    check(libc.unshare(0x00020000), "unshare")
    stage = b"/tmp/.agent-shell-mounts-%d" % os.getpid()
    os.mkdir(stage, 0o700)
    check(libc.mount(b"tmpfs", stage, b"tmpfs", 2 | 4 | 8, b"mode=0700"), "tmpfs")
    for number, data in enumerate(contents):
        fd = os.open(b"%s/%d" % (stage, number), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.close(fd)
    check(libc.mount(None, stage, None, 32 | 1 | 2 | 4 | 8, None), "read-only")
    for target, number in binds:
        check(libc.mount(b"%s/%d" % (stage, number), target, None, 4096, None), "bind")
    check(libc.umount2(stage, 2), "detach")
    os.rmdir(stage)
    check(libc.prctl(47, 4, 0, 0, 0), "ambient")
    for cap in range(64):
        if libc.prctl(24, cap, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:
            check(-1, "bounding")
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
    check(libc.capset(header, data), "capset")
    with open("/proc/self/status") as fh:
        caps = [line.split()[1] for line in fh if line.startswith("Cap")]
    if len(caps) != 5 or any(int(c, 16) for c in caps):
        raise OSError(0, "capabilities left")
    os.write(marker, b"ok")
    os.close(marker)
    return sys.argv[4:], environ
try:
    command, environ = main()
except BaseException as exc:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
    sys.stderr.write("bwrap: agent-shell: the sandbox's file mounts could not be made (%s)\n" % reason)
    os._exit(1)
for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them, and an exec keeps what is ignored
    signal.signal(getattr(signal, name), signal.SIG_DFL)
try:
    os.execvpe(command[0], command, environ)
except OSError as exc:
    sys.stderr.write("bwrap: execvp %s: %s\n" % (command[0], exc.strerror))
    os._exit(1)
"""
"""Run as ``python -I -S -c LAUNCHER LIST_FD MARKER_FD -- COMMAND…`` (see the module's docstring).
Its errors name no path (the result shows them; the paths are what it hides)."""

CAPS = ("--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP")
"""What the launcher needs, in the sandbox's user namespace only: to mount, and to drop
the bounding set before it execs the command."""

MAX_COPY = 256 * 1024
"""Bytes of one copy the launcher writes at most (a bigger staged copy stays bubblewrap's bind)."""
MAX_COPIES = 16 * 1024 * 1024
"""Bytes of all copies together (the rest stays bubblewrap's)."""

WORTH = 7_500
"""When the launcher pays for its start (the interpreter and ``ctypes``: 12-15 ms on a quiet
machine, 30 under load) against bubblewrap's binds, each of which reads the mount table:
~0.004 ms a line, the host's mounts and the sandbox's so far (~30 before the files), so
``binds x (host mounts + 30 + binds / 2)`` must reach about 7,500 (:func:`worth_it`;
measured in BENCHMARKS.md "sandbox set-up, r18")."""

FAILED = "bwrap: agent-shell: "
"""How the launcher's own error starts (bubblewrap's start ``bwrap: ``, as the caller expects)."""
GONE = "(bind: ENOENT)"
"""The launcher's error when a file to hide is gone."""

MAX_FAILURES = 2
"""Launcher failures in this process after which bubblewrap makes every mount again."""

_failures = [0]

_MOUNT_OPS = {"--bind": 2, "--bind-try": 2, "--ro-bind": 2, "--ro-bind-try": 2, "--dev-bind": 2,
              "--dev-bind-try": 2, "--tmpfs": 1, "--dev": 1, "--proc": 1, "--mqueue": 1, "--overlay-src": 1,
              "--remount-ro": 1, "--dir": 1, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2,
              "--symlink": 2, "--chmod": 2}  # fmt: skip
"""bubblewrap's options that take paths, and how many words follow each."""


@dataclass(frozen=True, slots=True)
class Moved:
    """What the launcher binds: each target's copy (an index into ``contents``)."""

    options: list[str]
    """bubblewrap's options without the moved binds, capabilities for the launcher added."""
    contents: list[bytes]
    binds: list[tuple[bytes, int]]

    def payload(self, env: Mapping[str, str]) -> bytes:
        """What the launcher reads from its descriptor: the copies, the binds, and the
        command's environment ``env`` (the interpreter changes its own: ``LC_CTYPE``, PEP 538)."""
        environ = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
        return marshal.dumps((self.contents, self.binds, environ))

    def command(self, python: str, listing: int, marker: int, argv: Sequence[str]) -> list[str]:
        return [python, "-I", "-S", "-c", LAUNCHER, str(listing), str(marker), "--", *argv]


def split(options: Sequence[str]) -> Moved:
    """bubblewrap's ``options`` (between ``bwrap`` and ``--``) with the file binds the launcher
    can make taken out: ``--ro-bind SRC DST`` where ``SRC`` is a small regular file (or
    ``/dev/null``, read as empty) and ``DST`` an existing regular file (not a symlink) that
    no later mount from elsewhere (a tmpfs, another source) covers, which bubblewrap's order
    would have hidden. Made after all of bubblewrap's mounts, each lands where bubblewrap's
    would have: over the file, carried by any bind of a folder onto itself (bubblewrap binds
    recursively)."""
    words = list(options)
    spans: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(words):
        word = words[i]
        bare = 0 if word in _FLAGS or not word.startswith("--") else 1
        count = _MOUNT_OPS.get(word, _WORDS.get(word, bare))
        spans.append((word, words[i:i + 1 + count]))
        i += 1 + count
    movable = [False] * len(spans)
    later: set[str] = set()  # targets of mounts that replace what is there, after this one
    for n in range(len(spans) - 1, -1, -1):
        word, span = spans[n]
        if word == "--ro-bind" and len(span) == 3 and not _covered(span[2], later):
            movable[n] = _is_plain_file(span[2])
        if word in _MOUNT_OPS and len(span) > 1:
            source, target = (span[1] if len(span) == 3 else None), span[-1]
            if word in _COVERS or (source is not None and source != target):
                later.add(target.rstrip("/") or "/")
    kept: list[str] = []
    contents: list[bytes] = []
    by_source: dict[str, int] = {}
    binds: list[tuple[bytes, int]] = []
    total = 0
    for n, (word, span) in enumerate(spans):
        if word == "--cap-drop" and span[1:] == ["ALL"]:
            continue  # the launcher drops them all itself, after its mounts
        if movable[n]:
            source = span[1]
            index = by_source.get(source)
            if index is None:
                data = _copy(source, MAX_COPIES - total)
                if data is not None:
                    index = by_source[source] = len(contents)
                    contents.append(data)
                    total += len(data)
            if index is not None:
                binds.append((os.fsencode(span[2]), index))
                continue
        kept += span
    if not binds:
        return Moved(list(options), [], [])
    return Moved([*CAPS, *kept], contents, binds)


def _covered(target: str, later: set[str]) -> bool:
    """Whether ``target`` is one of ``later`` or lies under one (a lookup per level)."""
    path = target.rstrip("/") or "/"
    while True:
        if path in later:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def _is_plain_file(target: str) -> bool:
    """A regular file, not a symlink to one (one ``lstat``: the sandbox lists real paths, and a
    ``realpath`` of each cost 3 ms a command for 100 files)."""
    try:
        return stat.S_ISREG(os.lstat(target).st_mode)
    except OSError:
        return False


_FLAGS = frozenset({"--die-with-parent", "--new-session", "--unshare-all", "--share-net", "--unshare-user",
                    "--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                    "--unshare-cgroup", "--unshare-cgroup-try", "--clearenv", "--as-pid-1",
                    "--disable-userns", "--assert-userns-disabled"})  # fmt: skip
"""bubblewrap's options that take no word (any other ``--x`` not in :data:`_MOUNT_OPS` takes one)."""


_WORDS = {"--setenv": 2, "--args": 1, "--chdir": 1, "--cap-add": 1, "--cap-drop": 1, "--unsetenv": 1,
          "--json-status-fd": 1, "--info-fd": 1, "--sync-fd": 1, "--block-fd": 1, "--seccomp": 1,
          "--add-seccomp-fd": 1, "--userns": 1, "--userns2": 1, "--pidns": 1, "--uid": 1, "--gid": 1,
          "--hostname": 1, "--exec-label": 1, "--file-label": 1, "--lock-file": 1, "--perms": 1,
          "--size": 1, "--argv0": 1, "--userns-block-fd": 1}  # fmt: skip
"""bubblewrap's other options, and how many words follow each."""
_COVERS = frozenset({"--tmpfs", "--dev", "--proc", "--mqueue", "--dir", "--file", "--bind-data",
                     "--ro-bind-data", "--symlink", "--overlay-src"})  # fmt: skip
"""Mounts (and made paths) that replace what was at their target."""


def _copy(source: str, room: int) -> bytes | None:
    """``source``'s bytes when small enough (``/dev/null``: none), else None (bubblewrap binds it)."""
    if source == "/dev/null":
        return b""
    try:
        with open(source, "rb") as fh:
            if not os.path.isfile(source):
                return None
            data = fh.read(MAX_COPY + 1)
    except OSError:
        return None
    return data if len(data) <= min(MAX_COPY, room) else None


def python_for_launcher(writable: Sequence[str]) -> str | None:
    """The interpreter to run :data:`LAUNCHER` with: this one's real base executable (not a
    venv's link, which reads a ``pyvenv.cfg`` beside it), and only when neither it nor its
    library lies where commands may write (a command could plant code that then runs with
    ``CAP_SYS_ADMIN`` in the next one's sandbox and undo its mounts)."""
    base = getattr(sys, "_base_executable", "") or sys.executable
    if not base:
        return None
    real = os.path.realpath(base)
    prefix = os.path.realpath(sys.base_prefix)
    if any(paths.within(p, w) for p in (real, prefix) for w in writable):
        return None
    return real if os.access(real, os.X_OK) else None


def writable_targets(options: Sequence[str]) -> list[str]:
    """What bubblewrap's ``options`` bind writable (``--bind``, ``--bind-try``)."""
    return [options[i + 2] for i, w in enumerate(options[:-2]) if w in ("--bind", "--bind-try")]


def worth_it(binds: int, host_mounts: int) -> bool:
    """Whether the launcher's start costs less than bubblewrap's ``binds``: 80 with a
    laptop's 20 host mounts, 7 with a snap host's 1,000 (:data:`WORTH`)."""
    return binds > 0 and binds * (host_mounts + 30 + binds // 2) >= WORTH


def host_mounts() -> int:
    """How many mounts this process sees (bubblewrap's sandbox starts from a copy of them)."""
    try:
        with open("/proc/self/mountinfo", "rb") as fh:
            return fh.read().count(b"\n")
    except OSError:
        return 0


def fast_path_on() -> bool:
    """Whether to try the launcher (not after :data:`MAX_FAILURES` failures in this process)."""
    return _failures[0] < MAX_FAILURES


def fast_path_failed(output: str) -> None:
    """The sandbox was not set up (``output``: what it printed): count it against the launcher
    (see :func:`fast_path_on`) when the launcher said it failed, not for a file to hide that
    vanished since it was listed (bubblewrap's own mounts fail alike on that)."""
    said = output.lstrip()
    if said.startswith(FAILED) and GONE not in said.splitlines()[0]:
        _failures[0] += 1


__all__ = ["LAUNCHER", "WORTH", "Moved", "fast_path_failed", "fast_path_on", "host_mounts",
           "python_for_launcher", "split", "worth_it", "writable_targets"]
