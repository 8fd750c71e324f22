"""report.html: self-contained, rendered from saved results alone, and readable in a browser."""

import base64
import dataclasses
import html
import json
import re
import shlex
import shutil

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal._api import chance_text, p_value_text
from bayescal.app.analysis import analyse
from bayescal.bayes.sampler import Sampler
from bayescal.data.tables import read_wide_table
from bayescal.report import Summary
from bayescal.report.folders import load_summary, render_report, write_analysis
from bayescal.report.html_report import CAPTIONS, _data_section, report_html, summary_html
from tests.helpers import CHROMIUM, CHROMIUM_FLAGS, NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    sim = bc.simulate_annotated(
        1200,
        bc.Channels([0.1, 0.2, 0.15, 0.3], [0.85, 0.9, 0.8, 0.75]),
        calibration=lambda z: 0.2 + 0.6 * z,
        seed=3,
    )
    # issue 16 item 20: names in other scripts, drawn without a warning per missing glyph
    names = ["ann", "bob", "Zoë", "判定者"]
    pd.DataFrame(
        {"score": sim.data.scores, **dict(zip(names, sim.data.annotations.T)), "y": sim.labels}
    ).to_csv(folder / "t.csv", index=False)
    table = read_wide_table(folder / "t.csv", score="score", annotators=names, truth="y")
    options = bc.SamplerSettings(num_chains=2, num_warmup=300, num_samples=500)
    analysis = analyse(table.data, truth=table.truth, seed=1, sampler=options)
    source = {"table": "t.csv", "score": "score", "annotators": names, "long": False}
    summary, report = write_analysis(folder / "out", analysis, input_record=source)
    return folder / "out", summary, report


