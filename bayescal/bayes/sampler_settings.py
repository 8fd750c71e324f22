"""How NUTS runs: the chains, the warm-up and kept draws of each, the seed and a progress bar,
in one typed object that every caller of the sampler shares.

:func:`bayescal.fit_bayes`, :func:`bayescal.analyse`, :func:`bayescal.prior_sensitivity` and
the simulation studies each take ``sampler=SamplerSettings(...)`` with defaults of their own
(a study runs shorter chains than a fit), and the same settings as keywords
(``num_chains=2``): a keyword given overrides ``sampler``'s field.  Importing this module
imports neither JAX nor NumPyro.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import _validation as v

__all__ = ["DEFAULT_EXTENSIONS", "MIN_SAMPLES", "SamplerSettings", "sampler_settings"]

#: The fewest kept draws a chain may have: split R-hat and ESS halve each chain and need two
#: draws in each half (with fewer, the run would fail after all its sampling).
MIN_SAMPLES = 4
#: The extensions a fit at the model's length of chains may run unless told otherwise
#: (``SamplerSettings.extensions``):
#: on a simulated crowd with adversarial workers, where 16% of fits at the model's 2 000 draws
#: fell short, twice and three times the draws mended most (benchmarks/RESULTS.md).
DEFAULT_EXTENSIONS = 2


@dataclass(frozen=True, kw_only=True)
class SamplerSettings:
    """The settings of a NUTS run.

    Parameters
    ----------
    num_chains : int, default 4
        Chains, spread over the CPU devices there are (one after another on a single device).
    num_warmup : int, default 1000
        Warm-up iterations of each chain.
    num_samples : int, optional
        Kept draws of each chain (at least :data:`MIN_SAMPLES`); default the model's
        (:attr:`bayescal.bayes.registry.ChannelModel.num_samples`): 1000, and 2000 for the
        hierarchical crowd model, whose population's spread mixes slowly.
    target_accept : float, optional
        NUTS's target acceptance rate during warm-up, in (0, 1): smaller steps, and fewer
        divergent transitions, the closer to 1.  Default the model's
        (:attr:`bayescal.bayes.registry.ChannelModel.target_accept`: 0.8; 0.95 for the
        shared-difficulty model, 0.99 for the hierarchical crowd model, 0.9 for the multi-class
        crowd model).  Raise it when a fit
        warns of divergent transitions.
    seed : int, default 0
        Seeds the chains (in a simulation study: the first replicate's seed).
    progress : bool, default True
        Show a progress bar where standard error is a terminal (in a study: one over the
        replicates).
    extensions : int, optional
        Times a fit's chains may continue, each by ``num_samples`` draws more, while R-hat
        exceeds 1.01 or a bulk or tail ESS is under 400 (each extension said in one line where
        progress is shown; a fit still short after the last warns as before).  Default
        :data:`DEFAULT_EXTENSIONS` when ``num_samples`` is the model's and 0 when
        ``num_samples`` is given: a length asked for is the length run.  Simulation studies
        never extend: they run the draws they name (a length chosen by the diagnostics would
        bias simulation-based calibration's ranks).
    """

    num_chains: int = 4
    num_warmup: int = 1000
    num_samples: int | None = None
    target_accept: float | None = None
    seed: int = 0
    progress: bool = True
    extensions: int | None = None

    @property
    def extension_limit(self) -> int:
        """The extensions a fit may run (``extensions``, or its default)."""
        if self.extensions is not None:
            return self.extensions
        return DEFAULT_EXTENSIONS if self.num_samples is None else 0

    def __post_init__(self) -> None:
        checked = {
            "num_chains": v.as_int(self.num_chains, "num_chains", minimum=1),
            "num_warmup": v.as_int(self.num_warmup, "num_warmup", minimum=1),
            # the compiled start takes it as an int64
            "seed": v.as_seed(self.seed, bits=63),
        }
        if self.target_accept is not None:
            checked["target_accept"] = v.as_open_probability(self.target_accept, "target_accept")
        if self.extensions is not None:
            checked["extensions"] = v.as_int(self.extensions, "extensions", minimum=0)
        if self.num_samples is not None:
            checked["num_samples"] = v.as_int(self.num_samples, "num_samples", minimum=1)
        if checked.get("num_samples", MIN_SAMPLES) < MIN_SAMPLES:
            raise ValueError(
                f"num_samples must be >= {MIN_SAMPLES}: R-hat and ESS split each chain in two "
                f"halves of at least 2 draws; saw {checked['num_samples']}"
            )
        if not isinstance(self.progress, bool):
            raise TypeError(f"progress must be True or False; saw {self.progress!r}")
        for name, value in checked.items():
            object.__setattr__(self, name, value)


def sampler_settings(sampler, defaults: SamplerSettings, **keywords) -> SamplerSettings:
    """The settings of one call: ``sampler`` (a :class:`SamplerSettings`, or None for the
    caller's ``defaults``) with each keyword that was given (not None) in place of its field."""
    if sampler is None:
        sampler = defaults
    elif not isinstance(sampler, SamplerSettings):
        raise TypeError(f"sampler must be a bayescal.SamplerSettings; saw {type(sampler).__name__}")
    return replace(
        sampler, **{name: value for name, value in keywords.items() if value is not None}
    )
