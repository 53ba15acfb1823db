"""Where a Markdown link goes is shown after its text (``shell.frontend.markdown``), in
both renderers: these check the part a spoof aims at, the host."""

from __future__ import annotations

import pytest

from shell.frontend.markdown import TARGET_WIDTH, markdown_parser


def shown(markdown: str) -> str:
    tokens = markdown_parser().parse(markdown)
    return "".join(child.content for token in tokens for child in (token.children or ()))


def test_a_long_user_info_cannot_push_the_host_out_of_sight() -> None:
    """``https://docs.python.org%2F…@evil.example/`` goes to evil.example; cut at its
    first 200 characters it showed only docs.python.org."""
    target = "https://docs.python.org%2F3%2F" + "library%2F" * 30 + "@evil.example/payload"
    text = shown(f"[the docs]({target})")
    assert text == "the docs (https://…@evil.example/payload)"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("https://user:pw@host.example:8080/x?y#z", "(https://…@host.example:8080/x?y#z)"),
        ("https://evil.example\\@docs.python.org/", "(https://…@docs.python.org/)"),  # \\@: an escaped @
        ("https://evil.example/", "(https://evil.example/)"),
    ],
)
def test_the_host_is_shown_as_it_will_be_reached(target: str, expected: str) -> None:
    assert shown(f"[docs]({target})").endswith(expected)


def test_a_long_path_is_cut_in_the_middle_and_the_host_kept() -> None:
    target = "https://a.example/" + "p" * 500 + "/end.html"
    text = shown(f"[x]({target})")
    inside = text[len("x (") : -1]
    assert len(inside) == TARGET_WIDTH and "…" in inside
    assert inside.startswith("https://a.example/ppp") and inside.endswith("/end.html")


def test_a_long_host_keeps_its_own_name() -> None:
    target = "https://" + "sub." * 45 + "evil.example/"
    inside = shown(f"[x]({target})")[len("x (") : -1]
    assert inside.startswith("https://…") and inside.endswith("evil.example/") and len(inside) <= TARGET_WIDTH
