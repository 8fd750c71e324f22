"""Every error and warning class of bayescal, in one place (all re-exported by ``bayescal``).

Errors subclass ``ValueError`` (bad or unusable input) so that ``except ValueError`` still
catches them; warnings subclass ``UserWarning`` so that one filter silences a family.
"""

from __future__ import annotations

__all__ = [
    "BinningWarning",
    "ChannelFitError",
    "ChannelWarning",
    "ConvergenceWarning",
    "DataWarning",
    "DependenceWarning",
    "IdentificationError",
    "NotFittedError",
    "PriorConflictWarning",
    "QuadratureWarning",
    "RecalibrationWarning",
    "SamplingWarning",
    "SaturatedModelWarning",
    "TableError",
    "WeakIdentificationWarning",
]


class IdentificationError(ValueError):
    """The data cannot identify the channel model (Hanada and Futami, App. D.1): one annotator,
    or two without score groups whose class proportions differ."""


class ChannelFitError(ValueError):
    """A channel fit failed: no feasible, oriented solution with every gap at least 1e-4."""


class TableError(ValueError):
    """A table bayescal cannot use; the message is one line naming the file, column and row."""


class NotFittedError(ValueError, AttributeError):
    """A recalibration map was used before ``fit`` (as scikit-learn's, it is both a
    ``ValueError`` and an ``AttributeError``)."""


class SaturatedModelWarning(UserWarning):
    """The model has as many parameters as free cells: no degrees of freedom remain to check fit."""


class WeakIdentificationWarning(UserWarning):
    """Score groups barely differ, so the grouped model is close to unidentified."""


class ConvergenceWarning(UserWarning):
    """An iterative fit stopped at its iteration limit before meeting its tolerance."""


class RecalibrationWarning(UserWarning):
    """A recalibration fit ended on the edge of its parameter box or did not converge, or was
    fitted on the labelled items only (``bayescal recalibrate`` on a table with unlabelled ones)."""


class SamplingWarning(UserWarning):
    """NUTS diagnostics failed: R-hat above 1.01, ESS below 400, or divergent transitions."""


class QuadratureWarning(UserWarning):
    """The shared-difficulty model's posterior reaches loadings its Gauss–Hermite quadrature
    does not integrate accurately for these data: the log-likelihood is off by more than
    :data:`bayescal.channels.difficulty.MAX_LIKELIHOOD_ERROR`, and the channels with it."""


class BinningWarning(UserWarning):
    """More evaluation bins than items: most bins hold one item or none, and the ECE then
    measures the noise of single items more than miscalibration; or items left out of the
    calibration test (no informative label, or a score of exactly 0 or 1 that a test with
    channels drawn under H0 cannot see)."""


class DataWarning(UserWarning):
    """The input was used after a repair its author would expect, said in one line: scores
    within float round-off of [0, 1] clipped to it, or items without any label left out; or
    as written where its author may have meant otherwise (annotator ids that differ only by
    spaces at their ends, read as two annotators)."""


class DependenceWarning(UserWarning):
    """Annotators agree more often than conditional independence given Y predicts: their
    errors may be correlated (a model with dependent pairs is proposed, never switched to)."""


class PriorConflictWarning(UserWarning):
    """The prior, not the data, decides a parameter: the estimate from the data alone (EM) lies
    outside the posterior's 99.9% interval, so NC-ECE rests on the prior there."""


class ChannelWarning(UserWarning):
    """Channels given to the correction that it cannot use as given: an uninformative annotator
    (``|b - a| < 1e-4``, weight 0) or a negatively oriented one (``b < a``) not marked
    ``adversarial=True``."""


#: What an estimator says of its own fit: odd annotators, annotators copying each other, an
#: iteration limit, a saturated or a weakly identified model.  A refit inside another
#: computation (a bootstrap replicate, a proposal's trial fit) silences these, said of the real
#: fit already, and nothing else.
FIT_WARNINGS = (
    ChannelWarning,
    DependenceWarning,
    ConvergenceWarning,
    SaturatedModelWarning,
    WeakIdentificationWarning,
)