def _text(element_id: str, page: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>([^<]*)<', page)
    assert match, f"no element {element_id}"
    return match.group(1)


def test_report_is_one_self_contained_file(results):
    out, _summary, report = results
    page = report.read_text()
    assert not re.search(r"(src|href)=\"(?!data:)", page), "every image is inline"
    assert (
        "<script" not in page
        and "<link" not in page
        and "http://" not in page
        and "https://" not in page
    )
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == len(CAPTIONS) == 4
    for name, encoded in zip(("reliability", "channels", "patterns", "agreement"), images):
        png = base64.b64decode(encoded)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        assert png == (out / "figures" / f"{name}.png").read_bytes()


def test_key_numbers_are_the_summary_numbers(results):
    _, written, report = results
    summary = written.to_dict()
    page = report.read_text()
    ece = summary["ece"]
    posterior = ece["nc_ece"]["posterior"]
    assert _text("nc-ece-posterior-median", page) == f"{posterior['median']:.4f}"
    assert (
        _text("nc-ece-posterior-interval", page)
        == f"90% interval [{posterior['interval'][0]:.4f}, {posterior['interval'][1]:.4f}]"
    )
    assert _text("nc-ece-frequentist", page) == f"{ece['nc_ece']['frequentist']['value']:.4f}"
    assert _text("naive-soft-vote", page) == f"{ece['naive']['soft_vote']:.4f}"
    assert _text("naive-majority-vote", page) == f"{ece['naive']['majority_vote']:.4f}"
    assert _text("oracle-ece", page) == f"{ece['oracle']['value']:.4f}"
    assert _text("n-items", page) == "1200" and _text("annotators", page) == "ann, bob, Zoë, 判定者"
    assert _text("missing-rate", page) == "0.0%" and _text("missing-判定者", page) == "0.0%"
    assert _text("identification-status", page) == "identified"
    bob = summary["channels"]["bob"]["b"]
    assert (
        _text("b-bob-posterior", page) == f"{bob['posterior_mean']:.4f}"
        and _text("b-bob-em", page) == f"{bob['em']:.4f}"
    )
    for verdict in summary["checks"]["verdicts"]:
        assert verdict.replace("'", "&#x27;") in page
    record = summary["record"]
    assert record["n_annotators"] == 4 and record["repeat_rate"] == 1.0 and "Youden index" in page


def test_the_report_is_rendered_from_saved_results_without_refitting(results, monkeypatch):
    out, _, report = results
    before = report.read_text()
    report.unlink()
    shutil.rmtree(out / "figures")

    def refuse(*args, **kwargs):
        raise AssertionError("the report must not refit")

    monkeypatch.setattr(Sampler, "run", refuse)
    monkeypatch.setattr("bayescal.app.analyse", refuse)
    assert render_report(out) == report
    assert (
        report.read_text() == before
    )  # the same figures, byte for byte, from summary.json and posterior.nc


def test_the_summary_says_null_with_a_reason_never_nan(results):
    out, _summary, _ = results

    def refuse(name):
        raise AssertionError(f"summary.json holds {name}")

    saved = json.loads((out / "summary.json").read_text(), parse_constant=refuse)
    band = saved["reliability"]
    assert len(band["counts"]) == saved["ece"]["n_bins"] == 10
    assert all(
        low <= mid <= high
        for low, mid, high in zip(
            band["corrected"]["lower"], band["corrected"]["median"], band["corrected"]["upper"]
        )
        if mid is not None
    )


def test_loading_a_directory_that_is_not_a_fit(tmp_path):
    with pytest.raises(
        FileNotFoundError,
        match=r"summary\.json: no such file; is .* a directory written by bayescal fit",
    ):
        load_summary(tmp_path)
    (tmp_path / "summary.json").write_text("{broken")
    with pytest.raises(ValueError, match=r"summary\.json: not valid JSON"):
        load_summary(tmp_path)
    (tmp_path / "summary.json").write_text(json.dumps({"data": {}}))
    with pytest.raises(
        ValueError,
        match=r"not a bayescal fit summary \(missing bayescal_version, model, identification",
    ):
        load_summary(tmp_path)


def test_report_html_checks_its_arguments(results):
    _, summary, _ = results
    with pytest.raises(TypeError, match=r"summary must be a bayescal\.report\.Summary; saw list"):
        report_html([], {})
    with pytest.raises(ValueError, match=r"figures must be named among .*; saw \['histogram'\]"):
        report_html(summary, {"histogram": b""})
    assert "<img" not in report_html(summary, {})  # figures are optional


@NEEDS_CHROMIUM
def test_a_reader_sees_the_verdict_first_and_opens_every_detail_in_chromium(results, tmp_path):
    """Issue 18 item 7: the verdict box is in the first screen (1200 x 900) with the numbers of
    summary.json; every ``<details>`` starts closed, hiding its content, and opens on a click;
    then the key numbers are all visible and nothing was fetched."""
    from playwright.sync_api import sync_playwright

    _out, written, report = results
    summary = written.to_dict()
    verdict = summary["verdict"]
    posterior = summary["ece"]["nc_ece"]["posterior"]
    first_screen = {
        "verdict-sentence": verdict["sentence"],
        "verdict-nc-ece": f"{verdict['nc_ece']['median']:.4f}",
        "verdict-p-value": p_value_text(verdict["p_value"]),
        "verdict-prob-within-tolerance": chance_text(verdict["prob_within_tolerance"]),
        "verdict-naive-soft-vote": f"{summary['ece']['naive']['soft_vote']:.4f}",
    }
    visible = {
        "nc-ece-posterior-median": f"{posterior['median']:.4f}",
        "nc-ece-posterior-interval": f"[{posterior['interval'][0]:.4f}, {posterior['interval'][1]:.4f}]",
        "nc-ece-frequentist": f"{summary['ece']['nc_ece']['frequentist']['value']:.4f}",
        "naive-soft-vote": f"{summary['ece']['naive']['soft_vote']:.4f}",
        "oracle-ece": f"{summary['ece']['oracle']['value']:.4f}",
        "identification-status": "identified",
        "n-items": "1200",
        "calibration-test-p-value": p_value_text(summary["calibration_test"]["p_value"]),
        "recalibration-before": f"{summary['recalibration']['before']['median']:.4f}",
        "recalibration-platt": f"{summary['recalibration']['after']['platt']['median']:.4f}",
        "recalibrate-command": "bayescal recalibrate t.csv --score score",
    }
    requests = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("request", lambda request: requests.append(request.url))
        page.goto(report.as_uri())
        box = page.locator("#verdict").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 900, box
        for element, text in first_screen.items():
            locator = page.locator(f"#{element}")
            assert locator.is_visible() and text in locator.inner_text(), element
            inside = locator.bounding_box()
            assert inside["y"] + inside["height"] <= 900, element
        assert not page.locator("#identification-status").is_visible()  # in a closed detail
        details = page.locator("details")
        assert details.count() == 6
        for index in range(details.count()):
            detail = details.nth(index)
            assert not detail.evaluate("element => element.open")
            detail.locator("summary").click()
            assert detail.evaluate("element => element.open"), index
            assert detail.locator("xpath=./*[not(self::summary)]").first.is_visible(), index
        for element, text in visible.items():
            locator = page.locator(f"#{element}")
            assert locator.is_visible(), element
            assert text in locator.inner_text(), element
        body = page.inner_text("body")  # the rendered text: what a reader can see
        assert "Identification status: identified" in body and "Reliability diagram" in body
        images = page.evaluate(
            "Array.from(document.images).map(image => [image.complete, image.naturalWidth, image.naturalHeight])"
        )
        assert len(images) == 4 and all(
            complete and width > 300 and height > 200 for complete, width, height in images
        )
        screenshot = tmp_path / "report.png"
        page.screenshot(path=str(screenshot), full_page=True)
        height = page.evaluate("document.documentElement.scrollHeight")
        browser.close()
    assert requests == [report.as_uri()]  # nothing fetched from anywhere else
    png = screenshot.read_bytes()
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[20:24], "big") == height > 2000


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_hui_walter_class_balance_weighs_the_groups_that_hold_items():
    # Score groups 0 and 2 (group 1 empty): one prevalence column per non-empty group,
    # weighted by that group's items.
    sim = bc.simulate_annotated(1500, bc.Channels([0.1, 0.2], [0.85, 0.9]), seed=5)
    groups = np.where(sim.data.scores < 0.5, 0, 2)
    data = bc.AnnotatedScores(sim.data.scores, sim.data.annotations, groups=groups)
    options = bc.SamplerSettings(num_chains=1, num_warmup=50, num_samples=50)
    analysis = analyse(data, seed=2, sampler=options)
    prevalence = analysis.bayes_fit.draws().prevalence
    assert prevalence.shape[1] == 2
    sizes = np.array([(groups == 0).sum(), (groups == 2).sum()])
    expected = (prevalence @ sizes / sizes.sum()).mean()
    balance = analysis.summary.record.class_balance.prevalence_posterior_mean
    assert balance == pytest.approx(expected, rel=1e-12)
    # the data section lists the score groups (issue 37, item 11: not for a model without any)
    section = _data_section(analysis.summary)
    assert "Score groups and their sizes" in section and 'id="group-2-size"' in section


