"""The ``bayescal`` command.  This is the only module that reads ``argv``.

Commands
--------
``bayescal demo``
    Simulate the paper's toy data (§6.1) and compare the predictor's clean-label ECE with the
    naive noisy-label ECEs and the noise-corrected ECE with true and with estimated channels.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .channels import score_groups
from .correction import majority_vote_ece, nc_ece, noise_corrected_ece, soft_vote_ece
from .data import AnnotatedScores
from .metrics import expected_calibration_error
from .simulate import TOY_CONDITIONS, toy_data

DEMO_EXAMPLE = "example: bayescal demo --condition shifted --n 8000 --seed 0"


def _integer_argument(minimum: int, allow_auto: bool = False):
    """argparse type: an integer >= minimum (or the word 'auto' when allowed)."""
    expected = ("a positive integer" if minimum == 1 else "a non-negative integer") + (" or 'auto'" if allow_auto else "")

    def parse(text: str) -> int | str:
        if allow_auto and text == "auto":
            return text
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}; saw {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {expected}; saw {value}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayescal",
        description="Calibration of a binary predictor judged by several noisy annotators.",
    )
    parser.add_argument("--version", action="version", version=f"bayescal {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo = commands.add_parser(
        "demo",
        help="simulate the paper's toy data and compare naive ECE with noise-corrected ECE",
        description=(
            "Simulate the toy data of paper §6.1 (three annotators with known channels) and print the "
            "predictor's ECE against the true labels, against naive soft and majority votes, and the "
            "noise-corrected ECE (NC-ECE) computed from the noisy labels with the true channels and "
            "with channels estimated from the same labels by grouped EM."
        ),
        epilog=DEMO_EXAMPLE,
    )
    demo.add_argument("--condition", choices=TOY_CONDITIONS, default="shifted", help="calibration condition (default: shifted)")
    demo.add_argument("--n", type=_integer_argument(1), default=8000, help="number of items (default: 8000)")
    demo.add_argument("--seed", type=_integer_argument(0), default=0, help="random seed (default: 0)")
    demo.add_argument(
        "--n-bins", type=_integer_argument(1, allow_auto=True), default=10, help="equal-width evaluation bins, or 'auto' = round(n^(1/3)) (default: 10, as in the paper)"
    )
    return parser


def run_demo(condition: str, n: int, seed: int, n_bins: int | str) -> str:
    """The demo's report as text (the numbers are computed here, printing is the caller's)."""
    simulation = toy_data(n, condition=condition, seed=seed)
    observed = simulation.data
    # The paper's toy study fits grouped EM on five equal-width score groups (App. G.2).
    data = AnnotatedScores(observed.scores, observed.annotations, groups=score_groups(observed.scores, n_groups=5))
    try:
        estimated = nc_ece(data, "grouped_em", n_bins=n_bins, seed=seed)
    except ValueError as error:  # a failed or unidentified fit (tiny n): report it, keep the rest
        estimated, failure = None, str(error)
    truth = simulation.channels
    rows = [
        ("population ECE  E|m(Z) - Z|  (numerical integral)", simulation.population_ece),
        ("clean labels  (oracle: only a simulator knows Y)", expected_calibration_error(simulation.labels, data.scores, n_bins)),
        ("soft vote  (naive: mean of the noisy labels)", soft_vote_ece(data.scores, data.annotations, n_bins)),
        ("majority vote  (naive)", majority_vote_ece(data.scores, data.annotations, n_bins)),
        ("NC-ECE  (true channels, inverse-variance weights)", noise_corrected_ece(data.scores, data.annotations, truth, n_bins)),
    ]
    if estimated is not None:
        rows.append(("NC-ECE  (channels estimated by grouped EM)", estimated.estimate))
    lines = [
        f"bayescal demo: paper §6.1 toy data, condition {condition!r}, n = {n}, seed = {seed}",
        "",
        "           true channels          estimated by grouped EM (5 score groups)",
        "annotator  false-pos a  sensitivity b  false-pos a  sensitivity b",
    ]
    for j, name in enumerate(data.annotator_names):
        line = f"{name:<9}  {truth.a[j]:>11.3f}  {truth.b[j]:>13.3f}"
        if estimated is not None:
            fitted = estimated.fits[0].channels
            line += f"  {fitted.a[j]:>11.3f}  {fitted.b[j]:>13.3f}"
        lines.append(line)
    bins = f"{n_bins} equal-width bins" if n_bins != "auto" else "round(n^(1/3)) equal-width bins"
    lines += ["", f"ECE of the predictor ({bins}):"]
    width = max(len(label) for label, _ in rows)
    lines += [f"  {label:<{width}}  {value:.4f}" for label, value in rows]
    if estimated is None:
        lines.append(f"  NC-ECE with estimated channels: not available ({failure})")
    lines += [
        "",
        "The naive ECEs score the predictor against noisy labels and are biased; NC-ECE uses the",
        "noisy labels alone (plus channels, known or estimated from the same labels) and estimates",
        "the clean-label ECE.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        print(run_demo(args.condition, args.n, args.seed, args.n_bins))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
