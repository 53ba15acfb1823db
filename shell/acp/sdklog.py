"""The ACP SDK's log records, said as one clear line where the SDK dumps a traceback.

A client may send any notification; one this agent does not know (an editor's
own extension, a newer protocol's message) needs no answer and changes nothing,
but the SDK logs it as "Unhandled error" with a traceback of its router, which
reads like a crash of agent-shell in the editor's log pane."""

from __future__ import annotations

import logging

from acp import RequestError

METHOD_NOT_FOUND = -32601
"""JSON-RPC's code for a method the receiver does not have."""


class UnknownNotificationLine(logging.Filter):
    """Rewrites the SDK's record of an unknown notification as one warning line
    (the method name is the client's text: the formatter sanitises it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if (isinstance(exc, RequestError) and exc.code == METHOD_NOT_FOUND
                and str(record.msg).startswith("Unhandled error while handling notification")):
            method = exc.data.get("method", "") if isinstance(exc.data, dict) else ""
            record.msg = ("ignored a notification this agent does not know: %s (a notification "
                          "needs no answer; nothing was changed)")
            record.args = (str(method),)
            record.exc_info = record.exc_text = None
        return True


__all__ = ["UnknownNotificationLine"]