def test_a_model_without_score_groups_lists_none(results):
    _, _, report = results
    assert "Score groups" not in report.read_text()


def test_the_checks_keep_their_level_and_old_summaries_still_load(results):
    out, _, _ = results
    document = json.loads((out / "summary.json").read_text())
    assert document["checks"]["level"] == 0.9  # analyse passes its level to check_model
    loaded = load_summary(out)
    assert "Model checks (posterior predictive, 90% intervals):" in loaded.text()
    del document["checks"]["level"]  # a summary written before 0.2
    old = Summary.from_dict(document)
    assert old.checks.level is None and "Model checks:" in old.text()


def test_drawing_the_report_leaves_pyplot_alone(results):
    """Issue 16 item 15: render_report called matplotlib.use("Agg") and closed figures, which
    switched a notebook's backend; the report now draws on its own Agg figures."""
    import matplotlib
    import matplotlib.pyplot as plt

    from bayescal.bayes.bayes_fit import BayesFit
    from bayescal.report.html_report import draw_figures

    out, summary, _ = results
    before = matplotlib.get_backend()
    families = list(matplotlib.rcParams["font.family"])
    matplotlib.use("svg")  # a backend the report must not switch away from
    try:
        mine = plt.figure()
        open_figures = plt.get_fignums()  # mine, and any another test left open
        figures = draw_figures(summary, BayesFit.load(out / "posterior.nc"))
        assert sorted(figures) == ["agreement", "channels", "patterns", "reliability"]
        assert all(png.startswith(b"\x89PNG") for png in figures.values())
        assert matplotlib.get_backend() == "svg" and plt.get_fignums() == open_figures
        assert matplotlib.rcParams["font.family"] == families  # the fallback fonts were undone
        plt.close(mine)
    finally:
        matplotlib.use(before)


