"""The rewind scan keeps each folder's listing and lists again only the folders whose
stamp (inode, mtime, ctime) or ignore rules changed. What it catches must stay what
a scan that lists every folder catches: a file written in place (its folder unchanged),
a file made, deleted or renamed deep down, a ``.gitignore`` edited in place, a symlink
made, a mode changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from shell.tools import capture as capture_module
from shell.tools import scanwalk
from shell.tools.capture import WorkspaceCapture


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> WorkspaceCapture:
    """A workspace of 6 folders whose listings are reused from the second scan on (the
    window in which a just-changed folder is listed again each time is shrunk from 2 s
    to none; the wait puts the file system clock past the folders' last change)."""
    monkeypatch.setattr(scanwalk, "RACY_NS", 0)
    for n in range(3):
        deep = tmp_path / f"pkg{n}" / "mod"
        deep.mkdir(parents=True)
        (deep / "a.py").write_text(f"a = {n}\n")
        (deep / "b.py").write_text(f"b = {n}\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.txt").write_text("built\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    time.sleep(0.05)
    capture = WorkspaceCapture(tmp_path)
    capture.snapshot()
    return capture


def rels(capture: WorkspaceCapture, found: list[object]) -> dict[str, object]:
    return {f.path.relative_to(capture.root).as_posix(): f for f in found}  # type: ignore[attr-defined]


def test_a_second_scan_of_an_unchanged_workspace_lists_no_folder_again(settled: WorkspaceCapture) -> None:
    first = settled.snapshot()
    assert settled.listed == 0
    assert sorted(first.files) == [".gitignore", *(f"pkg{n}/mod/{f}.py" for n in range(3) for f in "ab")]
    assert settled.changes_since(first) == [] and settled.listed == 0


def test_a_file_rewritten_in_place_with_the_same_size_is_caught(settled: WorkspaceCapture) -> None:
    before = settled.snapshot()
    target = settled.root / "pkg1" / "mod" / "a.py"
    mtime = target.stat().st_mtime_ns
    target.write_text("a = 9\n")  # same size; its folder's stamp stays as it was
    os.utime(target, ns=(mtime, mtime))  # and the mtime set back
    found = rels(settled, settled.changes_since(before))
    assert settled.listed == 0
    assert list(found) == ["pkg1/mod/a.py"]
    assert found["pkg1/mod/a.py"].before == b"a = 1\n"  # type: ignore[attr-defined]


def test_files_made_deleted_and_renamed_deep_down_are_caught(settled: WorkspaceCapture) -> None:
    before = settled.snapshot()
    mod = settled.root / "pkg2" / "mod"
    (mod / "new.py").write_text("new\n")
    (settled.root / "pkg0" / "mod" / "b.py").unlink()
    os.rename(settled.root / "pkg1" / "mod", settled.root / "pkg1" / "moved")
    found = rels(settled, settled.changes_since(before))
    assert sorted(found) == ["pkg0/mod/b.py", "pkg1/mod/a.py", "pkg1/mod/b.py", "pkg1/moved/a.py",
                             "pkg1/moved/b.py", "pkg2/mod/new.py"]
    assert found["pkg0/mod/b.py"].deleted and found["pkg0/mod/b.py"].before == b"b = 0\n"  # type: ignore[attr-defined]
    assert found["pkg2/mod/new.py"].before is None  # type: ignore[attr-defined]
    assert [(t.kind, t.path.name) for t in settled.tree] == [("rename", "moved")]


def test_a_gitignore_edited_in_place_lets_the_folder_it_ignored_be_scanned(settled: WorkspaceCapture) -> None:
    before = settled.snapshot()
    assert "build/out.txt" not in before.files
    (settled.root / ".gitignore").write_text("*.tmp\n")  # the root folder's stamp stays as it was
    (settled.root / "build" / "out.txt").write_text("overwritten\n")
    found = rels(settled, settled.changes_since(before))
    assert "build/out.txt" in found and ".gitignore" in found
    again = settled.snapshot()
    assert "build/out.txt" in again.files


def test_a_symlink_made_and_a_mode_changed_are_caught(settled: WorkspaceCapture) -> None:
    before = settled.snapshot()
    target = settled.root / "pkg0" / "mod" / "a.py"
    mode = target.stat().st_mode & 0o777
    os.symlink("../../pkg0/mod/a.py", settled.root / "pkg2" / "mod" / "link.py")
    target.chmod(0o755)
    target.write_text("a = 7\n")
    found = rels(settled, settled.changes_since(before))
    assert list(found) == ["pkg0/mod/a.py"] and found["pkg0/mod/a.py"].mode == mode != 0o755  # type: ignore[attr-defined]
    assert [(t.kind, t.path.name) for t in settled.tree] == [("link", "link.py")]


def test_a_folder_swapped_for_another_is_listed_again(settled: WorkspaceCapture) -> None:
    before = settled.snapshot()
    root = settled.root
    os.rename(root / "pkg0" / "mod", root / "pkg0" / "old")
    (root / "pkg0" / "mod").mkdir()
    (root / "pkg0" / "mod" / "a.py").write_text("a = 0\n")  # the same name, size and content
    found = rels(settled, settled.changes_since(before))
    assert sorted(found) == ["pkg0/mod/b.py", "pkg0/old/a.py", "pkg0/old/b.py"]



@pytest.fixture
def chunked(monkeypatch: pytest.MonkeyPatch, settled: WorkspaceCapture) -> WorkspaceCapture:
    """``settled``, its files too old to be read again: from the second scan on, a
    folder whose files' stats are all as before is taken whole (one chunk)."""
    monkeypatch.setattr(capture_module, "RACY_NS", 0)
    settled.snapshot()
    return settled


def test_a_folder_taken_whole_still_shows_a_file_rewritten_in_it(chunked: WorkspaceCapture) -> None:
    before = chunked.snapshot()
    assert before.files["pkg2/mod/a.py"].data == b"a = 2\n"
    target = chunked.root / "pkg2" / "mod" / "b.py"
    mtime = target.stat().st_mtime_ns
    target.write_text("b = 7\n")  # same size, mtime put back: only its ctime tells
    os.utime(target, ns=(mtime, mtime))
    found = rels(chunked, chunked.changes_since(before))
    assert list(found) == ["pkg2/mod/b.py"]
    assert found["pkg2/mod/b.py"].before == b"b = 2\n"  # type: ignore[attr-defined]
    again = chunked.snapshot()  # and the scan after that has the new content as its baseline
    assert again.files["pkg2/mod/b.py"].data == b"b = 7\n" and chunked.changes_since(again) == []


def test_a_file_swapped_for_one_of_the_same_size_and_times_is_caught(chunked: WorkspaceCapture) -> None:
    before = chunked.snapshot()
    target = chunked.root / "pkg0" / "mod" / "a.py"
    info = target.stat()
    swap = target.with_name("swap.tmp")
    swap.write_text("a = 5\n")
    os.utime(swap, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(swap, target)  # another inode under the old name, its folder's listing unchanged in size
    found = rels(chunked, chunked.changes_since(before))
    assert list(found) == ["pkg0/mod/a.py"]
    assert found["pkg0/mod/a.py"].before == b"a = 0\n"  # type: ignore[attr-defined]


def test_files_beyond_the_bounds_are_not_taken_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Over ``max_total`` a file is not kept, also on the scans that take folders whole;
    over ``max_files`` the scan still stops at the same file."""
    monkeypatch.setattr(scanwalk, "RACY_NS", 0)
    monkeypatch.setattr(capture_module, "RACY_NS", 0)
    for n in range(4):
        (tmp_path / f"f{n}.txt").write_text(f"{n}" * 10)
    time.sleep(0.05)
    small = WorkspaceCapture(tmp_path, max_total=25, max_files=3)
    for _ in range(3):
        snap = small.snapshot()
        assert sorted(snap.files) == ["f0.txt", "f1.txt", "f2.txt"] and not snap.complete
        assert [snap.files[f"f{n}.txt"].data is not None for n in range(3)] == [True, True, False]
    (tmp_path / "f2.txt").write_text("changed!!!")
    found = rels(small, small.changes_since(snap))
    assert list(found) == ["f2.txt"] and not found["f2.txt"].kept  # type: ignore[attr-defined]
