"""An MCP tool's answer without the secret values this run knows (findings V3, X3).

A server is handed its keys in its settings (``env``, ``headers``, a URL's token) and
often says them back: a debug or ``get-env`` tool, an "invalid key sk-…" error, a
config dump, a request's ``Authorization: Basic base64(user:token)`` echoed. ``read_file``
and ``grep`` show the same keys as ``[REDACTED]``; an MCP result went to the model, the
provider's logs, the session file and the editor as the server wrote it. Every result
and error of every server passes here before anything sees it, and the values the one
secrets policy knows (:func:`shell.permissions.sandboxenv.known_secret_values`: the
environment's secret variables, the config's provider and MCP keys, an editor's
servers' env, a trusted ``.mcp.json``'s, each also URL-encoded) are replaced by
:class:`shell.core.secrets.Secrets`, the one redactor.

Read as the provider gets it (finding X3): text blocks joined (OpenAI's API joins a
message's text parts with nothing between, so a key cut over two blocks arrives whole),
text blobs (``text/*`` resources) decoded, structured content's strings joined, and in
every spelling the egress check reads (:func:`shell.core.secrets.secret_going_out`:
base64, hex, reversed …). A value written as it is becomes ``[REDACTED]``; a line
that holds one in another spelling is withheld whole (its spelling cannot be cut out
letter by letter). A note says how many, so the model does not retry for a value it
cannot have. Shapes alone (a token the run does not know) are not redacted here: a
server's answer is the user's data (a repository's test fixture, a JWT being debugged);
the session file still redacts them by shape.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.secrets import REDACTED, TOO_LONG, Secrets, secret_going_out
from shell.core.secretspellings import OWN_KEYS, decoded_lines, withheld
from shell.core.textsafety import map_strings
from shell.permissions.sandboxenv import known_secret_values


def _known() -> Secrets:
    """The run's known secret values, as one matcher (compiled once per set of values)."""
    return Secrets(known_secret_values(), patterns=False)


def redaction_note(count: int) -> str:
    """What the model reads after a result that held ``count`` known values."""
    n = f"{count} value{'s' if count != 1 else ''}"
    return (f"[agent-shell: {n} of this run's own keys (the environment's or the config's, an MCP "
            "server's env or headers) were redacted from this result]")


def _spelled(text: str, known: Secrets) -> str | None:
    """How a known value is hidden in ``text`` (``base64-encoded``), or ``None``. A text
    too long to read is no finding here: an answer is capped well below it."""
    found = secret_going_out(text, known)
    return None if found is None or found[0] == TOO_LONG else found[0]


class _Redaction:
    """One result's redaction: how many values it took out."""

    def __init__(self, known: Secrets) -> None:
        self.known = known
        self.found = 0

    def text(self, text: str) -> str:
        """``text`` with known values as written redacted, and its lines that hold one
        in another spelling withheld (the whole text, when no one line holds it:
        :func:`shell.core.secretspellings.decoded_lines`, also for hidden files' values)."""
        if hits := self.known.matches(text):
            self.found += len(hits)
            text = self.known.text(text)
        text, spelled = decoded_lines(text, self.known, OWN_KEYS)
        self.found += len(spelled)
        return text

    def across(self, texts: list[str]) -> list[str]:
        """``texts`` (one message's text blocks) read joined as the provider may join
        them: a value cut over two of them is redacted in each, and one spelled
        otherwise over them withholds them all."""
        joined = "".join(texts)
        if len(texts) < 2 or _spelled(joined, self.known) is None:
            return texts
        spans = self._spans(joined)
        if not spans:  # spelled otherwise, over blocks: none can be cut letter by letter
            self.found += 1
            return [withheld("cut over the answer's parts")] + [""] * (len(texts) - 1)
        out, start = [], 0
        for text in texts:
            end = start + len(text)
            inside = [(max(a, start) - start, min(b, end) - start) for a, b in spans if a < end and b > start]
            for a, b in reversed(inside):
                text = text[:a] + REDACTED + text[b:]
            out.append(text)
            start = end
        self.found += len(spans)
        return out

    def _spans(self, joined: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        for value in self.known.values:
            at = joined.find(value)
            while at >= 0:
                if not any(a <= at < b for a, b in spans):
                    spans.append((at, at + len(value)))
                at = joined.find(value, at + len(value))
        return sorted(spans)

    def data(self, block: DataBlock) -> DataBlock | TextBlock:
        """A text blob read as its text: kept when it holds no known value, else its
        redacted text (a blob is the model's to read, as a resource's ``text`` is)."""
        if not block.media_type.lower().startswith(("text/", "application/json", "application/xml")):
            return block
        text = block.data.decode("utf-8", "replace")
        redacted = self.text(text)
        return block if redacted == text else TextBlock(redacted)

    def details(self, details: dict[str, Any]) -> dict[str, Any]:
        """``details`` with known values redacted in every string, and its structured
        content withheld when its strings joined hold one (``{"a": half, "b": half}``)."""
        before = self.found
        out = map_strings(details, self.text)
        structured = out.get("structured") if isinstance(out, dict) else None
        if structured is not None and self.found == before:
            leaves: list[str] = []

            def gather(leaf: str) -> str:
                leaves.append(leaf)
                return leaf

            map_strings(structured, gather)
            if self.across(leaves) != leaves:
                out = {**out, "structured": withheld("cut over its structured content")}
        return out if isinstance(out, dict) else details


def without_known_secrets(result: ToolResult, secrets: Secrets | None = None) -> ToolResult:
    """``result`` with every known secret value in its text, its text blocks, its text
    blobs and its details (structured content) redacted, in any spelling the egress
    check reads, and a note saying how many; the same result when it holds none.
    Images and audio pass as they are."""
    known = secrets if secrets is not None else _known()
    if not known.values:
        return result
    redaction = _Redaction(known)
    content: str | tuple[TextBlock | DataBlock, ...]
    if isinstance(result.content, str):
        content = redaction.text(result.content)
    else:
        blocks = [redaction.data(b) if isinstance(b, DataBlock) else TextBlock(redaction.text(b.text))
                  for b in result.content]
        where = [i for i, b in enumerate(blocks) if isinstance(b, TextBlock)]
        joined = redaction.across([b.text for b in blocks if isinstance(b, TextBlock)])
        for i, text in zip(where, joined, strict=True):
            blocks[i] = TextBlock(text)
        content = tuple(blocks)
    details = redaction.details(result.details) if result.details is not None else None
    if not redaction.found and details == result.details:
        return result
    note = redaction_note(max(redaction.found, 1))
    content = f"{content}\n{note}" if isinstance(content, str) else (*content, TextBlock(note))
    return replace(result, content=content, details=details)


def listing_without_known_secrets(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A server's tools with known values redacted from what goes to the provider with
    every request: each tool's description and title and its ``inputSchema``'s strings
    (a parameter's description, an example, a default). Run it in a thread."""
    known = _known()
    if not known.values:
        return tools
    out: list[dict[str, Any]] = []
    for info in tools:
        redaction = _Redaction(known)
        told = {key: redaction.text(text) for key in ("description", "title")
                if isinstance(text := info.get(key), str)}
        if info.get("inputSchema") is not None:
            told["inputSchema"] = map_strings(info["inputSchema"], redaction.text)
        out.append({**info, **told} if redaction.found else info)
    return out


__all__ = ["listing_without_known_secrets", "redaction_note", "withheld",
           "without_known_secrets"]
