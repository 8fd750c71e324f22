"""The flat models under their folded prior (issue 38 item 1): an adversarial annotator's
recovery, and simulation-based calibration.

The flat models hold no annotator to ``a_j < b_j``: each draw is folded onto the population's
orientation (``bayescal.models.orientation``), and
``bayescal.studies.simulation_based_calibration`` folds its
prior draws the same way.  The test suite runs SBC under informative priors
(``false_positive=(2, 8), sensitivity=(8, 2)``), where an annotator is adversarial a priori
with probability about 0.002; here the priors are flat on the channels, where it is 0.25 to
0.35 (``Priors.adversarial_probability``), so that many simulated panels hold an adversarial
annotator and the fold is exercised.  ``prevalence=(2, 2)`` keeps the classes from vanishing.

First, the recovery target: K = 5 annotators, n = 5 000 items, one adversarial
(``a = 0.6, b = 0.3``), fitted by every flat model with the default sampler settings (4 chains
of 1 000 + 1 000): its posterior means, and the largest R-hat (the fold makes every draw's
population gap positive by construction; the chains' agreement shows none settled in another
mode).

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/sbc_folded.py --simulations 100
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings

import bayescal as bc
from bayescal.studies import simulation_based_calibration

#: model -> its layout (2 000 items; the suite's shorter studies use 1 000)
DESIGNS = {
    "dawid_skene": {"n_items": 2000, "n_annotators": 3},
    "hui_walter": {"n_items": 2000, "n_annotators": 3, "n_groups": 2},
    "hui_walter_by_group": {"n_items": 2000, "n_annotators": 3, "n_groups": 2},
    "shared_difficulty": {"n_items": 2000, "n_annotators": 4},
    "dawid_skene, a dependent pair": {
        "n_items": 2000,
        "n_annotators": 4,
        "dependent": ("a0", "a1"),
    },
}


#: The recovery design: annotator a1 is adversarial.
ADVERSARIAL = bc.Channels([0.1, 0.6, 0.2, 0.1, 0.15], [0.85, 0.3, 0.75, 0.9, 0.8])


def recovery(seed: int) -> None:
    """The adversarial annotator's channels as each flat model estimates them."""
    data = bc.simulate_annotated(5000, ADVERSARIAL, seed=seed).data
    grouped = dataclasses.replace(data, groups=bc.channels.score_groups(data.scores, n_groups=2))
    fits = {
        "dawid_skene": (data, {}),
        "hui_walter (2 score groups)": (grouped, {"model": "hui_walter"}),
        "shared_difficulty": (data, {"model": "shared_difficulty"}),
        "dawid_skene, a0 ~ a3 dependent": (data, {"dependent": [("a0", "a3")]}),
    }
    print("| model | a of a1 (0.6) | b of a1 (0.3) | max R-hat | time |")
    print("|---|---:|---:|---:|---:|")
    for name, (fitted, options) in fits.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bc.ChannelWarning)  # a1 named adversarial: expected
            fit = bc.fit_bayes(fitted, progress=False, seed=seed, **options)
        a, b, _ = fit.draws()
        print(
            f"| {name} | {a[:, 1].mean():.3f} | {b[:, 1].mean():.3f} | "
            f"{fit.diagnostics['r_hat'].max():.3f} | {time.perf_counter() - start:.0f} s |",
            flush=True,
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    arguments = parser.parse_args()
    recovery(arguments.seed)
    priors = bc.Priors(prevalence=(2.0, 2.0))
    print(
        "| model | K | P(adversarial) a priori | simulations | smallest p (Bonferroni 0.01) | "
        "passed | time |"
    )
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, layout in DESIGNS.items():
        model = name.split(",")[0]
        start = time.perf_counter()
        with warnings.catch_warnings():
            # short single chains on weakly identified panels: the ranks, not the diagnostics
            warnings.simplefilter("ignore", bc.SamplingWarning)
            result = simulation_based_calibration(
                model=model,
                n_simulations=arguments.simulations,
                priors=priors,
                seed=arguments.seed,
                progress=True,  # a bar over the simulations: a model takes up to 3 min
                **layout,
            )
        adversarial = priors.adversarial_probability(layout["n_annotators"])
        print(
            f"| {name} | {layout['n_annotators']} | {adversarial:.2f} | {arguments.simulations} | "
            f"{result.p_values.min():.4f} ({result.p_values.idxmin()}) | "
            f"{'yes' if result.passed else 'no'} | {time.perf_counter() - start:.0f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main()
