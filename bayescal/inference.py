"""Run NUTS on a model of :mod:`bayescal.models` and return one posterior object (DESIGN.md §7).

:func:`fit_bayes` builds the pattern design from ``data.compress()``, checks identification
*before* sampling, samples in float64 (inside ``jax.enable_x64``, so the caller's JAX
configuration is untouched), runs the chains in parallel when there are enough CPU devices and
vectorised otherwise (never one after another), and packs everything into an ArviZ
``InferenceData``: ``posterior`` (a, b, prevalence), ``sample_stats``, ``log_likelihood`` (one
value per pattern row = per item of that pattern; ``constant_data.counts`` holds how many items
share it, for LOO weighting), ``log_prior`` (the prior log density of every draw, per
parameter, for power-scaling sensitivity), ``observed_data``, ``constant_data`` and the priors
in ``attrs``.
"""

from __future__ import annotations

import html
import json
import sys
import warnings
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
from scipy import stats

from . import _html
from . import _validation as v
from ._api import DEFAULT_LEVEL, old_spellings
from ._arviz import az
from ._version import __version__
from .cells import CellStatistics, tabulate
from .channels._base import (
    Channels,
    as_counts,
    check_annotators,
    require_identified,
    warn_if_groups_inseparable,
)
from .exceptions import SamplingWarning
from .priors import Priors

with warnings.catch_warnings():
    # numpyro imports tqdm.auto, which warns in Jupyter without ipywidgets (bayescal's bars are
    # plain tqdm): import-time noise for bayescal's users.
    warnings.filterwarnings("ignore", message="IProgress not found")
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    from .models import PatternDesign, dawid_skene, hui_walter, pattern_log_prob

__all__ = ["MODELS", "BayesFit", "ChannelDraws", "Sampler", "fit_bayes"]

#: Model names and their programs.
MODELS = {"dawid_skene": dawid_skene, "hui_walter": hui_walter}

#: Diagnostic thresholds (Vehtari et al. 2021): rank-normalised R-hat and bulk / tail ESS.
RHAT_MAX = 1.01
ESS_MIN = 400


class SamplerRun(NamedTuple):
    """One run of a :class:`Sampler`: draws and sample statistics by name, grouped by chain."""

    samples: dict
    stats: dict


class ChannelDraws(NamedTuple):
    """Posterior draws of a fit, chains stacked."""

    a: np.ndarray  # (S, K)
    b: np.ndarray  # (S, K)
    prevalence: np.ndarray  # (S,), or (S, L) with L score groups


