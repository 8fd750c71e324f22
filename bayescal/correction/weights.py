"""The aggregation weight rules of corrected labels (paper §4.4, App. F.4), before
normalisation and after: shared by the corrections of :mod:`bayescal.correction.known_channels` and the
crowd push-through of :mod:`bayescal.correction.crowd`."""

from __future__ import annotations

import numpy as np

#: Aggregation weight rules (paper §4.4, App. F.4).
WEIGHT_RULES = ("iv", "equal", "gap", "squared_gap")

#: Plug-in rule of App. F.4: the estimated class proportion is clipped to this interval ...
PREVALENCE_CLIP = (1e-4, 1.0 - 1e-4)
#: ... and each annotator's corrected-noise variance is floored here before inversion.
VARIANCE_FLOOR = 1e-8


def rule_weights(a: np.ndarray, b: np.ndarray, prevalence, rule: str) -> np.ndarray:
    """Normalised weights of a rule along the last axis of invertible channels.

    ``a, b`` have shape (..., K) and ``prevalence`` broadcasts against (...): one channel set
    here, one per posterior draw in :mod:`bayescal.bayes.posterior`.
    """
    raw = raw_rule_weights(a, b, prevalence, rule)
    return raw / raw.sum(axis=-1, keepdims=True)


def raw_rule_weights(a: np.ndarray, b: np.ndarray, prevalence, rule: str) -> np.ndarray:
    """The rule's weights before normalisation: 1, ``d_j``, ``d_j^2``, or for IV the precision
    ``1 / v_j`` with ``v_j = [(1 - mu) a_j (1 - a_j) + mu b_j (1 - b_j)] / d_j^2`` (App. F.4),
    floored at :data:`VARIANCE_FLOOR`."""
    gap = b - a
    if rule == "equal":
        return np.ones_like(gap)
    if rule == "gap":
        if (gap < 0).any():
            j = int(np.argwhere(gap < 0)[0][-1])
            raise ValueError(
                f"rule 'gap' needs positively oriented channels (b > a); annotator {j} has gap "
                f"{gap[gap < 0].flat[0]:.4g}: use rule='squared_gap' or 'iv', or orient the channels"
            )
        return gap.copy()
    if rule == "squared_gap":
        return gap**2
    noise_variance = corrected_noise_variance(a, b, np.asarray(prevalence)[..., None])
    return 1.0 / np.maximum(noise_variance, VARIANCE_FLOOR)


def corrected_noise_variance(a, b, mu):
    """``v = [(1 - mu) a (1 - a) + mu b (1 - b)] / (b - a)^2``: the variance of one corrected
    label's noise ``U - Y`` where the class is positive with probability ``mu`` (App. F.4);
    the IV rule weighs by ``1 / v``, and the calibration test adds ``v`` to ``Var(Y | Z)``."""
    return ((1.0 - mu) * a * (1.0 - a) + mu * b * (1.0 - b)) / (b - a) ** 2
