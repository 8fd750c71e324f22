"""Small HTML tables, shared by the report and the results' ``_repr_html_`` (notebooks).

Every value is escaped; a number that is undefined (``None``) shows as an em dash.
"""

from __future__ import annotations

import html

__all__ = ["cell", "number", "row", "table"]


def number(value, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals, or an em dash when it is undefined."""
    return "—" if value is None else f"{value:.{digits}f}"


def cell(value, identifier: str | None = None, *, text: bool = False) -> str:
    """A table cell; ``identifier`` gives it a stable ``id``, ``text`` aligns it left."""
    attributes = (f' id="{identifier}"' if identifier else "") + (' class="text"' if text else "")
    return f"<td{attributes}>{html.escape(str(value))}</td>"


def row(*cells: str, flagged: bool = False) -> str:
    return ('<tr class="flagged">' if flagged else "<tr>") + "".join(cells) + "</tr>"


def table(header: list[str], rows: list[str]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
