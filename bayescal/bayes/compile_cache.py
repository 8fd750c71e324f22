"""Compiled NUTS samplers kept on disk, so that a new process skips tracing and compilation.

A sampler is compiled once per *layout* (model, number of annotators and groups, padded
number of pattern rows, warm-up length, chunk length, chains and devices); the data and the
priors are arguments of the compiled code.  The first process to need a layout compiles it and
writes the executable here (``jax.experimental.serialize_executable``); later processes load it
in a fraction of a second, and the draws are the same bit for bit (the same executable runs).
JAX's own configuration is never changed: this stores bayescal's executables, nothing else.

Where: ``$BAYESCAL_CACHE_DIR`` if set, else the platform's per-user cache folder
(``platformdirs.user_cache_dir("bayescal")``, e.g. ``~/.cache/bayescal`` on Linux), in a
``samplers`` subfolder.  ``BAYESCAL_CACHE_DIR=off`` (what ``bayescal --no-cache`` sets) turns
the cache off.

Safety: a file is written to a temporary name and renamed into place, so concurrent processes
never see half a file (the last writer of identical content wins).  Each file starts with its
full key (versions of Python, JAX, jaxlib, NumPyro and bayescal, a digest of the source files
the compiled program is written in, the CPU and the layout): a file that does not match, cannot
be read or cannot be loaded is ignored (and recompiled over), never an error.  Executables are machine code for this CPU; only load folders this user wrote.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import pickle
import platform
import sys
import tempfile

__all__ = ["CACHE_ENV", "cache_directory", "load", "program_digest", "store"]

#: Environment variable naming the cache folder; the value ``off`` disables the cache.
CACHE_ENV = "BAYESCAL_CACHE_DIR"
#: Bump when the stored format changes.
FORMAT = 3


def cache_directory() -> pathlib.Path | None:
    """The folder holding compiled samplers, or ``None`` when the cache is off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None and configured.strip().lower() == "off":
        return None
    if configured:
        return pathlib.Path(configured).expanduser() / "samplers"
    import platformdirs

    return pathlib.Path(platformdirs.user_cache_dir("bayescal")) / "samplers"


def _machine() -> str:
    """What compiled machine code depends on: the CPU model and its feature flags."""
    try:
        with open("/proc/cpuinfo") as info:
            lines = [ln for ln in info if ln.startswith(("model name", "flags"))][:2]
    except OSError:  # not Linux: the processor string is what there is
        lines = [platform.processor()]
    return platform.machine() + "".join(lines)


def full_key(layout: tuple) -> str:
    """The layout and everything else the executable depends on, as one string."""
    import jax
    import jaxlib
    import numpyro

    from .._version import __version__

    versions = (sys.version, jax.__version__, jaxlib.__version__, numpyro.__version__, __version__)
    return repr((FORMAT, versions, program_digest(), _machine(), layout))


@functools.cache
def program_digest() -> str:
    """A digest of the files the compiled program is written in (the sampler, the models and
    the pattern likelihood they trace, :mod:`bayescal.channels.pattern_likelihood`,
    :mod:`bayescal.channels.dependence` and :mod:`bayescal.channels.difficulty`):
    an edited model never loads the executable of its previous version, whatever the version
    number says.  Read once a process, when :mod:`bayescal.bayes.sampler` is imported (with the
    models): files edited while a process runs must not label the program it has loaded, or
    that process would store its old program under the new files' key."""
    digest = hashlib.sha256()
    for file in digest_files():
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def digest_files() -> list[pathlib.Path]:
    """The files :func:`program_digest` reads: the sampler, the registry (which program a model
    runs, and its NUTS settings), the models, and the pattern likelihood the programs trace
    (measured: an edited quadrature rule kept loading the old executable until
    :mod:`bayescal.channels.difficulty` was among them)."""
    from .. import models

    package = pathlib.Path(__file__).parents[1]
    files = [package / "bayes" / "sampler.py", package / "bayes" / "registry.py"]
    files += [
        package / "channels" / name
        for name in ("pattern_likelihood.py", "cyclic_joint.py", "dependence.py", "difficulty.py")
    ]
    return files + sorted(pathlib.Path(models.__file__).parent.glob("*.py"))


def _path(directory: pathlib.Path, key: str) -> pathlib.Path:
    return directory / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.sampler"


def load(layout: tuple, devices):
    """The compiled sampler stored for ``layout``, loaded onto ``devices``, or ``None``."""
    directory = cache_directory()
    if directory is None:
        return None
    key = full_key(layout)
    try:
        stored_key, blob, in_tree, out_tree = pickle.loads(_path(directory, key).read_bytes())
        if stored_key != key:  # a hash collision or a file from elsewhere
            return None
        from jax.experimental.serialize_executable import deserialize_and_load

        return deserialize_and_load(blob, in_tree, out_tree, execution_devices=devices)
    except Exception:  # absent, truncated, foreign or stale: compile instead
        return None


def store(layout: tuple, compiled) -> bool:
    """Write a compiled sampler for later processes; ``False`` when it could not be stored."""
    directory = cache_directory()
    if directory is None:
        return False
    key = full_key(layout)
    try:
        from jax.experimental.serialize_executable import serialize

        blob, in_tree, out_tree = serialize(compiled)
        content = pickle.dumps((key, blob, in_tree, out_tree), protocol=pickle.HIGHEST_PROTOCOL)
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".partial")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(content)
            os.replace(temporary, _path(directory, key))
        finally:
            pathlib.Path(temporary).unlink(missing_ok=True)
    except Exception:  # a read-only or full disk costs the next process a compilation, no more
        return False
    return True
