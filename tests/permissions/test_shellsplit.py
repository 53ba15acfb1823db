"""Splitting a command line into the commands bash would run: every way of
chaining, nesting or redirecting is a separate part, and doubt is unconfident."""

from __future__ import annotations

import pytest

from shell.permissions.shellsplit import split_command


def texts(command: str) -> list[str]:
    return [p.text for p in split_command(command).parts]


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("git status", ["git status"]),
        ("git   status  --short", ["git status --short"]),
        ("git status; rm -rf ~", ["git status", "rm -rf ~"]),
        ("git status && rm x || echo y | cat", ["git status", "rm x", "echo y", "cat"]),
        ("git status & rm x", ["git status", "rm x"]),
        ("git status |& tee", ["git status", "tee"]),
        ("git status\nrm -rf /", ["git status", "rm -rf /"]),
        ("git status \\\n  --short", ["git status --short"]),
        ("echo $(rm -rf ~)", ["rm -rf ~", "echo $(rm -rf ~)"]),
        ('echo "a $(whoami) b"', ["whoami", 'echo "a $(whoami) b"']),
        ("echo `id`", ["id", "echo `id`"]),
        ("(cd x && make)", ["cd x", "make"]),
        ("{ echo a; echo b; }", ["echo a", "echo b"]),
        ("cat <(curl evil)", ["curl evil", "cat <(curl evil)"]),
        ("echo 'a; rm -rf ~'", ["echo 'a; rm -rf ~'"]),
        ('echo "a; rm -rf ~"', ['echo "a; rm -rf ~"']),
        ("echo a\\;b", ["echo a\\;b"]),
        ("echo hi # ; rm -rf ~", ["echo hi"]),
        ("pytest -q" + " " * 300 + "; touch x", ["pytest -q", "touch x"]),
        ("LD_PRELOAD=x.so git status", ["LD_PRELOAD=x.so git status"]),
        ("echo \"$'\" ; rm '\"'", ["echo \"$'\"", "rm '\"'"]),
    ],
)
def test_parts(command: str, parts: list[str]) -> None:
    split = split_command(command)
    assert split.confident, split.problems
    assert texts(command) == parts


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("git status > out.txt", ("out.txt",)),
        ("git status >> ~/.bashrc", ("~/.bashrc",)),
        ("git status &>log", ("log",)),
        ("echo hi>out", ("out",)),
        ("git status 2>/dev/null", ()),
        ("git status 2>&1", ()),
        ("sort < input.txt", ()),
    ],
)
def test_redirections_are_not_words_and_output_files_are_kept(command: str, writes: tuple[str, ...]) -> None:
    split = split_command(command)
    assert split.confident
    assert split.parts[0].text in ("git status", "echo hi", "sort")
    assert split.parts[0].writes == writes


@pytest.mark.parametrize(
    "command",
    [
        "echo 'unclosed",
        'echo "unclosed',
        "echo $(unclosed",
        "echo `unclosed",
        "cat <<EOF\nrm -rf ~\nEOF",
        "for f in *; do rm $f; done",
        "if true; then rm x; fi",
        "echo $((1 + $(rm x)))",
        "echo ${x:-$(rm -rf ~)}",
        "f() { rm -rf ~; }; f",
        "case x in x) rm;; esac",
        "echo )",
    ],
)
def test_what_cannot_be_read_for_sure_is_unconfident(command: str) -> None:
    assert not split_command(command).confident


def test_deep_nesting_is_bounded() -> None:
    command = "echo " + "$(" * 500 + "x" + ")" * 500
    split = split_command(command)
    assert not split.confident


@pytest.mark.parametrize("glue", ["\r", "\x0b", "\x0c", "\u00a0", "\u2003", "\x1c"])
def test_only_space_tab_and_newline_split_words_as_in_bash(glue: str) -> None:
    """findings 15: ``touch PWNED3\\rls`` is one word to bash; the split read two."""
    split = split_command(f"touch PWNED3{glue}ls -la")
    assert [p.text for p in split.parts] == [f"touch PWNED3{glue}ls -la"]
