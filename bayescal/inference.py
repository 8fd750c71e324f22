"""Run NUTS on a model of :mod:`bayescal.models` and return one posterior object (DESIGN.md §7).

:func:`fit_bayes` builds the pattern design from ``data.compress()``, checks identification
*before* sampling, samples in float64 (inside ``jax.enable_x64``, so the caller's JAX
configuration is untouched), runs the chains in parallel when there are enough CPU devices and
vectorised otherwise (never one after another), and packs the run into a
:class:`~bayescal.bayes_fit.BayesFit` (an ArviZ ``InferenceData`` with its diagnostics).
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from . import _validation as v
from ._api import old_spellings
from ._stack import hmc, initialize_model
from .bayes_fit import BayesFit, ChannelDraws, check_diagnostics
from .cells import CellStatistics, tabulate
from .channels._base import (
    as_counts,
    check_annotators,
    require_identified,
    warn_if_groups_inseparable,
)
from .models import PatternDesign, dawid_skene, hui_walter
from .priors import Priors

__all__ = ["MODELS", "BayesFit", "ChannelDraws", "Sampler", "fit_bayes"]

#: Model names and their programs.
MODELS = {"dawid_skene": dawid_skene, "hui_walter": hui_walter}


class SamplerRun(NamedTuple):
    """One run of a :class:`Sampler`: draws and sample statistics by name, grouped by chain."""

    samples: dict
    stats: dict


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
