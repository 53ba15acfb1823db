"""``/context`` as Markdown: a bar of the window, then a table of where the tokens go.

Plain Markdown (a code block for the bar), so the TUI, the line mode and an export
show the same thing. Every label that comes from outside (a tool's name from an
MCP server, a message's words) is made one safe line and kept out of the table's
syntax.
"""

from __future__ import annotations

from shell.core.textsafety import sanitize_line

from .accounting import CATEGORIES, CATEGORY_NAMES, Breakdown, Category
from .meter import prompt_tokens, short_count

BAR_WIDTH = 60
BAR_MARKS: dict[Category, str] = {
    "system": "S", "instructions": "I", "tools": "T", "history": "H", "tool_results": "R", "images": "P",
}
FREE_MARK = "·"
ROWS_PER_CATEGORY = 5


def bar(shares: dict[Category, int], window: int | None, width: int = BAR_WIDTH) -> str:
    """One line: each category's share of the window (of the request when no window
    is known) as its letter, the free room as dots. A part too small for one cell
    still gets one, so nothing present is invisible."""
    used = sum(shares.values())
    scale = max(window or 0, used, 1)
    cells: list[str] = []
    for category in CATEGORIES:
        tokens = shares.get(category, 0)
        if tokens <= 0:
            continue
        cells += [BAR_MARKS[category]] * max(1, round(tokens / scale * width))
    cells = cells[:width]
    if window:
        cells += [FREE_MARK] * (width - len(cells))
    return "".join(cells)


def _cell(text: str) -> str:
    return sanitize_line(text).replace("|", "\\|").replace("`", "'")


def _pct(tokens: int, whole: int) -> str:
    if whole <= 0:
        return ""
    share = tokens / whole * 100
    return f"{share:.0f}%" if share >= 1 or tokens == 0 else "<1%"


def render(result: Breakdown, *, model: str = "") -> str:
    """The whole ``/context`` answer."""
    shares = result.by_category()
    total = result.total
    window = result.window
    head = f"**Next request: about {total:,} tokens**"
    if window:
        head += f" of a {short_count(window)} window ({_pct(total, window)} full, {window - total:,} free)"
    if model:
        head += f" · `{_cell(model)}`"
    legend = " · ".join(
        f"{BAR_MARKS[c]} {CATEGORY_NAMES[c].lower()} {short_count(shares[c])}"
        for c in CATEGORIES if shares[c]
    )
    if window:
        legend += f" · {FREE_MARK} free {short_count(max(0, window - total))}"
    lines = [head, "", "```", f"[{bar(shares, window)}]", "```", "", legend, "",
             "| part | tokens | share |", "|---|---:|---:|"]
    for category in CATEGORIES:
        rows = result.rows(category)
        if not rows:
            continue
        count = f" ({len(rows)})" if category in ("tools", "history", "tool_results", "images") else ""
        lines.append(f"| **{CATEGORY_NAMES[category]}**{count} | **{shares[category]:,}** | "
                     f"{_pct(shares[category], total)} |")
        if category == "system":
            continue
        for part in rows[:ROWS_PER_CATEGORY]:  # the biggest first: what to drop first is what matters
            where = f"#{part.index} " if part.index is not None else ""
            tokens = round(part.tokens)
            lines.append(f"| ↳ {where}{_cell(part.label)} | {tokens:,} | {_pct(tokens, total)} |")
        if len(rows) > ROWS_PER_CATEGORY:
            rest = round(sum(p.tokens for p in rows[ROWS_PER_CATEGORY:]))
            lines.append(f"| ↳ {len(rows) - ROWS_PER_CATEGORY} more | {rest:,} | {_pct(rest, total)} |")
    lines.append("")
    usage = result.last_usage
    if usage is not None and prompt_tokens(usage):
        lines.append(
            f"Last request, as the provider counted it: {prompt_tokens(usage):,} prompt tokens "
            f"({usage.cache_read_tokens:,} read from the cache, {usage.cache_write_tokens:,} written to it), "
            f"{usage.output_tokens:,} output."
        )
    if result.calibrated:
        lines.append(f"Counted with an estimate calibrated against that count (x{result.factor:.2f}); "
                     "the next message and reply come on top.")
    else:
        lines.append(f"Counted with a tokenizer estimate ({result.note}).")
    if not window:
        lines.append("The model's context window is not known: set it in the config "
                     "(`[models.\"NAME\"] context_window = …`).")
    return "\n".join(lines)
