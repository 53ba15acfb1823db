"""The ``@`` picker's index: what it holds (gitignore honoured, nothing outside) and
what a search finds, in which order."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from shell.context.files import FileIndex


def is_subsequence(query: str, text: str) -> bool:
    it = iter(text)
    return all(c in it for c in query)


def built(root: Path) -> FileIndex:
    index = FileIndex(root)
    index.start()
    assert index.wait(30)
    return index


def test_the_index_honours_gitignore_and_lists_folders(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    for rel in ("src/app.py", "src/ui/button.py", "build/out.js", "debug.log", "README.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)
    index = built(tmp_path)
    paths = {m.path for m in index.search("", limit=100)}
    assert {"src/", "src/ui/", "src/app.py", "src/ui/button.py", "README.md", ".gitignore"} <= paths
    assert not any(p.startswith(("build", "link")) or p.endswith(".log") for p in paths)
    assert index.search("secret") == []


def test_the_picker_never_offers_a_secret_file_or_a_link_out(tmp_path: Path) -> None:
    """``@no`` listed ``notes.md -> ~/.ssh/id_ed25519``; Tab inserted it and Enter said
    "Not sent: outside the workspace". What attaching refuses, or what usually holds
    secrets, is not offered (typing ``@.env`` in full still attaches it)."""
    root, home = tmp_path / "ws", tmp_path / "home"
    (root / "src").mkdir(parents=True)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("KEY")
    (home / "todo.txt").write_text("t")
    for rel in ("src/app.py", ".env", "src/.env.local", "deploy/server.pem", "notes-real.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (root / "notes.md").symlink_to(home / ".ssh" / "id_ed25519")  # out, to a key
    (root / "todo.md").symlink_to(home / "todo.txt")  # out: attaching refuses it
    (root / "readme.txt").symlink_to(root / ".env")  # a harmless name for a secret inside
    (root / "app-link.py").symlink_to(root / "src" / "app.py")  # inside, harmless: offered
    paths = {m.path for m in built(root).search("", limit=100)}
    assert {"src/app.py", "notes-real.md", "app-link.py"} <= paths
    for refused in (".env", "src/.env.local", "deploy/server.pem", "notes.md", "todo.md", "readme.txt"):
        assert refused not in paths


def test_ranking_name_start_then_name_then_path_then_fuzzy(tmp_path: Path) -> None:
    names = ["lib/app.py", "lib/webapp.py", "app/main.py", "docs/a_p_p.md", "a/p/p.txt", "deep/a/b/c/app.py"]
    index = FileIndex(tmp_path, walker=lambda root: iter(names))
    index.start()
    index.wait(10)
    found = [m.path for m in index.search("app", limit=20)]
    assert found[:3] == ["app/", "lib/app.py", "deep/a/b/c/app.py"]  # the name starts with it, shortest first
    assert found.index("lib/webapp.py") < found.index("app/main.py") < found.index("docs/a_p_p.md")
    assert found[-1] == "a/p/p.txt"  # only across the path
    assert [m.path for m in index.search("lapp")] == ["lib/app.py", "lib/webapp.py"]  # across the path
    assert [m.path for m in index.search("@LIB/APP")] == ["lib/app.py"]  # a path typed out


def test_hostile_names_are_just_names(tmp_path: Path) -> None:
    long = "a" * 250
    names = [f"{long}/{long}/{long}.txt", "x/[].txt", "y/\\^-$.txt", "z/(.*)+.py"]
    index = FileIndex(tmp_path, walker=lambda root: iter(names))
    index.start()
    index.wait(10)
    assert index.search("a" * 40 + "b") == []  # would backtrack for hours on a naive pattern
    assert [m.path for m in index.search("[]")] == ["x/[].txt"]
    assert [m.path for m in index.search("\\^-$")] == ["y/\\^-$.txt"]
    assert [m.path for m in index.search("(.*)+")] == ["z/(.*)+.py"]


def test_a_partial_index_answers_and_the_cap_is_said(tmp_path: Path) -> None:
    names = [f"d{i // 10}/f{i}.py" for i in range(1000)]
    index = FileIndex(tmp_path, walker=lambda root: iter(names), max_entries=300)
    index.start()
    index.wait(10)
    assert index.truncated and index.count == 300


def test_an_unreadable_root_is_an_error_not_a_crash(tmp_path: Path) -> None:
    def broken(root: Path) -> list[str]:
        raise PermissionError("no entry")

    index = FileIndex(tmp_path, walker=broken)
    index.start()
    index.wait(10)
    assert index.done and "no entry" in index.error and index.search("x") == []


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(st.text("abc/._", min_size=1, max_size=12).filter(lambda s: s.strip("/")), max_size=40),
    query=st.text("abc._", min_size=1, max_size=4),
)
def test_search_finds_exactly_the_paths_holding_the_query_in_order(names: list[str], query: str) -> None:
    clean = sorted({"/".join(p for p in n.split("/") if p) for n in names} - {""})
    index = FileIndex(Path(os.sep), walker=lambda root: iter(clean))
    index._build()
    everything = {m.path for m in index.search("", limit=10_000)}
    expected = {p for p in everything if is_subsequence(query, p.lower())}
    assert {m.path for m in index.search(query, limit=10_000)} == expected


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(st.text("abc/._", min_size=1, max_size=12).filter(lambda s: s.strip("/")), max_size=40),
    typed=st.text("abc._/", min_size=1, max_size=6),
)
def test_typing_on_finds_what_a_fresh_search_finds(names: list[str], typed: str) -> None:
    clean = sorted({"/".join(p for p in n.split("/") if p) for n in names} - {""})
    typing = FileIndex(Path(os.sep), walker=lambda root: iter(clean))
    typing._build()
    for end in range(1, len(typed) + 1):
        fresh = FileIndex(Path(os.sep), walker=lambda root: iter(clean))
        fresh._build()
        query = typed[:end]
        assert typing.search(query, limit=10_000) == fresh.search(query, limit=10_000)
