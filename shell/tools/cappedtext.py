"""A command's output kept under a cap: its head and its tail, and how much was left out
between them (the start says what ran, the end how it ended)."""

from __future__ import annotations


class CappedText:
    """Keeps the first and the last ``cap // 2`` characters of a stream of text."""

    def __init__(self, cap: int) -> None:
        self.half = cap // 2
        self.head = ""
        self.tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        room = self.half - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail = (self.tail + text)[-self.half :]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def render(self) -> str:
        if not self.truncated:
            return self.head + self.tail
        return (
            f"{self.head}\n[... output truncated: {self.total} characters in total, over the "
            f"{2 * self.half} character cap; showing the first and last {self.half} ...]\n{self.tail}"
        )
