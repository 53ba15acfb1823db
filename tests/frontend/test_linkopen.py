"""The one policy of what a click on a link opens (findings 15): only a plain web
address opens unasked; any other scheme, a hidden character or a look-alike host is
shown in full and asked about."""

from __future__ import annotations

import pytest

from shell.frontend.linkopen import link_target


@pytest.mark.parametrize(
    "href",
    [
        "vscode://vscode.git/clone?url=https://evil.example/r.git",
        "ssh://attacker.example/x",
        "smb://attacker.example/share",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,<script>x</script>",
        "myapp://do?thing=1",
        "mailto:a@example.com",
        "not a url",
    ],
)
def test_a_link_that_is_not_a_web_address_asks_and_says_its_scheme(href: str) -> None:
    target = link_target(href)
    assert target.asks and target.href == href
    assert target.shown == href
    assert "not a web address" in target.reasons[0]


@pytest.mark.parametrize("href", ["https://example.com/a?b=1#c", "http://example.org", "HTTPS://EXAMPLE.COM"])
def test_a_plain_web_address_opens_unasked(href: str) -> None:
    target = link_target(href)
    assert not target.asks and target.reasons == () and target.shown == href


def test_hidden_characters_in_a_web_address_are_drawn_and_asked_about() -> None:
    target = link_target("https://example.com/a\rb\u202e\u200bc")
    assert target.asks
    assert "\r" not in target.shown and "\u202e" not in target.shown and "\u200b" not in target.shown
    assert "␍" in target.shown
    assert any("invisible" in reason for reason in target.reasons)


def test_a_look_alike_host_is_shown_as_dns_sees_it() -> None:
    target = link_target("https://\u0430pple.com/login")  # a Cyrillic "a"
    assert target.asks
    assert any("xn--pple-43d.com" in reason for reason in target.reasons)


def test_a_huge_data_url_is_shown_cut_with_its_length() -> None:
    target = link_target("data:text/plain," + "a" * 5000)
    assert target.asks and len(target.shown) < 2100 and "more characters" in target.shown


def _line_mode(markdown: str) -> str:
    import io

    from rich.console import Console

    from shell.plain_reply import _safe_markdown

    console = Console(file=io.StringIO(), force_terminal=True, width=200)
    console.print(_safe_markdown()(markdown))
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def test_the_line_mode_makes_only_web_links_hyperlinks() -> None:
    """A terminal opens an OSC 8 hyperlink at a Ctrl+click, with no question: only a web
    address is one; ``vscode://…`` stays text that shows where it goes."""
    drawn = _line_mode("[the docs](vscode://vscode.git/clone?url=x) and <ssh://host/x> and [ok](https://ok.example/p)")
    assert "\x1b]8;id=" in drawn and ";https://ok.example/p\x1b\\" in drawn
    assert "vscode://" in drawn and "ssh://host/x" in drawn
    assert drawn.count("\x1b]8;id=") == 1


@pytest.mark.parametrize("markdown", ["[apple](https://\u0430pple.com/login)", "<https://\u0430pple.com/login>",
                                      "[https://\u0430pple.com/login](https://\u0430pple.com/login)"])
def test_a_markdown_links_look_alike_host_asks_though_markdown_it_wrote_punycode(markdown: str) -> None:
    """Finding X4: markdown-it hands over ``xn--pple-43d.com``, all ASCII."""
    from shell.frontend.markdown import markdown_parser

    link = next(t for t in markdown_parser().parseInline(markdown)[0].children or [] if t.type == "link_open")
    target = link_target(str(link.attrs["href"]))
    assert target.asks
    assert any("\u0430pple.com" in reason and "xn--pple-43d.com" in reason for reason in target.reasons)


@pytest.mark.parametrize("host", ["xn--zz.com", "www.xn--80ak6aa92e.com"])
def test_a_punycode_host_asks_whatever_it_decodes_to(host: str) -> None:
    assert link_target(f"https://{host}/").asks


def test_an_ascii_host_with_xn_nowhere_at_a_labels_start_opens_unasked() -> None:
    assert not link_target("https://fox-xn--a.example/").asks


def test_the_line_mode_shows_a_look_alikes_dns_form_and_makes_it_no_hyperlink() -> None:
    drawn = _line_mode("see <https://\u0430pple.com/> and [https://\u0430pple.com/](https://\u0430pple.com/)")
    assert "\x1b]8;id=" not in drawn
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", drawn)
    assert text.count("https://\u0430pple.com/ (https://xn--pple-43d.com/)") == 2
