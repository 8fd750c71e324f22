"""Write the example tables of the README quickstart (run from the repository root).

``judged.csv``: 3 000 items scored by an over-confident predictor (``m(z) = 0.5 + 0.7 (z - 0.5)``)
and judged by four simulated annotators of unequal quality (``ann``, ``bob``, ``cy``, ``dee``);
about a fifth of ``dee``'s labels are missing.  ``truth`` holds the simulated true labels: a real
table has none, and ``bayescal fit`` uses the column only for the oracle ECE when asked to.
``priors.json``: three named priors for ``bayescal sensitivity``.
"""

import json
import pathlib

import numpy as np
import pandas as pd

import bayescal as bc

HERE = pathlib.Path(__file__).parent
CHANNELS = bc.Channels(a=np.array([0.08, 0.15, 0.10, 0.25]), b=np.array([0.85, 0.90, 0.75, 0.80]))


def main(folder: pathlib.Path = HERE) -> None:
    simulation = bc.simulate_annotated(
        3000, CHANNELS, calibration=lambda z: 0.5 + 0.7 * (z - 0.5), seed=2026
    )
    labels = simulation.data.annotations.astype(np.float64)
    rng = np.random.default_rng(7)
    labels[rng.random(labels.shape[0]) < 0.2, 3] = np.nan
    table = pd.DataFrame(
        {
            "item": [f"q{i:04d}" for i in range(labels.shape[0])],
            "score": simulation.data.scores.round(4),
        }
    )
    for j, name in enumerate(("ann", "bob", "cy", "dee")):
        table[name] = pd.array(labels[:, j], dtype="Int64")
    table["truth"] = simulation.labels
    table.to_csv(folder / "judged.csv", index=False)
    priors = {
        "flat": {},
        "sensitive judges": {"sensitivity": [8, 2]},
        "careful judges": {"false_positive": [2, 8]},
    }
    (folder / "priors.json").write_text(json.dumps(priors, indent=2) + "\n")


if __name__ == "__main__":
    main()
