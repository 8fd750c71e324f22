"""Noise correction: corrected labels and the noise-corrected ECE (paper §2–4, App. C, F.4).

- :mod:`~bayescal.correction.known_channels` — corrected labels
  ``U_j = (A_j - a_j) / (b_j - a_j)``, their aggregation weights and NC-ECE with known
  channels; the naive soft- and majority-vote baselines.
- :mod:`~bayescal.correction.known_confusions` — the same for multi-class annotators with
  known confusion matrices: corrected one-hot labels ``(T_j^T)^-1 e_{A_j}``, their matrix
  weights, and the noise-corrected top-label and classwise ECE.
- :mod:`~bayescal.correction.estimation` — NC-ECE with channels estimated from the same
  annotations (reuse, split, cross-fit); :mod:`~bayescal.correction.class_estimation` the
  top-label and classwise NC-ECE of multi-class data, and
  :mod:`~bayescal.correction.sample_splits` the samples and folds both share;
  :mod:`~bayescal.correction.estimators` what their ``estimator=`` may be.
- :mod:`~bayescal.correction.calibration_test` — the test of calibration against the true
  label, with known or estimated channels.
- :mod:`~bayescal.correction.h0_posterior` — the channels' posterior under calibration, drawn
  for the test with a BayesFit of the same items.
- :mod:`~bayescal.correction.weights` — the aggregation weight rules (IV, equal, gap,
  squared gap).
- :mod:`~bayescal.correction.crowd` — the same corrections on a crowd's sparse responses, and
  the one rule for items with no informative label.
- :mod:`~bayescal.correction.target_draws` — per-item targets of many channel draws, a chunk
  of draws at a time.
- :mod:`~bayescal.correction.rectified` — bin means with gold items (human-verified labels):
  model-based and rectified (prediction-powered).
- :mod:`~bayescal.correction.gold_interval` — the bootstrap of gold and other items, and the
  bias-corrected NC-ECE interval it gives.
- :mod:`~bayescal.correction.rates` — the predictor's rates and the population's positive rate
  (a judge's pass rate, corrected), from corrected labels and gold.
- :mod:`~bayescal.correction.gold_plan` — how many gold labels to buy: expected interval
  widths by number of gold items.
- :mod:`~bayescal.correction.gold_selection` — which items to send to humans next, with
  recorded inclusion probabilities.
- :mod:`~bayescal.correction.folded_correction` — the folded-normal bias correction of
  NC-ECE, for posterior draws and bootstrap replicates alike.
"""

from .._api import moved_names
from .calibration_test import CalibrationTest, calibration_test
from .class_estimation import ClassNCECEResult
from .estimation import NCECEResult, nc_ece_estimate
from .gold_plan import GoldPlan, plan_gold
from .gold_selection import GoldSelection, select_for_gold
from .known_channels import (
    aggregation_weights,
    corrected_labels,
    label_posterior,
    majority_vote_ece,
    majority_vote_labels,
    noise_corrected_ece,
    soft_vote_ece,
    soft_vote_labels,
)
from .rates import CorrectedRates, corrected_rates

__all__ = [
    "CalibrationTest",
    "ClassNCECEResult",
    "CorrectedRates",
    "GoldPlan",
    "GoldSelection",
    "NCECEResult",
    "aggregation_weights",
    "calibration_test",
    "corrected_labels",
    "corrected_rates",
    "label_posterior",
    "majority_vote_ece",
    "majority_vote_labels",
    "nc_ece_estimate",
    "noise_corrected_ece",
    "plan_gold",
    "select_for_gold",
    "soft_vote_ece",
    "soft_vote_labels",
]

#: The names of the former ``bayescal.correction`` module kept in its modules.
__getattr__ = moved_names(
    "bayescal.correction", {"WEIGHT_RULES": "bayescal.correction.weights:WEIGHT_RULES"}
)