def test_an_annotator_name_cannot_write_markup_into_the_report():
    from bayescal._html import cell

    assert cell(1, 'missing-dr "x"><b>') == '<td id="missing-dr_&quot;x&quot;&gt;&lt;b&gt;">1</td>'
    assert cell("<i>", "missing-a b\tc") == '<td id="missing-a_b_c">&lt;i&gt;</td>'


def test_a_crowds_checks_table_shows_the_other_checks_and_the_flagged_rows():
    """A 30-worker crowd's check table has a row per pattern (8 500 here): the report's table
    keeps every row of the other checks and the flagged ones, and says what it left out."""
    from collections import namedtuple

    from bayescal._html import MAX_CHECK_ROWS, checks_table

    Row = namedtuple("Row", "check subject observed expected lower upper p_value flag")
    rows = [Row("ppc", "chi2", 1.0, 1.0, 0.0, 2.0, 0.5, False)]
    rows += [Row("pattern", f"p{i}", 1.0, 1.0, 0.0, 2.0, 0.5, i in (3, 250)) for i in range(300)]
    page = checks_table(["a verdict"], rows)
    assert page.count("<tr") == 1 + 3  # the header, the ppc row and the two flagged patterns
    assert ">p3<" in page and ">p250<" in page and ">p4<" not in page
    assert "3 of 301 rows shown: the unflagged pattern and pair rows are left out" in page
    few = checks_table(["a verdict"], rows[: MAX_CHECK_ROWS - 1])
    assert few.count("<tr") == MAX_CHECK_ROWS and 'id="checks-shown"' not in few


def _command(page: str) -> str:
    return html.unescape(re.search(r'<pre id="recalibrate-command">([^<]*)<', page).group(1))


def test_the_recalibrate_command_is_the_one_for_the_input_the_fit_read(results):
    """Issue 37 item 2: a long table's fit gets the long command with its columns and gold;
    an analysis run from Python the call with the fitted model's EM estimator."""
    _, summary, _ = results
    long = {
        "table": "labels.csv",
        "scores": "scores.csv",
        "score": "p",
        "annotators": None,
        "long": True,
        "item": "id",
        "annotator": "annotator",
        "label": "y",
        "gold": "human",
        "gold_weights": "pi",
    }
    words = shlex.split(_command(report_html(dataclasses.replace(summary, input=long), {})))
    method = words[words.index("--method") + 1]
    assert words == [
        *"bayescal recalibrate labels.csv --long --scores scores.csv --item id --label y".split(),
        *"--score p --gold human --gold-weights pi --method".split(),
        method,
        *"--out recalibrated".split(),
    ]
    # a long fit's summary from before the record kept its column names: the Python call
    older = {key: value for key, value in long.items() if key not in ("item", "annotator", "label")}
    assert _command(report_html(dataclasses.replace(summary, input=older), {})).startswith(
        "bc.recalibrate(data"
    )
    python = dataclasses.replace(summary, input=None)
    assert 'channels="dawid_skene_em")' in _command(report_html(python, {}))
    crowd = dataclasses.replace(
        python, model=dataclasses.replace(summary.model, name="hierarchical_dawid_skene")
    )
    assert f'bc.recalibrate(data, method="{method}", channels="crowd_em")' == _command(
        report_html(crowd, {})
    )


