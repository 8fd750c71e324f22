"""Small HTML tables, shared by the report and the results' ``_repr_html_`` (notebooks).

Every value is escaped; a number that is undefined (``None``) shows as an em dash.
"""

from __future__ import annotations

import html
import math

__all__ = ["cell", "checks_table", "number", "row", "table"]


def _undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals, or an em dash when it is undefined (None or NaN)."""
    return "—" if _undefined(value) else f"{value:.{digits}f}"


def cell(value, identifier: str | None = None, *, text: bool = False) -> str:
    """A table cell; ``identifier`` gives it a stable ``id``, ``text`` aligns it left."""
    attributes = (f' id="{identifier}"' if identifier else "") + (' class="text"' if text else "")
    return f"<td{attributes}>{html.escape(str(value))}</td>"


def row(*cells: str, flagged: bool = False) -> str:
    return ('<tr class="flagged">' if flagged else "<tr>") + "".join(cells) + "</tr>"


def table(header: list[str], rows: list[str]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def checks_table(verdicts, rows) -> str:
    """Model checks: the verdicts in plain words, then the table with its flagged rows marked.

    ``rows`` are objects with the attributes ``check``, ``subject``, ``observed``,
    ``expected``, ``lower``, ``upper``, ``p_value`` and ``flag`` (the columns of
    :func:`bayescal.check_model`'s table)."""
    rows = list(rows)
    lines = "".join(f"<li>{html.escape(line)}</li>" for line in verdicts)
    body = [
        row(
            cell(check.check),
            cell(check.subject, text=True),
            cell(number(check.observed, 3)),
            cell(number(check.expected, 3)),
            cell("—" if _undefined(check.lower) else f"[{check.lower:.3g}, {check.upper:.3g}]"),
            cell(number(check.p_value, 3)),
            cell("yes" if check.flag else ""),
            flagged=bool(check.flag),
        )
        for check in rows
    ]
    flagged = sum(bool(check.flag) for check in rows)
    header = ["check", "subject", "observed", "expected", "replicated interval", "p-value", "flag"]
    return "\n".join(
        [
            f'<p>In plain words (<span id="checks-flagged">{flagged}</span> rows flagged):</p>',
            f'<ul id="verdicts">{lines}</ul>',
            table(header, body),
        ]
    )
