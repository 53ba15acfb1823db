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
