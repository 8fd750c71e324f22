"""The split-sample recalibration simulation (App. G.2 spirit) behind the test
``test_corrected_recalibration_beats_base_and_naive_in_simulation``, as a table.

Run: ``.venv/bin/python benchmarks/recalibration_simulation.py`` (prints markdown for
benchmarks/RESULTS.md).
"""

from bayescal.studies import recalibration_simulation

REPLICATES = 40


def main() -> None:
    table = recalibration_simulation(replicates=REPLICATES, n_bins=15)  # as in RESULTS.md
    metrics = ["oracle_ece", "nc_ece", "soft_vote_ece"]
    summary = table.groupby(["method", "fit"], sort=False)[metrics].agg(["mean", "std"])
    print(
        f"{REPLICATES} replicates, n = 12 000 in thirds, two annotators, shifted m, grouped EM on 5 score groups; "
        "mean (sd) over replicates, 15 equal-width bins of the transformed score\n"
    )
    print("| method | fit | oracle ECE | NC-ECE | soft-vote ECE |")
    print("|---|---|---|---|---|")
    for (method, fit), row in summary.iterrows():
        cells = [f"{row[(m, 'mean')]:.4f} ({row[(m, 'std')]:.4f})" for m in metrics]
        print(f"| {method} | {fit} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
