"""The note a failed command's result gets when its output says it wanted the network:
the sandbox has none unless the call asked, and the model should know to ask.
"""

from __future__ import annotations

import re

_NO_NETWORK = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Name or service not known|"
    r"Network is unreachable|No address associated with hostname|getaddrinfo|nodename nor servname|"
    r"Failed to establish a new connection|Could not connect to|"
    r"Connection refused|network is unreachable|dial tcp|ENOTFOUND|EAI_AGAIN|ENETUNREACH",
)


def network_note(output: str) -> str:
    """What to add to a failed command's result when its output says it wanted the
    network (the sandbox has none unless the call asked): empty otherwise."""
    if not _NO_NETWORK.search(output):
        return ""
    return (
        "[the sandbox has no network access: this command could not reach the network. If it "
        "needs it, call run_shell again with network=true; the user will be asked to allow it.]"
    )
