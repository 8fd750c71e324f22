"""The verdict a report opens with: one sentence in plain words, from the calibration test's
p-value and the reliability band.

The test says *whether* the predictor is miscalibrated (:func:`bayescal.calibration_test`);
the band says *where*: a bin whose credible band of the corrected fraction positive lies
wholly below its mean score predicts too high there, wholly above it too low.  Too high above
a score of 0.5, or too low below it, is *over-confident* (the scores are further from 0.5 than
the truth); the reverse is *under-confident*.  Neighbouring bins of one kind read as one range.
A multi-class predictor's top-label band bins its confidence (the largest probability) against
the corrected accuracy: there a band wholly below the confidence is over-confident wherever
it lies (``confidence=True``).
"""

from __future__ import annotations

import numpy as np

from .._api import p_value_text
from ..correction.calibration_test import DETECTION_LEVEL, DETECTION_POWER

#: The test's level for the verdict's "miscalibrated": the level at which the test's
#: detectable gap is stated.
VERDICT_LEVEL = DETECTION_LEVEL


def off_diagonal_ranges(
    edges, mean_score, lower, upper, *, confidence: bool = False
) -> list[tuple[str, float, float]]:
    """``(kind, low, high)`` for every run of neighbouring bins whose band excludes their mean
    score, ``kind`` "over-confident" or "under-confident" (module docstring; with
    ``confidence`` the scores are a top label's confidence); empty bins (NaN) break a run."""
    kinds = []
    for score, low, high in zip(mean_score, lower, upper):
        if not np.isfinite(score) or not (high < score or low > score):
            kinds.append(None)
            continue
        too_high = high < score
        sure = too_high if confidence else too_high == (score >= 0.5)
        kinds.append("over-confident" if sure else "under-confident")
    ranges = []
    for position, kind in enumerate(kinds):
        if kind is None:
            continue
        if ranges and ranges[-1][0] == kind and kinds[position - 1] == kind:
            ranges[-1] = (kind, ranges[-1][1], float(edges[position + 1]))
        else:
            ranges.append((kind, float(edges[position]), float(edges[position + 1])))
    return ranges


def verdict_sentence(
    p_value: float | None,
    ranges,
    *,
    detectable_gap: float | None = None,
    n_extremes: int = 0,
    confidence: bool = False,
) -> str:
    """One sentence: "miscalibrated (calibration test p < 0.001): over-confident below 0.4 and
    above 0.7", or "no evidence of miscalibration (calibration test p = 0.41; a gap below 0.19
    between score and truth could go unseen: even with known channels the test finds one of
    that size only 80% of the time)".

    A "no evidence" says what it cannot rule out: gaps below the test's ``detectable_gap``
    (``CalibrationTest.detectable_gap``; 50 toy items, one bin: 0.19), which is computed at
    fixed channels; estimated channels, whose error widens the null, find less.  ``n_extremes``
    items scoring exactly 0 or 1 that the test left out (``CalibrationTest.n_extremes``)
    narrow it to the scores strictly between 0 and 1, and the sentence says so.  With
    ``confidence`` the ranges are of a top label's confidence, and their meaning says so."""
    if p_value is None:
        return "no calibration test (it could not be run on these data; see the warnings)"
    test = p_value_text(p_value, named="calibration test p")
    if p_value >= VERDICT_LEVEL:
        if detectable_gap is not None:  # a bound: estimated channels find less
            test += (
                f"; a gap below {detectable_gap:.2g} between score and truth could go unseen: "
                f"even with known channels the test finds one of that size only "
                f"{DETECTION_POWER:.0%} of the time"
            )
        if n_extremes:
            return (
                f"no evidence of miscalibration at scores strictly between 0 and 1 ({test}); "
                f"the {n_extremes} scores of exactly 0 or 1 were not tested (see the warnings)"
            )
        return f"no evidence of miscalibration ({test})"
    if not ranges:
        return f"miscalibrated ({test}), though no single bin's band leaves the diagonal"
    kinds = dict.fromkeys(kind for kind, _, _ in ranges)  # in order of first appearance
    meaning = CONFIDENCE_MEANING if confidence else MEANING
    scale = "at confidence " if confidence else ""
    where = [
        f"{kind} {scale}{_listed([_where(low, high) for k, low, high in ranges if k == kind])} "
        f"({meaning[kind]})"
        for kind in kinds
    ]
    return f"miscalibrated ({test}): " + "; ".join(where)


#: What each kind means, said beside it: a reader who has not met the terms follows the words.
MEANING = {
    "over-confident": "there the scores are further from 0.5 than the true rate: too sure",
    "under-confident": "there the scores are closer to 0.5 than the true rate: not sure enough",
}
#: The same for a top label's confidence against its corrected accuracy.
CONFIDENCE_MEANING = {
    "over-confident": "there the predicted class is right less often than its probability says",
    "under-confident": "there the predicted class is right more often than its probability says",
}


def _listed(parts: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _where(low: float, high: float) -> str:
    if low <= 0.0 and high >= 1.0:
        return "everywhere"
    if low <= 0.0:
        return f"below {high:.2g}"
    if high >= 1.0:
        return f"above {low:.2g}"
    return f"between {low:.2g} and {high:.2g}"
