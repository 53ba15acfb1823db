"""Hosts under which anyone can own a name: a wildcard rule on one is a grant to strangers.

``allow fetch_url(domain:*.github.io)`` reads as "GitHub's pages", but every GitHub
user owns ``<name>.github.io``: a prompt-injected model sends what it read to
``attacker.github.io`` unasked (finding K12). The rule stays the user's choice; where
it is made (``--allow``, the config, "always" in a question) it is said plainly.
"""

from __future__ import annotations

from .rules import Rule

SHARED_SUFFIXES = (
    "github.io", "githubusercontent.com", "gitlab.io", "bitbucket.io", "readthedocs.io", "readthedocs.org",
    "vercel.app", "now.sh", "pages.dev", "workers.dev", "netlify.app", "netlify.com", "herokuapp.com",
    "s3.amazonaws.com", "amazonaws.com", "cloudfront.net", "azurewebsites.net", "blob.core.windows.net",
    "web.app", "firebaseapp.com", "appspot.com", "run.app", "cloudfunctions.net", "storage.googleapis.com",
    "googleusercontent.com", "glitch.me", "repl.co", "replit.app", "onrender.com", "fly.dev", "railway.app",
    "surge.sh", "ngrok.io", "ngrok-free.app", "ngrok.app", "trycloudflare.com", "loca.lt", "deno.dev",
    "pythonanywhere.com", "wordpress.com", "blogspot.com", "substack.com", "neocities.org", "codeberg.page",
    "sourceforge.io", "hf.space", "streamlit.app", "webhook.site", "pipedream.net", "requestbin.com",
    "beeceptor.com", "pagekite.me", "duckdns.org", "no-ip.org", "azurestaticapps.net", "cloudapp.net",
)  # fmt: skip
"""Public-suffix-like hosts where names are handed to anyone who asks (hosting, tunnels,
request catchers, dynamic DNS); not a complete list, the common ones."""


def shared_host_note(rule: Rule) -> str:
    """What to tell the user about an allow rule whose wildcard host lies on a shared
    suffix (``fetch_url(domain:*.github.io)``, ``https://*.vercel.app/*``), or empty."""
    pattern = rule.pattern or ""
    if rule.effect != "allow" or "*" not in pattern:
        return ""
    host = pattern[len("domain:"):] if pattern.startswith("domain:") else pattern.partition("://")[2]
    host = host.split("/", 1)[0].strip().lower().rstrip(".")
    bare = host.lstrip("*.")
    if not host.startswith("*") or not bare:
        return ""
    suffix = next((s for s in SHARED_SUFFIXES if bare == s or bare.endswith("." + s)), "")
    if not suffix or bare != suffix:
        return ""
    return (f"The rule `allow {rule.text}` covers every name under {suffix}, and anyone can own one "
            f"(attacker.{suffix} included): what the model sends there (a URL's path and query) reaches "
            f"a stranger unasked. Name the host itself instead (domain:yourname.{suffix}).")


__all__ = ["SHARED_SUFFIXES", "shared_host_note"]
