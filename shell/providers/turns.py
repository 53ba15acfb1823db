"""User messages in a row are sent as one user turn.

Why: the history can hold two user messages back to back. A reply that failed
before it said anything keeps no assistant message (there is nothing to keep); the
user's next message follows their last. (A reply cancelled before its first word
takes its message back out of the history instead, ``Reply.withdraw_unanswered``:
the user withdrew it, and merged it was read as part of their next request.)
OpenAI's API takes two in a row, but many chat templates a local server applies do
not: Mistral's, Gemma's and Llama 2's raise "Conversation roles must alternate
user/assistant/...", and llama.cpp answers HTTP 500 to that request and to every
later one, so one failure at the wrong moment left the session unusable until
/clear. Merged, the model sees what the user said, in order, once.
Anthropic's provider merges all same-role neighbours itself (its API requires it).
"""

from __future__ import annotations

from typing import Any

SEPARATOR = "\n\n"
"""Between the texts of two merged user messages: a paragraph break, as if typed so."""


def join_user_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` (chat-completions or Ollama dicts) with each run of plain user
    messages merged into its first: text joined by :data:`SEPARATOR`, content parts
    and Ollama ``images`` concatenated. Other roles and keys are left as they are."""
    out: list[dict[str, Any]] = []
    for message in messages:
        last = out[-1] if out else None
        if last is not None and _plain_user(last) and _plain_user(message):
            out[-1] = _merged(last, message)
        else:
            out.append(message)
    return out


def _plain_user(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and set(message) <= {"role", "content", "images"}


def _merged(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    a, b = first.get("content", ""), second.get("content", "")
    merged: dict[str, Any] = {"role": "user"}
    if isinstance(a, str) and isinstance(b, str):
        merged["content"] = a + SEPARATOR + b if a and b else a or b
    else:
        merged["content"] = [*_parts(a), {"type": "text", "text": SEPARATOR}, *_parts(b)]
    images = [*first.get("images", ()), *second.get("images", ())]
    if images:
        merged["images"] = images
    return merged


def _parts(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)
