"""Small HTML tables, shared by the report and the results' ``_repr_html_`` (notebooks).

Every value is escaped; a number that is undefined (``None``) shows as an em dash.
"""

from __future__ import annotations

import html
import math
import re
from typing import NamedTuple

from ._api import p_value_text

__all__ = ["ChannelRow", "cell", "channel_table", "checks_table", "number", "row", "table"]


def _undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals, or an em dash when it is undefined (None or NaN)."""
    return "—" if _undefined(value) else f"{value:.{digits}f}"


def significant(value, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits, never in scientific notation (``1380``,
    ``36.9``, ``0.497``), or an em dash when it is undefined: one style for a table's
    statistics, whatever their scale."""
    if _undefined(value):
        return "—"
    if value == 0 or abs(value) >= 10 ** (digits - 1):
        return f"{value:.0f}"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    return f"{value:.{decimals}f}"


def interval(low, high, digits: int = 3) -> str:
    """``[low, high]`` by :func:`significant`, or an em dash when undefined."""
    if _undefined(low) or _undefined(high):
        return "—"
    return f"[{significant(low, digits)}, {significant(high, digits)}]"


def cell(value, identifier: str | None = None, *, text: bool = False, nowrap: bool = False) -> str:
    """A table cell; ``identifier`` gives it a stable ``id``, ``text`` aligns it left,
    ``nowrap`` keeps it on one line (an interval: a narrow notebook column broke every one
    after its comma).

    An identifier holds annotator names, which are the user's column headers: whitespace
    becomes ``_`` (an ``id`` has none) and quotes and brackets are escaped, so that no name
    can end the attribute and write markup into the report."""
    if identifier:
        identifier = html.escape(re.sub(r"\s", "_", identifier), quote=True)
    attributes = (
        (f' id="{identifier}"' if identifier else "")
        + (' class="text"' if text else "")
        + (' style="white-space: nowrap"' if nowrap else "")
    )
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
    flagged = sum(bool(check.flag) for check in rows)
    lines = "".join(f"<li>{html.escape(line)}</li>" for line in verdicts)
    shown, note = _readable(rows)
    body = [
        row(
            cell(check.check),
            # a model row's number (degrees of freedom, the smallest gap's quantile) is said
            # in its note
            cell(
                f"{check.subject}: {check.note}" if check.check == "model" else check.subject,
                text=True,
            ),
            cell(significant(check.observed)),
            cell(significant(check.expected)),
            cell(interval(check.lower, check.upper), nowrap=True),
            cell(p_value_text(check.p_value)),
            cell("yes" if check.flag else ""),
            flagged=bool(check.flag),
        )
        for check in shown
    ]
    header = ["check", "subject", "observed", "expected", "replicated interval", "p-value", "flag"]
    return "\n".join(
        [
            f'<p>In plain words (<span id="checks-flagged">{flagged}</span> rows flagged):</p>',
            f'<ul id="verdicts">{lines}</ul>',
            *([f'<p class="note" id="checks-shown">{html.escape(note)}</p>'] if note else []),
            table(header, body),
        ]
    )


#: Most rows a checks table shows; a crowd's has one per response pattern and per pair
#: (thousands), which the full table (``ModelChecks.table``, summary.json) keeps.
MAX_CHECK_ROWS = 100
#: Checks with a row per pattern or per pair: their unflagged rows go first when cut.
PER_SUBJECT = ("pattern", "pairwise_agreement")


def _readable(rows: list) -> tuple[list, str]:
    """At most :data:`MAX_CHECK_ROWS` rows, in their order: every row of the other checks and
    the flagged rows first; and the note saying what was left out (empty when nothing was)."""
    if len(rows) <= MAX_CHECK_ROWS:
        return rows, ""
    kept = [check for check in rows if check.check not in PER_SUBJECT or check.flag]
    kept = kept[:MAX_CHECK_ROWS]
    return kept, (
        f"{len(kept)} of {len(rows)} rows shown: the unflagged pattern and pair rows are left "
        "out here (the full table, ModelChecks.table or summary.json, holds every row)"
    )


class ChannelRow(NamedTuple):
    """One parameter of a channel fit: an annotator's ``a`` or ``b``, or a class proportion."""

    subject: str
    parameter: str
    em: float | None
    mean: float
    interval: tuple[float, float]
    r_hat: float | None
    ess_bulk: float | None
    #: Gives the cells stable ids (``{key}-em``, ``{key}-posterior``, ``{key}-interval``).
    key: str | None = None


def _identifier(key: str | None, suffix: str) -> str | None:
    return None if key is None else f"{key}-{suffix}"


def channel_table(rows, level: float) -> str:
    """The channels' posterior (and EM) estimates, a row per parameter; the EM column only when
    some row has an EM estimate (a posterior alone would show a column of dashes)."""
    with_em = any(entry.em is not None for entry in rows)
    body = []
    for entry in rows:
        low, high = entry.interval
        em = [cell(number(entry.em), _identifier(entry.key, "em"))] if with_em else []
        body.append(
            row(
                cell(entry.subject),
                cell(entry.parameter, text=True),
                *em,
                cell(number(entry.mean), _identifier(entry.key, "posterior")),
                cell(f"[{low:.4f}, {high:.4f}]", _identifier(entry.key, "interval"), nowrap=True),
                cell(number(entry.r_hat, 3)),
                cell(number(entry.ess_bulk, 0)),
            )
        )
    header = ["annotator", "parameter", *(["EM"] if with_em else []), "posterior mean"]
    return table([*header, f"{level:.0%} interval", "R-hat", "bulk ESS"], body)