def test_the_report_names_each_annotators_labels_and_a_crowd_by_its_workers(results):
    """Issue 37 item 10: each annotator's number of labels; a crowd's data section summarises
    its workers' labels instead of listing a missing rate per worker."""
    from bayescal.report.html_report import _annotator_section

    out, summary, _ = results
    data = summary.data
    section = _annotator_section(summary)
    table = pd.read_csv(out.parent / "t.csv")  # the labels given, counted in the input
    for name in data.missing_by_annotator:
        assert _text(f"labels-{name}", section) == str(table[name].notna().sum())
    assert "<th>labels</th><th>missing</th>" in section  # a panel: both
    workers = [f"w{j:02d}" for j in range(20)]
    crowd = dataclasses.replace(
        summary,
        data=dataclasses.replace(
            data,
            annotators=tuple(workers),
            missing_by_annotator={w: 1 - (j + 1) / 1200 for j, w in enumerate(workers)},
        ),
    )
    described = _data_section(crowd)
    assert _text("annotators", described) == "20 workers"
    assert _text("labels-per-worker", described) == "median 10.5 (from 1 to 20; 210 in all)"
    assert "missing-w00" not in described


def test_the_report_says_what_nc_ece_is_first_why_the_held_out_value_differs_and_ends_with_its_version(
    results,
):
    """Issue 37 items 4 and 11."""
    _, summary, report = results
    page = report.read_text()
    meaning = page.index("NC-ECE, the noise-corrected expected calibration error, is")
    assert page.index('id="verdict-nc-ece') < meaning < page.index("<img")
    view = summary_html(summary)  # the notebook's view too
    assert view.index('id="verdict-nc-ece') < view.index('id="nc-ece-meaning"') < view.index("<h2>")
    preview = summary.recalibration
    assert (
        f"The original scores' NC-ECE here ({preview.before.median:.4f}) is measured on the "
        f"{preview.n_eval} items the maps never saw"
    ) in html.unescape(page)
    assert f"({summary.ece.nc_ece.posterior.median:.4f}) is measured on all 1200" in page
    footer = f'<footer class="note">Written by bayescal {summary.bayescal_version}.</footer>'
    assert page.rstrip().endswith(footer + "\n</body></html>")


def test_the_channel_figure_says_why_sparse_workers_em_crosses_sit_together(results):
    """Issue 37 item 10: crowd_em gives its sparse workers their pool's channel; the EM's
    legend entry says so when some were pooled (summary.json records which)."""
    from bayescal.report.html_report import _em_label

    _, summary, _ = results
    assert _em_label(summary) == "EM"
    first, *rest = summary.channels
    pooled = {
        name: dataclasses.replace(entry, em_pooled=True if name in (first, rest[0]) else None)
        for name, entry in summary.channels.items()
    }
    label = _em_label(dataclasses.replace(summary, channels=pooled))
    assert label.replace("\n", " ") == "EM (2 workers with few labels share the pool's channel)"
    again = Summary.from_dict(dataclasses.replace(summary, channels=pooled).to_dict())
    assert again.channels[first].em_pooled and again.channels[rest[-1]].em_pooled is None


def test_what_to_do_reads_each_map_by_its_upper_bound(results):
    """Issue 38 item 6: after a map NC-ECE lies near 0, where a two-sided interval misses it
    from above; the report gives each map's one-sided bound and its chance within 0.01, and
    summary.json keeps them."""
    out, summary, report = results
    page = report.read_text()
    bound = summary.recalibration.after_bound["platt"]
    assert bound.level == 0.9 and bound.tolerance == 0.01
    assert _text("recalibration-platt-upper-bound", page) == f"{bound.upper_bound:.4f}"
    assert summary.recalibration.after["platt"].median < bound.upper_bound
    assert "<th>90% upper bound</th><th>chance that NC-ECE ≤ 0.01</th>" in page
    assert "read the upper bound (NC-ECE is below it with 90% probability)" in page
    assert load_summary(out).recalibration.after_bound["platt"] == bound
