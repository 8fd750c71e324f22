"""The compiled NUTS sampler behind :func:`bayescal.fit_bayes`: one :class:`Sampler` per model
and pattern layout, compiled once (or loaded from :mod:`bayescal.bayes.compile_cache`), run chain by
chain over the CPU devices, in float64 inside ``jax.enable_x64``.  The sites a run records live
here too, beside the code that samples them; the models are :mod:`bayescal.bayes.registry`'s.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from .._api import abbreviated, announce, warn_caller
from ..data.cells import tabulate
from ..exceptions import SamplingWarning
from ..models import (
    CLASS_CROWD_START,
    POPULATION_SITES,
    START_VALUES,
    ClassPatternDesign,
    ClassResponseDesign,
    PatternDesign,
    ResponseDesign,
    class_majority_start,
    fold_orientation,
    majority_start,
    mirrored_chains,
    relabelled,
)
from ..models.stack import biject_to, constrain_fn, handlers, hmc, potential_energy
from . import compile_cache as _compile_cache
from .bayes_fit import ESS_MIN, RHAT_MAX, SHOWN_PARAMETERS, BayesFit, falls_short
from .class_fit import ClassBayesFit
from .priors import Priors
from .registry import ChannelModel, channel_model
from .sampler_settings import SamplerSettings

__all__ = [
    "Sampler",
    "SamplerRun",
    "chain_devices",
    "chain_method",
    "chunk_length",
    "padded_rows",
    "recorded_sites",
]

# the cache key's digest of the program's files, read with the modules just imported
_compile_cache.program_digest()


def recorded_sites(model: ChannelModel, design) -> tuple[str, ...]:
    """The sites a run keeps of each draw: the channels, the class proportion(s), the
    hierarchical model's population, and the dependent pairs' covariances; a multi-class
    model's confusion matrices and class proportions."""
    if model.multiclass:
        return ("confusion", "proportion")
    channels = ("a", "b", "prevalence") + (("covariance",) if design.n_pairs else ())
    if model.on_responses:
        return channels + POPULATION_SITES
    return channels + (("loading",) if design.difficulty else ())


class SamplerRun(NamedTuple):
    """One run of a :class:`Sampler`: draws and sample statistics by name, grouped by chain."""

    samples: dict
    stats: dict


class _Chains(NamedTuple):
    """Chains under way: their NUTS states, the compiled programs' shared arguments, and the
    kept draws and sample statistics so far (by name, grouped by chain)."""

    states: object
    shared: tuple
    draws: dict
    stats: dict


def chain_devices(num_chains: int) -> list:
    """The CPU devices the chains run on: as many as divide the chains evenly (each runs
    ``num_chains / len(devices)`` chains one after another), one device without extra ones."""
    available = jax.local_devices(backend="cpu")
    count = max(d for d in range(1, min(len(available), num_chains) + 1) if num_chains % d == 0)
    return available[:count]


def chain_method(devices: list) -> str:
    """``"parallel"`` when the chains are spread over several of :func:`chain_devices`,
    ``"sequential"`` on one."""
    return "parallel" if len(devices) > 1 else "sequential"


