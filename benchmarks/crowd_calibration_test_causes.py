"""Where the sparse crowd's excess size in ``calibration_test`` comes from (issue 38 item 5).

On ``sparse_odd`` (``crowd_calibration_test_size.py``) the test with a hierarchical fit of the
same items rejected a calibrated predictor in 10.1% of seeds 0-399 at the 5% level, the true
channels in 7.5%.  The test draws the channels from their posterior under H0 by a Gibbs run
started at a draw of the fit, and chooses the items tested by the IV precision at the fit's
posterior mean.  Each replicate here fits once (2 chains x (500 + 500)) and runs the same test
five ways, each Gibbs run from the same random stream:

- ``start_fit_select_fit_50``: as ``calibration_test`` does (start at a draw of the fit, items
  chosen at the fit's posterior mean, 50 sweeps);
- ``start_fit_select_truth_50``, ``start_truth_select_fit_50``, ``start_truth_select_truth_50``:
  the start, the choice of items or both at the true channels instead;
- ``start_fit_select_fit_500``: 500 sweeps instead of 50;

and with the true channels (``known``, chi-square).  The table gives each size and, paired
with the known channels, the replicates both reject, only this one, only the known channels.

    XLA_FLAGS=--xla_force_host_platform_device_count=1 .venv/bin/python \
        benchmarks/crowd_calibration_test_causes.py --replicates 400 --n 1000 --csv /tmp/causes.csv
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from crowd_coverage import labelled_workers, simulate_design
from replicate_grid import grid_arguments, run_grid

LEVEL = 0.05
N_BINS, MIN_BIN_ITEMS = 10, 30
#: (start, items chosen at, sweeps) of each variant (module docstring)
VARIANTS = [
    ("fit", "fit", 50),
    ("fit", "truth", 50),
    ("truth", "fit", 50),
    ("truth", "truth", 50),
    ("fit", "fit", 500),
]


def replicate(design: str, n: int, seed: int) -> dict:
    import bayescal as bc
    from bayescal.correction.calibration_test import CalibrationLayout
    from bayescal.correction.h0_posterior import h0_posterior_draw

    crowd = simulate_design(design, seed, n=n, condition="calibrated")
    data, seen = labelled_workers(crowd)
    names = data.annotator_names
    truth = bc.Channels(
        crowd.channels.a[seen], crowd.channels.b[seen], adversarial=True, names=names
    )
    sampler = bc.SamplerSettings(num_chains=2, num_warmup=500, num_samples=500, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # every fit warns (short chains): counted elsewhere
        fit = bc.fit_bayes(data, model="hierarchical_dawid_skene", sampler=sampler, progress=False)
    draws = fit.draws()
    chosen = int(np.random.default_rng(seed).integers(draws.a.shape[0]))
    starts = {"fit": (draws.a[chosen], draws.b[chosen]), "truth": (truth.a, truth.b)}
    chosen_at = {
        "fit": bc.Channels(draws.a.mean(0), draws.b.mean(0), adversarial=True, names=names),
        "truth": truth,
    }
    responses = data.responses()
    shared = np.isin(names, fit.summed_out)
    row = {"design": design, "seed": seed}
    for start, select, sweeps in VARIANTS:
        drawn = h0_posterior_draw(
            data.scores, responses.item, responses.annotator, responses.label,
            *starts[start], fit.priors.as_array(), sweeps=sweeps,
            rng=np.random.default_rng(seed + 7), shared=shared, annotator_names=names,
        )  # fmt: skip
        channels = bc.Channels(drawn.a, drawn.b, adversarial=True, names=names)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # items left out: said by every test
                layout = CalibrationLayout.of(
                    data, channels, N_BINS, "uniform", MIN_BIN_ITEMS,
                    selected_by=chosen_at[select], responses=responses, untested_extremes=True,
                )  # fmt: skip
            p_value = layout.result(how="").p_value
        except ValueError:  # no item informative enough
            p_value = float("nan")
        row[f"start_{start}_select_{select}_{sweeps}"] = p_value
    try:
        row["known"] = bc.calibration_test(data, truth, n_bins=N_BINS).p_value
    except ValueError:
        row["known"] = float("nan")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_arguments(parser, ["sparse_odd"], replicates=400)
    args = parser.parse_args()
    frame, seeds = run_grid(replicate, args)
    tested = frame.dropna()
    known = tested["known"] <= LEVEL
    print(f"n = {args.n}, seeds {seeds.start}-{seeds.stop - 1}, {len(tested)} tested every way\n")
    print("| test | size (SE) | both reject | only this one | only the true channels |")
    print("|---|---:|---:|---:|---:|")
    for column in [c for c in frame.columns if c.startswith("start_")] + ["known"]:
        rejects = tested[column] <= LEVEL
        size = rejects.mean()
        print(
            f"| {column} | {size:.1%} ({np.sqrt(size * (1 - size) / len(tested)):.1%}) | "
            f"{int((rejects & known).sum())} | {int((rejects & ~known).sum())} | "
            f"{int((~rejects & known).sum())} |"
        )


if __name__ == "__main__":
    main()