@dataclass(frozen=True, eq=False)
class BayesFit:
    """A posterior over annotator channels and class proportions.

    Attributes
    ----------
    idata : arviz.InferenceData
        The posterior object (groups listed in the module docstring).
    diagnostics : pandas.DataFrame
        One row per parameter: ``r_hat`` (rank-normalised), ``ess_bulk``, ``ess_tail``, and the
        total ``divergences`` of the run in every row.
    model : str
    priors : Priors
    """

    idata: az.InferenceData
    diagnostics: pd.DataFrame
    model: str
    priors: Priors

    @property
    def annotator_names(self) -> tuple[str, ...]:
        return tuple(str(name) for name in self.idata.posterior["annotator"].values)

    @property
    def n_draws(self) -> int:
        posterior = self.idata.posterior
        return int(posterior.sizes["chain"] * posterior.sizes["draw"])

    def draws(self) -> ChannelDraws:
        """``a`` (S, K), ``b`` (S, K) and ``prevalence`` (S,) or (S, L), chains stacked."""
        posterior = self.idata.posterior
        flat = lambda name: posterior[name].values.reshape(self.n_draws, *posterior[name].shape[2:])  # noqa: E731
        return ChannelDraws(flat("a"), flat("b"), flat("prevalence"))

    def posterior_mean(self) -> Channels:
        a, b, _ = self.draws()
        return Channels(a.mean(axis=0), b.mean(axis=0))

    @old_spellings(renamed={"interval": "level"})
    def summary(self, *, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Posterior mean, sd and highest-density interval of every parameter, with diagnostics."""
        level = v.as_open_probability(level, "level")
        table = az.summary(
            self.idata, var_names=["a", "b", "prevalence"], kind="stats", hdi_prob=level
        )
        return table.join(self.diagnostics)

    @classmethod
    def from_run(
        cls, samples: dict, extra: dict, design: PatternDesign, priors: Priors, model: str, names
    ) -> BayesFit:
        """Pack a :class:`Sampler` run into InferenceData and compute its diagnostics."""
        idata = _inference_data(samples, extra, design, priors, model, names)
        return cls(idata, _diagnostics(idata), model, priors)

    def save(self, path) -> None:
        """Write the InferenceData to NetCDF; :meth:`load` restores an identical fit."""
        self.idata.to_netcdf(str(path))

    @classmethod
    def load(cls, path) -> BayesFit:
        idata = az.from_netcdf(str(path))
        attrs = idata.attrs
        return cls(
            idata,
            _diagnostics(idata),
            str(attrs["bayescal_model"]),
            Priors.from_dict(json.loads(attrs["bayescal_priors"])),
        )

    def __repr__(self) -> str:
        chains = self.idata.posterior.sizes["chain"]
        return f"BayesFit(model={self.model!r}, annotators={list(self.annotator_names)}, chains={chains}, draws={self.n_draws})"

    def _repr_html_(self) -> str:
        """The channel table of the report: posterior mean, equal-tailed interval, R-hat, ESS."""
        level = DEFAULT_LEVEL
        a, b, prevalence = self.draws()
        tail = (1.0 - level) / 2.0
        rows = []

        def add(subject, parameter, draws, row_name):
            diagnostics = self.diagnostics.loc[row_name]
            interval = tuple(float(x) for x in np.quantile(draws, [tail, 1.0 - tail]))
            rows.append(
                _html.ChannelRow(
                    subject,
                    parameter,
                    None,
                    float(np.mean(draws)),
                    interval,
                    float(diagnostics["r_hat"]),
                    float(diagnostics["ess_bulk"]),
                )
            )

        for j, name in enumerate(self.annotator_names):
            add(name, "false-positive rate a", a[:, j], f"a[{name}]")
            add(name, "sensitivity b", b[:, j], f"b[{name}]")
        parameters = [p for p in self.diagnostics.index if p.startswith("prevalence")]
        for parameter, draws in zip(parameters, np.atleast_2d(prevalence.T)):
            add(parameter, "class proportion", draws, parameter)
        divergences = int(self.diagnostics["divergences"].iloc[0])
        head = f"<p>{html.escape(repr(self))}; {divergences} divergent transition(s)</p>"
        return head + _html.channel_table(rows, level)


def _diagnostics(idata) -> pd.DataFrame:
    with np.errstate(
        invalid="ignore", divide="ignore"
    ):  # constant draws: NaN, flagged by _check_diagnostics
        table = az.summary(
            idata, var_names=["a", "b", "prevalence"], kind="diagnostics", round_to="none"
        )[["r_hat", "ess_bulk", "ess_tail"]]
    return table.assign(divergences=int(idata.sample_stats["diverging"].values.sum()))


def check_diagnostics(diagnostics: pd.DataFrame, stacklevel: int = 3) -> None:
    problems = []
    if diagnostics["divergences"].iloc[0] > 0:
        problems.append(f"{diagnostics['divergences'].iloc[0]} divergent transition(s)")
    high = diagnostics.index[diagnostics["r_hat"] > RHAT_MAX].tolist()
    if high:
        problems.append(f"R-hat > {RHAT_MAX} for {high}")
    low = diagnostics.index[(diagnostics[["ess_bulk", "ess_tail"]] < ESS_MIN).any(axis=1)].tolist()
    if low:
        problems.append(f"bulk or tail ESS < {ESS_MIN} for {low}")
    undefined = diagnostics.index[
        diagnostics[["r_hat", "ess_bulk", "ess_tail"]].isna().any(axis=1)
    ].tolist()
    if undefined:
        problems.append(f"R-hat or ESS undefined (constant draws?) for {undefined}")
    if problems:
        warnings.warn(
            "NUTS diagnostics failed: "
            + "; ".join(problems)
            + ". Run more warmup/samples or chains, or "
            "check identification (score groups that barely differ, tiny gaps) before using this posterior",
            SamplingWarning,
            stacklevel=stacklevel,
        )


def chain_method(num_chains: int) -> str:
    """``"parallel"`` when every chain gets its own CPU device, ``"vectorized"`` otherwise."""
    return "parallel" if jax.local_device_count() >= num_chains > 1 else "vectorized"


class Sampler:
    """One compiled NUTS sampler for a model on a fixed pattern layout.

    The design is closed over; the counts and prior parameters are traced arguments.  Warmup
    (step size and diagonal mass-matrix adaptation) and sampling run as one compiled
    ``lax.scan`` per chain, vmapped over chains (or ``pmap``-ped when every chain has a CPU
    device), so repeated :meth:`run` calls with new counts (same layout) or new priors reuse
    the compiled code: a simulation-based calibration or a prior-sensitivity grid costs its
    sampling time, not one compilation per fit.  (``numpyro.infer.MCMC.run`` recompiles on every
    call in numpyro 0.22 when no progress bar is shown, which is why the loop is written here.)
    Compiled code is also shared between Samplers of the same layout and settings in a process
    (a small LRU cache), so repeated :func:`fit_bayes` calls on data with the same response
    patterns compile once.
    """

    def __init__(
        self,
        design: PatternDesign,
        model: str,
        num_chains: int,
        num_warmup: int,
        num_samples: int,
        progress: bool = False,
    ):
        self.design = design
        self.model = model
        self.num_chains = num_chains
        self.num_warmup = num_warmup
        self.num_samples = num_samples
        self.progress = progress
        self.chain_method = chain_method(num_chains)
        self._compiled = None

    def _compile(self, prior_params, counts):
        program = partial(MODELS[self.model], self.design)
        info = initialize_model(
            jax.random.PRNGKey(0),
            program,
            dynamic_args=True,
            model_args=(prior_params,),
            model_kwargs={"counts": counts},
        )
        init_kernel, sample_kernel = hmc(potential_fn_gen=info.potential_fn, algo="NUTS")
        postprocess = info.postprocess_fn
        template = info.param_info.z
        num_warmup, num_samples = self.num_warmup, self.num_samples
        total = num_warmup + num_samples
        report = _progress_reporter(total, self.num_chains) if self.progress else None
        every = max(1, total // 100)  # a host callback per step would cost more than the step

        def one_chain(key, prior_params, counts):
            key_init, key_run = jax.random.split(key)
            leaves, tree = jax.tree_util.tree_flatten(template)
            keys = jax.random.split(key_init, len(leaves))
            # numpyro's init_to_uniform: uniform in (-2, 2) on the unconstrained scale
            start = tree.unflatten(
                [
                    jax.random.uniform(k, jnp.shape(x), minval=-2.0, maxval=2.0)
                    for k, x in zip(keys, leaves)
                ]
            )
            arguments = {"model_args": (prior_params,), "model_kwargs": {"counts": counts}}
            state = init_kernel(start, num_warmup, rng_key=key_run, **arguments)

            def step(state, index):
                state = sample_kernel(state, **arguments)
                if report is not None:
                    jax.lax.cond(
                        index % every == 0,
                        lambda i: jax.debug.callback(report, i, every),
                        lambda i: None,
                        index,
                    )
                return state, (
                    state.z,
                    state.diverging,
                    state.energy,
                    state.num_steps,
                    state.accept_prob,
                )

            # One scan over warmup and sampling compiles the NUTS kernel once; warmup is dropped after.
            _, trace = jax.lax.scan(step, state, jnp.arange(num_warmup + num_samples))
            z, diverging, energy, num_steps, accept_prob = jax.tree_util.tree_map(
                lambda x: x[num_warmup:], trace
            )
            constrained = jax.vmap(postprocess(prior_params, counts=counts))(z)
            return constrained, {
                "diverging": diverging,
                "energy": energy,
                "num_steps": num_steps,
                "accept_prob": accept_prob,
            }

        if self.chain_method == "parallel":
            return jax.pmap(one_chain, in_axes=(0, None, None))
        return jax.jit(jax.vmap(one_chain, in_axes=(0, None, None)))

    def _layout_key(self) -> tuple:
        """What the compiled code depends on besides its traced arguments (counts, priors)."""
        design = self.design
        return (
            self.model,
            self.num_chains,
            self.num_warmup,
            self.num_samples,
            self.chain_method,
            design.n_groups,
            design.positive.shape,
            design.positive.tobytes(),
            design.negative.tobytes(),
            design.group_index.tobytes(),
        )

    def _cached_compile(self, prior_params, counts):
        """Compiled code shared by every Sampler of the same layout and settings in this process:
        a second fit of data with the same response patterns (a new sample, another prior, the
        same table refitted) skips the compilation.  Runs with a progress bar compile their own,
        since the bar is part of the compiled code."""
        if self.progress:
            return self._compile(prior_params, counts)
        key = self._layout_key()
        if key in _COMPILED:
            _COMPILED.move_to_end(key)
        else:
            _COMPILED[key] = self._compile(prior_params, counts)
            if len(_COMPILED) > COMPILED_CACHE_SIZE:
                _COMPILED.popitem(last=False)
        return _COMPILED[key]

    @classmethod
    def for_complete_layout(
        cls, n_annotators: int, num_chains: int, num_warmup: int, num_samples: int
    ) -> Sampler:
        """A Dawid–Skene sampler on all 2^K response patterns of K fully observed annotators:
        every simulated data set of that shape fits on it (simulation studies)."""
        template = tabulate(
            np.zeros(1),
            np.zeros((1, n_annotators), np.int8),
            [f"a{j}" for j in range(n_annotators)],
            n_bins=1,
        )
        return cls(
            PatternDesign.from_counts(template, grouped=False, complete=True),
            "dawid_skene",
            num_chains,
            num_warmup,
            num_samples,
        )

    def fit(self, counts: CellStatistics, priors: Priors, seed: int) -> BayesFit:
        """Sample the posterior of ``counts`` (their patterns must be rows of this layout) and
        pack it, with these counts as the observed data, into a :class:`BayesFit`."""
        design = replace(
            self.design, counts=self.design.counts_of(counts, grouped=self.model == "hui_walter")
        )
        samples, extra = self.run(design.counts, priors, seed)
        return BayesFit.from_run(samples, extra, design, priors, self.model, counts.annotator_names)

    def run(self, counts: np.ndarray, priors: Priors, seed: int) -> SamplerRun:
        """Posterior samples and sample statistics, grouped by chain, as float64 numpy arrays."""
        with jax.enable_x64(True):
            prior_params = jnp.asarray(priors.as_array())
            counts = jnp.asarray(counts, dtype=jnp.float64)
            if self._compiled is None:
                self._compiled = self._cached_compile(prior_params, counts)
            keys = jax.random.split(jax.random.PRNGKey(seed), self.num_chains)
            samples, extra = self._compiled(keys, prior_params, counts)
            as_numpy = partial(jax.tree_util.tree_map, np.asarray)
            return SamplerRun(as_numpy(samples), as_numpy(extra))


#: Compiled samplers by layout and settings, least recently used first (see Sampler._cached_compile).
_COMPILED: OrderedDict = OrderedDict()
COMPILED_CACHE_SIZE = 16


def _progress_reporter(total: int, num_chains: int):
    """A host callback moving a tqdm bar to the iteration reached; a new bar opens at iteration 0.

    Vectorised chains call it once per report, parallel chains once per device: it only ever
    moves the bar forward, so both count right."""
    from tqdm import tqdm

    bars = []

    def report(index, every):
        if int(np.min(index)) == 0 and (not bars or bars[-1].n >= total):
            bars.append(
                tqdm(total=total, desc=f"NUTS ({num_chains} chains)", unit="it", leave=False)
            )
        bar = bars[-1]
        reached = min(int(np.max(index)) + int(every), total)
        if reached > bar.n:
            bar.update(reached - bar.n)
        if bar.n >= total:
            bar.close()

    report.bars = bars  # one per run, for inspection
    return report


@old_spellings()
def fit_bayes(
    data,
    *,
    model="dawid_skene",
    priors=None,
    num_chains=4,
    num_warmup=1000,
    num_samples=1000,
    seed=0,
    progress=True,
) -> BayesFit:
    """Sample the posterior of a channel model with NUTS.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        ``"dawid_skene"`` needs K >= 3 annotators (groups are ignored); ``"hui_walter"`` uses
        ``data.groups`` (K >= 3, or K = 2 with at least two score groups).  The (group,
        pattern) counts are all the model needs: cells of a table larger than memory
        (:func:`bayescal.cells.cell_statistics_from_frame`) serve as well.
    model : {"dawid_skene", "hui_walter"}, default "dawid_skene"
    priors : Priors, optional
        Default: flat Beta(1, 1) priors, conditioned on ``a_j < b_j`` (see :mod:`bayescal.priors`).
    num_chains, num_warmup, num_samples : int
        Chains run in parallel on CPU devices when ``jax.local_device_count() >= num_chains``
        (set ``numpyro.set_host_device_count`` or ``XLA_FLAGS`` before JAX starts), and as one
        vectorised computation otherwise.
    seed : int, default 0
    progress : bool, default True
        Show a progress bar when standard error is a terminal.

    Returns
    -------
    BayesFit
        A :class:`SamplingWarning` is issued when R-hat > 1.01, bulk or tail ESS < 400, or any
        transition diverged.

    Raises
    ------
    IdentificationError
        Before sampling, for a configuration the data cannot identify.
    """
    counts = as_counts(data)
    n_annotators = counts.patterns.shape[1]
    priors = Priors() if priors is None else priors
    if not isinstance(priors, Priors):
        raise TypeError(f"priors must be a bayescal.Priors; saw {type(priors).__name__}")
    num_chains = v.as_int(num_chains, "num_chains", minimum=1)
    num_warmup = v.as_int(num_warmup, "num_warmup", minimum=1)
    num_samples = v.as_int(num_samples, "num_samples", minimum=1)
    seed = v.as_seed(seed)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False; saw {progress!r}")
    model = v.as_choice(model, "model", tuple(MODELS))
    grouped = model == "hui_walter"
    require_identified(
        n_annotators, np.unique(counts.groups).size if grouped else 1, f"fit_bayes(model={model!r})"
    )
    check_annotators(counts)
    if grouped and n_annotators == 2:
        warn_if_groups_inseparable(counts, "fit_bayes(model='hui_walter')")
    design = PatternDesign.from_counts(counts, grouped=grouped)
    sampler = Sampler(
        design, model, num_chains, num_warmup, num_samples, progress and sys.stderr.isatty()
    )
    fit = sampler.fit(counts, priors, seed)
    check_diagnostics(fit.diagnostics)
    return fit


def _inference_data(
    samples: dict, extra: dict, design: PatternDesign, priors: Priors, model: str, names
) -> az.InferenceData:
    """Pack a :class:`Sampler` run into InferenceData (groups in the module docstring)."""
    a, b, prevalence = samples["a"], samples["b"], samples["prevalence"]
    grouped = prevalence.ndim == 3
    prevalence_of_row = (
        prevalence[..., design.group_index]
        if grouped
        else np.broadcast_to(prevalence[..., None], a.shape[:2] + design.counts.shape)
    )
    with jax.enable_x64(True):
        log_likelihood = np.asarray(
            pattern_log_prob(a, b, prevalence_of_row, design.positive, design.negative)
        )
    # Log prior density of every draw, per parameter, for power-scaling sensitivity (az.psens).
    # Like OrientedChannels.log_prob it omits the constant -log P(a < b): a constant changes no
    # power-scaling weight once the weights are normalised.
    log_prior = {
        "a": stats.beta.logpdf(a, *priors.false_positive),
        "b": stats.beta.logpdf(b, *priors.sensitivity),
        "prevalence": stats.beta.logpdf(prevalence, *priors.prevalence),
    }
    missing = 1.0 - design.positive - design.negative
    patterns = design.positive - missing  # 1, 0, or -1 for missing
    dims = {
        "a": ["annotator"],
        "b": ["annotator"],
        "counts": ["pattern"],
        "patterns": ["pattern", "annotator"],
        "pattern_group": ["pattern"],
    }
    if grouped:
        dims["prevalence"] = ["group"]
    coords = {
        "annotator": list(names),
        "group": design.group_ids.tolist(),
        "pattern": np.arange(design.counts.size),
    }
    idata = az.from_dict(
        posterior={"a": a, "b": b, "prevalence": prevalence},
        sample_stats={
            "diverging": extra["diverging"],
            "energy": extra["energy"],
            "n_steps": extra["num_steps"],
            "acceptance_rate": extra["accept_prob"],
        },
        log_likelihood={"counts": log_likelihood},
        observed_data={"counts": design.counts},
        constant_data={
            "counts": design.counts,
            "patterns": patterns.astype(np.int8),
            "pattern_group": design.group_ids[design.group_index],
        },
        coords=coords,
        dims=dims,
        attrs={
            "bayescal_model": model,
            "bayescal_priors": json.dumps(priors.to_dict()),
            "bayescal_version": __version__,
        },
    )
    # from_dict has no log_prior argument in ArviZ 0.23: add the group as az.psens expects it.
    idata.add_groups(log_prior=az.dict_to_dataset(log_prior, coords=coords, dims=dims))
    return idata
