"""``bayescal demo``: the paper's toy data (§6.1) through every part of bayescal, as text.

It compares the predictor's clean-label ECE with the naive noisy-label ECEs and the
noise-corrected ECE with true and with estimated channels, checks the Bayesian fit against the
annotations, recalibrates the predictor by Platt scaling fitted to naive and to corrected
labels (paper §5), and last runs ``bayescal fit`` on the simulated table and ends with the
path of its report.  The numbers are computed here; printing is the command's.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from .._api import silenced
from ..channels import score_groups
from ..correction.estimation import nc_ece_estimate
from ..correction.known_channels import majority_vote_ece, noise_corrected_ece, soft_vote_ece
from ..data.annotated_scores import AnnotatedScores
from ..data.tables import file_sha256, read_wide_table
from ..exceptions import SaturatedModelWarning
from ..metrics.calibration import expected_calibration_error
from ..recalibration import recalibration_study
from ..report.folders import check_output, write_analysis, write_table
from ..simulate.panels import toy_data
from .analysis import analyse

__all__ = ["check_demo_folder", "run_demo"]


def run_demo(
    condition: str, n: int, seed: int, n_bins: int | str, bayes: bool = True, out="bayescal-demo"
) -> str:
    """The demo's report as text (the numbers are computed here, printing is the caller's).
    Its folder ``out`` is checked before any work (:func:`check_demo_folder`)."""
    out = pathlib.Path(out)
    if bayes:
        check_demo_folder(out)
    simulation = toy_data(n, condition=condition, seed=seed)
    observed = simulation.data
    # The paper's toy study fits grouped EM on five equal-width score groups (App. G.2).
    data = AnnotatedScores(
        observed.scores, observed.annotations, groups=score_groups(observed.scores, n_groups=5)
    )
    try:
        estimated, failure = (
            nc_ece_estimate(data, estimator="grouped_em", n_bins=n_bins, seed=seed),
            None,
        )
    except ValueError as error:  # a failed or unidentified fit (tiny n): report it, keep the rest
        estimated, failure = None, str(error)
    analysis, summary, report, bayes_failure = (
        _demo_fit(simulation, pathlib.Path(out), n_bins, seed)
        if bayes
        else (None, None, None, "skipped (--no-bayes)")
    )
    fit, posterior = (
        (analysis.bayes_fit, analysis.posterior) if analysis is not None else (None, None)
    )
    truth = simulation.channels

    lines = [
        f"bayescal demo: paper §6.1 toy data, condition {condition!r}, n = {n}, seed = {seed}",
        "",
        "Annotator channels: false-positive rate a, sensitivity b",
        f"{'annotator':<9}  {'true a':>6}  {'true b':>6}  {'EM a':>6}  {'EM b':>6}  {'posterior a [90%]':>22}  {'posterior b [90%]':>22}",
    ]
    draws = fit.draws() if fit is not None else None
    for j, name in enumerate(data.annotator_names):
        line = f"{name:<9}  {truth.a[j]:>6.3f}  {truth.b[j]:>6.3f}"
        if estimated is not None:
            fitted = estimated.fits[0].channels
            line += f"  {fitted.a[j]:>6.3f}  {fitted.b[j]:>6.3f}"
        else:
            line += f"  {'-':>6}  {'-':>6}"
        if draws is not None:
            for values in (draws[0][:, j], draws[1][:, j]):
                low, high = np.quantile(values, [0.05, 0.95])
                line += f"  {values.mean():>6.3f} [{low:.3f}, {high:.3f}]"
        lines.append(line)
    if estimated is not None or draws is not None:
        lines.append(
            "(EM: grouped EM on 5 equal-width score groups; posterior: Bayesian Dawid–Skene, NUTS, flat priors)"
        )

    rows = [
        ("population ECE  E|m(Z) - Z|  (numerical integral)", f"{simulation.population_ece:.4f}"),
        (
            "clean labels  (oracle: only a simulator knows Y)",
            f"{expected_calibration_error(simulation.labels, data.scores, n_bins=n_bins):.4f}",
        ),
        (
            "soft vote  (naive: mean of the noisy labels)",
            f"{soft_vote_ece(data, n_bins=n_bins):.4f}",
        ),
        (
            "majority vote  (naive)",
            f"{majority_vote_ece(data, n_bins=n_bins):.4f}",
        ),
        (
            "NC-ECE  (true channels, inverse-variance weights)",
            f"{noise_corrected_ece(data, truth, n_bins=n_bins):.4f}",
        ),
        (
            "NC-ECE  (channels estimated by grouped EM)",
            f"{estimated.estimate:.4f}" if estimated else f"not available ({failure})",
        ),
        (
            "NC-ECE  (posterior median, 90% credible interval)",
            f"{posterior.median:.4f}  [{posterior.interval[0]:.4f}, {posterior.interval[1]:.4f}]"
            if posterior
            else f"not available ({bayes_failure})",
        ),
    ]
    bins = f"{n_bins} equal-width bins" if n_bins != "auto" else "round(n^(1/3)) equal-width bins"
    width = max(len(label) for label, _ in rows)
    lines += ["", f"ECE of the predictor ({bins}):"]
    lines += [f"  {label:<{width}}  {value}" for label, value in rows]
    lines += [
        "",
        "The naive ECEs score the predictor against noisy labels and are biased; NC-ECE uses the",
        "noisy labels alone (plus channels, known or estimated from the same labels) and estimates",
        "the clean-label ECE. The credible interval carries the channel and the evaluation-sample",
        "uncertainty (nc_ece_posterior, uncertainty='total').",
    ]
    lines += [
        "",
        (summary.checks.heading(of="the Bayesian Dawid–Skene fit") if summary else "Model checks")
        + ":",
    ]
    lines += (
        [f"  {line}" for line in summary.checks.verdicts]
        if summary
        else [f"  not available ({bayes_failure})"]
    )
    lines += _recalibration_lines(simulation, data, estimated, fit, n_bins, bins, seed)
    if summary is not None:
        names = ",".join(observed.annotator_names)
        command = f"bayescal fit {out}/toy.csv --score score --annotators {names} --truth truth --out {out}/fit --force"
        lines += [
            "",
            f"The same table through {command}:",
            *(f"  {line}" for line in summary.text(checks=False)),
            f"Report: {report}",
        ]
    return "\n".join(lines)


#: The demo's files in its folder: the simulated table and the results folder of its fit.
DEMO_TABLE, DEMO_FIT = "toy.csv", "fit"


def check_demo_folder(out: pathlib.Path) -> None:
    """Refuse, before any work, a demo folder whose files the demo would overwrite but did not
    write.  The demo rewrites its own ``toy.csv`` and ``fit/`` on every run; a ``toy.csv`` is
    its own when the ``fit/summary.json`` beside it records that file's checksum, and ``fit/``
    follows the rule of every results folder (:func:`~bayescal.report.folders.check_output`).
    Other files in ``out`` are left alone."""
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a directory; choose another --out")
    table = out / DEMO_TABLE
    if table.exists() and _recorded_checksum(out) != file_sha256(table):
        raise FileExistsError(
            f"{table} was not written by bayescal demo (its fit/summary.json does not record "
            "it); the demo rewrites it, so choose another --out"
        )
    check_output(out / DEMO_FIT, force=True)


def _recorded_checksum(out: pathlib.Path) -> str | None:
    """The checksum of the table that the demo's last fit in ``out`` recorded, if any."""
    try:
        document = json.loads((out / DEMO_FIT / "summary.json").read_text(encoding="utf-8"))
        return document["input"]["sha256"]["table"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _demo_fit(simulation, out: pathlib.Path, n_bins, seed: int):
    """Write the simulated table as CSV and run ``bayescal fit`` on it: the demo's one Bayesian
    fit (Dawid–Skene, flat priors).  Returns the analysis, summary and report path, or the
    reason there are none."""
    import pandas as pd

    data = simulation.data
    names = list(data.annotator_names)
    out.mkdir(parents=True, exist_ok=True)  # the demo's own files: rewritten on every run
    table_path = write_table(
        out / DEMO_TABLE,
        pd.DataFrame(
            {
                "score": data.scores,
                **dict(zip(names, data.annotations.T)),
                "truth": simulation.labels,
            }
        ),
    )
    record = {
        "table": str(table_path),
        "scores": None,
        "score": "score",
        "annotators": names,
        "truth": "truth",
        "long": False,
        # what tells the demo's own toy.csv from a user's on the next run
        "sha256": {"table": file_sha256(table_path)},
    }
    try:
        # Three annotators make Dawid–Skene saturated: the demo says so, and what it means.
        with silenced(SaturatedModelWarning):
            table = read_wide_table(table_path, score="score", annotators=names, truth="truth")
            analysis = analyse(
                table.data, truth=table.truth, n_bins=n_bins, seed=seed, progress=True
            )
            summary, report = write_analysis(
                out / DEMO_FIT, analysis, force=True, input_record=record
            )
        return analysis, summary, report, None
    except ValueError as error:  # too few items to fit: report it, keep the rest of the demo
        return None, None, None, str(error)


def _recalibration_lines(
    simulation, data, estimated, fit, n_bins, bins: str, seed: int
) -> list[str]:
    """Platt scaling fitted on one half of the items and scored on the other: Base, Naive and
    Corrected, by NC-ECE with the EM channels, by the oracle, and by the posterior."""
    half = data.n_items // 2
    fitting, evaluation = data.subset(np.arange(half)), data.subset(np.arange(half, data.n_items))
    lines = [
        "",
        f"Recalibration by Platt scaling, fitted on items 0-{half - 1} and evaluated on items {half}-{data.n_items - 1}",
        f"(channels from all items; ECE in {bins} of the recalibrated score; naive = fitted to the",
        "mean of the noisy labels, corrected = fitted to the noise-corrected labels):",
    ]
    if half < 2:
        return [*lines, "  not available (too few items to split)"]
    em = {}
    if estimated is not None:
        study = recalibration_study(
            data,
            fitting,
            evaluation,
            methods=["platt"],
            estimator=estimated.fits[0].channels,
            n_bins=n_bins,
            oracle=simulation.labels[half:],
        )
        em = study.table.loc["platt"]
    if fit is not None:
        from ..bayes.posterior import posterior_recalibration

    posterior = (
        posterior_recalibration(fitting, evaluation, fit, method="platt", n_bins=n_bins, seed=seed)
        if fit is not None
        else None
    )
    header = f"  {'predictor':<11}  {'NC-ECE (EM)':>11}  {'oracle ECE':>10}  NC-ECE posterior median [90% interval]"
    lines.append(header)
    for row, result in (("base", "base"), ("naive", "naive"), ("corrected", "recalibrated")):
        frequentist = (
            f"{em.loc[row, 'nc_ece']:>11.4f}  {em.loc[row, 'oracle_ece']:>10.4f}"
            if len(em)
            else f"{'-':>11}  {'-':>10}"
        )
        if posterior is not None:
            draws = getattr(posterior, result)
            bayes = f"{draws.median:.4f} [{draws.interval[0]:.4f}, {draws.interval[1]:.4f}]"
        else:
            bayes = "not available"
        lines.append(f"  {row:<11}  {frequentist}  {bayes}")
    return lines