def padded_rows(n_rows: int) -> int:
    """Rows of a layout after padding, so that data sets of similar size share one compiled
    sampler: the next power of two (at least 8) up to :data:`FINE_PADDING_ROWS`; beyond, the
    next multiple of an eighth of the power of two below (at most 12.5% padding: a crowd's
    layout has a row per item, and padded rows cost as much as real ones)."""
    if n_rows <= FINE_PADDING_ROWS:
        return max(8, 1 << (n_rows - 1).bit_length())
    step = 1 << ((n_rows - 1).bit_length() - 4)
    return -(-n_rows // step) * step


#: Layouts up to this many rows are padded to a power of two (padded_rows).
FINE_PADDING_ROWS = 1024


#: How long a compilation takes, in seconds, as the line announcing one says: measured on two
#: cores (``benchmarks/progress_gaps.py``: 2.8 s for Dawid–Skene on four annotators, 5.6 s
#: for the hierarchical model of a crowd of 150 workers), with room for a slower machine.
COMPILE_SECONDS = (3, 10)
#: The warm-up runs in this many compiled chunks (:func:`chunk_length`).
WARMUP_CHUNKS = 20


def chunk_length(num_warmup: int) -> int:
    """Iterations per compiled call: the warm-up split into :data:`WARMUP_CHUNKS` chunks,
    rounded up, between which the progress bar moves.  It depends on the warm-up alone, so that
    one compiled sampler serves any number of draws (the number of draws would otherwise be
    part of the compiled layout: each setting a new compilation of several seconds).  The last
    chunk may run past the draws asked for, by less than a chunk (5% of the warm-up); those
    iterations are dropped."""
    return -(-num_warmup // WARMUP_CHUNKS)


class Sampler:
    """One compiled NUTS sampler for a model on a pattern layout.

    Why it is written this way (each measured on the caries data, benchmarks/RESULTS.md):

    - The chains are never vectorised (``vmap``): batching NUTS's data-dependent loops made
      tracing and compilation several times slower and made every chain wait for the longest
      tree.  Each CPU device runs its chains one after another, unbatched; with more than one
      device (``bayescal`` sets the count before JAX starts; in Python, set ``XLA_FLAGS`` or
      ``numpyro.set_host_device_count`` first), the chains are spread over them.
    - No ``numpyro.infer.initialize_model``: it compiled a search for valid initial values on
      every fit.  Chains start uniform in (-2, 2) on the unconstrained scale, as NumPyro's
      default does, and the potential is NumPyro's ``potential_energy``.
    - The layout is padded (:func:`padded_rows`): extra rows have no responses and count 0, so
      they add exactly 0 to the log-likelihood; no parameter is added.
    - The counts, the padded design and the prior parameters are arguments of the compiled
      code, not constants in it, so one executable serves every data set and prior of a layout:
      shared by Samplers in this process (a small LRU cache) and, across processes, kept on disk
      (:mod:`bayescal.bayes.compile_cache`).
    - The iterations run in compiled chunks (:func:`chunk_length`), and the progress bar moves
      between them, so the executable holds no host callback and can be stored.
    """

    def __init__(
        self,
        design: PatternDesign,
        model: ChannelModel | str,
        num_chains: int,
        num_warmup: int,
        num_samples: int | None,
        progress: bool = False,
        target_accept: float | None = None,
        extensions: int = 0,
    ):
        self.design = design
        #: The model (:mod:`bayescal.bayes.registry`), given by name in either spelling
        self.spec = model if isinstance(model, ChannelModel) else channel_model(model)
        self.model = self.spec.name
        self.num_chains = num_chains
        self.num_warmup = num_warmup
        #: Kept draws a chain and NUTS's target acceptance: the model's unless given
        self.num_samples = self.spec.num_samples if num_samples is None else num_samples
        self.target_accept = self.spec.target_accept if target_accept is None else target_accept
        self.progress = progress
        #: Times :meth:`fit` may continue the chains by their draws again while R-hat or ESS
        #: fall short (``SamplerSettings.extensions``)
        self.extensions = extensions
        self.devices = chain_devices(num_chains)
        self.chain_method = chain_method(self.devices)
        self.rows = padded_rows(design.counts.size)
        self.chunk = chunk_length(num_warmup)
        #: Where the compiled code came from: "compiled", "memory" or "disk".
        self.compiled_from = None
        self._compiled = None

    def _shared(self, design, priors: Priors) -> tuple:
        """The compiled programs' arguments: the prior parameters, the counts and the design's
        arrays, padded to :attr:`rows`."""
        padded = design.padded(self.rows)
        return tuple(_canonical(x) for x in (priors.as_array(), padded.counts, *padded.arrays()))

    def _layout_key(self) -> tuple:
        """What the compiled code depends on besides its arguments (the target acceptance among
        them: a fit at another must not load the code compiled for this one)."""
        return (
            self.model,
            self.target_accept,
            *self.design.layout(),
            self.rows,
            self.num_warmup,
            self.chunk,
            self.num_chains,
            len(self.devices),
        )

    def _chain_kernels(self, prior_params, counts, *arrays):
        """The program on the (padded) design, and NUTS's init and sample kernels for it."""
        program = partial(self.spec.load_program(), self.design.with_arrays(*arrays))
        arguments = ((prior_params,), {"counts": counts})
        init_kernel, sample_kernel = hmc(
            potential_fn=partial(potential_energy, program, *arguments), algo="NUTS"
        )
        return program, arguments, init_kernel, sample_kernel

    def _start(self, key, *shared, kernels=None):
        """A chain's first NUTS state: uniform in (-2, 2) on the unconstrained scale (NumPyro's
        ``init_to_uniform``; the sites of ``models.START_VALUES`` at their values; the pattern
        models' channels at the majority vote's, ``models.majority_start``, jittered by the
        same uniform quartered), then the kernel's own initialisation (which also sets up the
        sample kernel of the same ``kernels``: NumPyro's kernels share state)."""
        program, arguments, init_kernel, _ = kernels or self._chain_kernels(*shared)
        key_init, key_run = jax.random.split(key)
        shapes = _unconstrained_shapes(program, arguments)
        leaves, tree = jax.tree_util.tree_flatten(shapes)
        keys = jax.random.split(key_init, len(leaves))
        z = tree.unflatten(
            [
                jax.random.uniform(k, x.shape, x.dtype, minval=-2.0, maxval=2.0)
                for k, x in zip(keys, leaves)
            ]
        )
        # workers start oriented, loadings small (models.START_VALUES); the rest at random
        z |= {
            name: jnp.broadcast_to(jnp.asarray(value, shapes[name].dtype), shapes[name].shape)
            for name, value in START_VALUES.items()
            if name in shapes
        }
        # the pattern models' chains start near the majority vote's channels, every chain
        # on the same side of the mirror image (models.majority_start)
        if isinstance(self.design, PatternDesign):
            gold = self.design.has_gold
            _, counts, positive, negative = shared[:4]
            start = majority_start(
                positive, negative, counts, shared[5] if gold else None, prior_params=shared[0]
            )
            groups = shapes["channel"].shape[0] // start.shape[0]  # channels per score group
            z["channel"] = jnp.tile(start, (groups, 1)) + z["channel"] / 4.0
        elif isinstance(self.design, ClassPatternDesign):  # the majority vote's matrices
            _, counts, answers = shared[:3]
            gold = shared[3] if self.design.has_gold else None
            z["confusion"] = class_majority_start(answers, counts, gold) + z["confusion"] / 4.0
        elif isinstance(self.design, ClassResponseDesign):  # the population's centre
            for name, value in CLASS_CROWD_START.items():
                z[name] = value + z[name] / 4.0
        return init_kernel(
            z,
            self.num_warmup,
            rng_key=key_run,
            target_accept_prob=self.target_accept,
        )

    def _advance(self, state, *shared):
        """``chunk`` NUTS iterations of one chain from ``state``: the state reached, and each
        iteration's constrained draws and sample statistics."""
        kernels = self._chain_kernels(*shared)
        program, arguments, _, sample_kernel = kernels
        # NumPyro's sample kernel is configured by its init kernel (they share state): trace
        # the start abstractly for that; nothing of it is computed here.
        key = jax.ShapeDtypeStruct((2,), jnp.uint32)
        jax.eval_shape(lambda k: self._start(k, *shared, kernels=kernels), key)

        def step(state, _):
            state = sample_kernel(state)
            stats = (state.diverging, state.energy, state.num_steps, state.accept_prob)
            return state, (state.z, stats)

        state, (z, stats) = jax.lax.scan(step, state, None, length=self.chunk)
        draws = jax.lax.map(
            partial(constrain_fn, program, *arguments, return_deterministic=True), z
        )
        sites = recorded_sites(self.spec, self.design)
        return state, ({name: draws[name] for name in sites}, stats)

    def _over_devices(self, local, first_spec):
        """``local`` (this device's share of the chains) run on every device, compiled."""
        n_shared = 2 + len(self.design.arrays())  # prior parameters, counts, design arrays
        return jax.jit(
            jax.shard_map(
                local,
                mesh=Mesh(np.array(self.devices), ("chain",)),
                in_specs=(first_spec, *[P()] * n_shared),
                out_specs=P("chain"),
                check_vma=False,
            )
        )

    def _programs(self) -> dict:
        """The two compiled programs: ``start (seed, *shared) -> states`` and ``advance
        (states, *shared) -> (states, draws)``.  Each device runs its share of the chains one
        after another (``lax.map`` is a loop, not a batch)."""
        per_device = self.num_chains // len(self.devices)

        def start(seed, *shared):
            # every chain's key from the seed, here rather than by the caller: an eager JAX
            # call compiles on first use, which a process with a stored sampler would pay
            keys = jax.random.split(jax.random.PRNGKey(seed), self.num_chains)
            mine = jax.lax.dynamic_slice_in_dim(
                keys, jax.lax.axis_index("chain") * per_device, per_device
            )
            return jax.lax.map(lambda key: self._start(key, *shared), mine)

        def advance(states, *shared):
            return jax.lax.map(lambda state: self._advance(state, *shared), states)

        return {
            "start": self._over_devices(start, P()),
            "advance": self._over_devices(advance, P("chain")),
        }

    def _compile(self, seed, shared) -> dict:
        """Compile both programs at the same time: XLA compiles without the interpreter lock,
        so the start compiles while the advance is traced, and then both compile side by side
        (on two cores the wait is that of the advance alone)."""
        programs = self._programs()
        pool = ThreadPoolExecutor(max_workers=2)
        try:
            lowered = programs["start"].lower(seed, *shared)
            start = pool.submit(lowered.compile, compiler_options=COMPILER_OPTIONS)
            states = jax.eval_shape(programs["start"], seed, *shared)
            lowered = programs["advance"].lower(states, *shared)
            advance = pool.submit(lowered.compile, compiler_options=COMPILER_OPTIONS)
            return {"start": start.result(), "advance": advance.result()}
        finally:
            # never wait for a compilation nobody will use (Ctrl-C while compiling)
            pool.shutdown(wait=False, cancel_futures=True)

    def _compiled_programs(self, seed, shared) -> dict:
        """The compiled programs for this layout: from this process, from disk, or compiled
        now (and then stored for later processes)."""
        key = self._layout_key()
        if key in _COMPILED:
            _COMPILED.move_to_end(key)
            self.compiled_from = "memory"
            return _COMPILED[key]
        compiled = {part: _compile_cache.load((*key, part), self.devices) for part in PARTS}
        self.compiled_from = "disk"
        if any(program is None for program in compiled.values()):
            announce(
                f"compiling the sampler for this model and data layout (usually "
                f"{COMPILE_SECONDS[0]}-{COMPILE_SECONDS[1]} s; kept for later runs)",
                self.progress,
            )
            compiled = self._compile(seed, shared)
            for part, program in compiled.items():
                _compile_cache.store((*key, part), program)
            self.compiled_from = "compiled"
        _COMPILED[key] = compiled
        if len(_COMPILED) > COMPILED_CACHE_SIZE:
            _COMPILED.popitem(last=False)
        return compiled

    def observed(self, data):
        """The design of ``data`` on this sampler's layout: pattern counts (CellStatistics)
        for the pattern models, responses for the hierarchical one, multi-class
        AnnotatedScores for the multi-class models."""
        if isinstance(self.design, ClassPatternDesign | ClassResponseDesign):
            return self.design.observed(data)
        if isinstance(self.design, PatternDesign):
            return replace(self.design, counts=self.design.counts_of(data))
        return ResponseDesign.from_responses(data, pairs=self.design.pairs)

    def _check_layout(self, design) -> None:
        """Refuse a design this sampler's compiled code cannot run: another layout (number of
        annotators, groups, summed-out workers, row width) or more rows than it was padded to."""
        if design.layout() != self.design.layout() or design.counts.size > self.rows:
            raise ValueError(
                f"data of layout {design.layout()} with {design.counts.size} rows do not fit this "
                f"sampler's layout {self.design.layout()} of {self.rows} rows; build a Sampler for them"
            )

    def fit(self, data, priors: Priors, seed: int, *, item_ids=None) -> BayesFit:
        """Sample the posterior of ``data`` (:meth:`observed`) and pack it, with these data as
        the observed data and ``item_ids`` as their items' ids, into a :class:`BayesFit`.

        While the fit's R-hat or ESS fall short (:func:`~bayescal.bayes.bayes_fit.falls_short`),
        up to :attr:`extensions` times, every chain continues from where it stopped by
        :attr:`num_samples` draws more, said in one line: a slow direction (a crowd
        population's spread) reaches the diagnostics' bounds at about twice or three times the
        draws most fits need, and only the fits that need them pay for them.  Divergent
        transitions and constant draws are not cured by length: alone, they extend nothing."""
        design = self.observed(data)
        run = {"chain_method": self.chain_method, "devices": len(self.devices)}
        packed = ClassBayesFit if self.spec.multiclass else BayesFit

        def pack(chains: _Chains, extensions: int) -> BayesFit:
            samples, extra = self._finished(chains, design)
            return packed.from_run(
                samples,
                extra,
                design,
                priors,
                self.model,
                data.annotator_names,
                run=run | {"extensions": extensions},
                item_ids=item_ids,
            )

        chains = self._chains(design, priors, seed)
        run["compiled_from"] = self.compiled_from
        extension = 0
        while True:
            fit = pack(chains, extension)
            short = falls_short(fit.diagnostics) if extension < self.extensions else []
            if not short:
                break
            extension += 1
            announce(
                f"R-hat > {RHAT_MAX} or bulk or tail ESS < {ESS_MIN} for "
                f"{abbreviated(short, SHOWN_PARAMETERS)}: every chain continues by "
                f"{self.num_samples} draws (extension {extension} of at most {self.extensions})",
                self.progress,
            )
            chains = self._continued(chains)
        self._say_mirrored(chains, design)
        return fit

    def run(self, design, priors: Priors, seed: int) -> SamplerRun:
        """Posterior samples and sample statistics of ``design`` (this sampler's layout with
        the data to fit: e.g. ``replace(sampler.design, counts=...)``), grouped by chain, as
        float64 numpy arrays; :attr:`num_samples` draws a chain, never extended."""
        chains = self._chains(design, priors, seed)
        self._say_mirrored(chains, design)
        return self._finished(chains, design)

    def _chains(self, design, priors: Priors, seed: int) -> _Chains:
        """Every chain started and run through its warm-up and :attr:`num_samples` draws."""
        self._check_layout(design)
        with jax.enable_x64(True):
            shared = self._shared(design, priors)
            seed = np.int64(seed)
            if self._compiled is None:
                self._compiled = self._compiled_programs(seed, shared)
            states = self._compiled["start"](seed, *shared)
        return self._iterated(
            _Chains(states, shared, {}, {}), self.num_warmup + self.num_samples, self.num_warmup
        )

    def _continued(self, chains: _Chains) -> _Chains:
        """``chains`` continued by :attr:`num_samples` draws each."""
        return self._iterated(chains, self.num_samples, 0)

    def _iterated(self, chains: _Chains, iterations: int, warmup: int) -> _Chains:
        """``chains`` run ``iterations`` more iterations, of which the first ``warmup`` are
        dropped and the others' draws and statistics appended (a compiled chunk that runs past
        ``iterations``, by less than a chunk, has its last iterations dropped too: a chain
        continued after such a chunk is the same chain with those iterations unrecorded, and
        only when warm-up plus draws are a whole number of chunks is it a longer run's, draw for
        draw)."""
        states = chains.states
        with jax.enable_x64(True):
            # a bar redrawn in place needs a terminal; elsewhere (a notebook, a log) the
            # step's line says what runs
            bar = (
                _progress_bar(iterations, self.num_chains)
                if self.progress and sys.stderr.isatty()
                else None
            )
            pieces = []
            for done in range(0, iterations, self.chunk):
                states, piece = self._compiled["advance"](states, *chains.shared)
                # no copy to the host here: JAX queues the next chunk while this one runs, so
                # many short chunks cost what few long ones do (measured: 40 chunks 247 ms a
                # fit with a copy each, 148 ms without; 8 chunks 134 ms)
                pieces.append(piece)
                if bar is not None:  # the bar moves when a chunk has run, not when it is queued
                    jax.block_until_ready(states)
                    bar.update(min(self.chunk, iterations - done))
            if bar is not None:
                bar.close()
        draws, (diverging, energy, num_steps, accept_prob) = jax.tree_util.tree_map(
            lambda *parts: np.concatenate([np.asarray(part) for part in parts], axis=1)[
                :, warmup:iterations
            ],
            *pieces,
        )
        stats = {
            "diverging": diverging,
            "energy": energy,
            "num_steps": num_steps,
            "accept_prob": accept_prob,
        }
        if chains.draws:
            draws = {
                name: np.concatenate([chains.draws[name], draws[name]], axis=1) for name in draws
            }
            stats = {
                name: np.concatenate([chains.stats[name], stats[name]], axis=1) for name in stats
            }
        return _Chains(states, chains.shared, draws, stats)

    def _finished(self, chains: _Chains, design) -> SamplerRun:
        """The run of ``chains``: the multi-class models' classes relabelled, the folded
        models' draws oriented, the hierarchical model's mirrored chains left out
        (:meth:`_say_mirrored` says so)."""
        draws, stats = chains.draws, chains.stats
        if self.spec.multiclass:  # the classes the gold names keep their labels
            named = design.gold_classes()
            draws = draws if named.all() else relabelled(draws, fixed=named)
        elif self.spec.folded:
            draws = fold_orientation(draws, design)
        else:
            draws, stats = self._without_mirrored_chains(draws, stats, design)
        return SamplerRun(draws, stats)

    def _without_mirrored_chains(self, draws: dict, stats: dict, design) -> tuple[dict, dict]:
        """The hierarchical model's draws and statistics without the chains that settled in
        the mirror image of the posterior (:func:`~bayescal.models.mirrored_chains`)."""
        keep = ~mirrored_chains(draws, design)
        if keep.all():
            return draws, stats
        return (
            {name: value[keep] for name, value in draws.items()},
            {name: value[keep] for name, value in stats.items()},
        )

    def _say_mirrored(self, chains: _Chains, design) -> None:
        """One warning naming the hierarchical model's chains in the mirror image, if any
        (said of a run's final chains only: a fit's extensions see them again)."""
        if self.spec.multiclass or self.spec.folded:
            return
        mirrored = mirrored_chains(chains.draws, design)
        if not mirrored.any():
            return
        which = np.flatnonzero(mirrored)
        warn_caller(
            f"{self.spec.name}: chain{'s' if which.size > 1 else ''} "
            f"{', '.join(str(c) for c in which)} of {mirrored.size} settled in the mirror image "
            "of the posterior (every worker's gap reversed, a mode the population's orientation "
            f"makes far less probable) and {'are' if which.size > 1 else 'is'} left out; "
            f"{int((~mirrored).sum())} chain(s) remain. Run more chains to see how often a "
            "start strays there",
            SamplingWarning,
        )

    @classmethod
    def run_as(cls, design, model: ChannelModel | str, settings: SamplerSettings) -> Sampler:
        """The sampler of ``model`` on ``design`` run as ``settings`` say."""
        return cls(
            design,
            model,
            settings.num_chains,
            settings.num_warmup,
            settings.num_samples,
            settings.progress,
            settings.target_accept,
            settings.extension_limit,
        )

    @classmethod
    def for_complete_layout(cls, n_annotators: int, settings: SamplerSettings) -> Sampler:
        """A Dawid–Skene sampler, run as ``settings`` say, on all 2^K response patterns of K
        fully observed annotators: every simulated data set of that shape fits on it
        (simulation studies)."""
        template = tabulate(
            np.zeros(1),
            np.zeros((1, n_annotators), np.int8),
            [f"a{j}" for j in range(n_annotators)],
            n_bins=1,
        )
        model = channel_model("dawid_skene")
        # a study's bar runs over its replicates, not over each fit's iterations; its fits
        # run the draws it names, never a length its diagnostics chose
        return cls.run_as(
            model.pattern_design(template, complete=True),
            model,
            replace(settings, progress=False, extensions=0),
        )


def _canonical(array) -> np.ndarray:
    """``array`` as int64, float64 or bool: compiled code takes exactly the dtypes it was
    compiled with, and one layout's data may come as int32 (a response design's codes) or
    int64 (the same codes drawn by JAX in a simulation study); measured: an SBC's sampler
    refused the next fit of a crowd of the same layout with "Argument types differ"."""
    array = np.asarray(array)
    if array.dtype == np.bool_:
        return array
    if np.issubdtype(array.dtype, np.integer):
        return array.astype(np.int64, copy=False)
    return array.astype(np.float64, copy=False)


def _unconstrained_shapes(program, arguments: tuple) -> dict:
    """Shapes and dtypes of the program's latent sites on the unconstrained scale (traced
    abstractly: nothing runs)."""

    def unconstrained():
        trace = handlers.trace(handlers.seed(program, 0)).get_trace(*arguments[0], **arguments[1])
        return {
            name: biject_to(site["fn"].support).inv(site["value"])
            for name, site in trace.items()
            if site["type"] == "sample" and not site["is_observed"]
        }

    return jax.eval_shape(unconstrained)


#: XLA options of these compilations only (JAX's configuration is untouched): without LLVM's
#: expensive passes the sampler compiles in 3.2 s instead of 4.5 s on the caries data and runs
#: as fast (100 chunks: 1.45 s against 1.71 s; benchmarks/RESULTS.md).
COMPILER_OPTIONS = {"xla_llvm_disable_expensive_passes": True}
#: The two compiled programs of a sampler (Sampler._programs).
PARTS = ("start", "advance")
#: Compiled programs by layout and settings, least recently used first (see
#: Sampler._compiled_programs).
_COMPILED: OrderedDict = OrderedDict()
COMPILED_CACHE_SIZE = 16


def _progress_bar(total: int, num_chains: int):
    """A tqdm bar over the iterations of every chain (moved between compiled chunks)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=f"NUTS ({num_chains} chains)", unit="it", leave=False)
