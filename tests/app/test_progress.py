"""Issue 37, item 1: a step that can take seconds says so as it starts, in a notebook too
(standard error, whether or not it is a terminal); nothing is said with progress off."""

from collections import OrderedDict

import pytest

import bayescal as bc
from bayescal.app.steps import STEP_LINES
from bayescal.bayes import sampler as sampler_module
from bayescal.bayes.fit import sampler_for


@pytest.fixture(scope="module")
def toy():
    """Four annotators: not saturated, so the analysis warns of nothing."""
    panel = bc.Channels([0.1, 0.15, 0.2, 0.1], [0.85, 0.8, 0.75, 0.9])
    return bc.simulate.simulate_annotated(400, panel, seed=2).data


def _lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("bayescal: ")]


def test_an_analysis_says_each_step_in_order_and_nothing_without_progress(toy, tmp_path, capsys):
    analysis = bc.analyse(toy, seed=0)  # progress is on by default
    said = _lines(capsys.readouterr().err)
    steps = [line for line in said if "compiling the sampler" not in line]
    assert steps == [f"bayescal: {text}..." for text in STEP_LINES.values()]
    analysis.report(tmp_path / "out")
    assert _lines(capsys.readouterr().err) == [
        "bayescal: writing the posterior (posterior.nc)...",
        "bayescal: drawing the figures and writing the report (report.html)...",
    ]
    bc.analyse(toy, seed=0, progress=False)
    analysis.report(tmp_path / "quiet", progress=False)
    assert _lines(capsys.readouterr().err) == []


class _Compiling(Exception):
    """Stands for a compilation, which this test does not wait for."""


@pytest.mark.parametrize("progress", [True, False])
def test_a_compilation_is_announced_with_how_long_it_takes(toy, monkeypatch, capsys, progress):
    settings = bc.SamplerSettings(num_chains=1, num_warmup=10, num_samples=10, progress=progress)
    setup = sampler_for(toy.compress(), "dawid_skene", settings, caller="test")
    monkeypatch.setattr(sampler_module, "_COMPILED", OrderedDict())
    monkeypatch.setattr(sampler_module._compile_cache, "load", lambda *args: None)

    def compile_(*args):
        raise _Compiling

    monkeypatch.setattr(setup.sampler, "_compile", compile_)
    with pytest.raises(_Compiling):
        setup.sampler.run(setup.sampler.observed(setup.data), bc.Priors(), 0)
    low, high = sampler_module.COMPILE_SECONDS
    expected = (
        [
            "bayescal: compiling the sampler for this model and data layout (usually "
            f"{low}-{high} s; kept for later runs)..."
        ]
        if progress
        else []
    )
    assert _lines(capsys.readouterr().err) == expected
