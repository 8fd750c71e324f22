"""An InferenceData as a netCDF file, read and written without ArviZ or xarray.

The layout is ArviZ's (``InferenceData.to_netcdf`` / ``arviz.from_netcdf``): the
InferenceData's attributes on the root group, one netCDF4 group per InferenceData group, each
dimension with its coordinate variable, numeric variables compressed, booleans stored as int8
with the attribute ``dtype = "bool"`` (xarray's convention), strings as variable-length UTF-8.
``arviz.from_netcdf`` reads what :func:`write` writes, and :func:`read` reads what ArviZ writes.

Why not ArviZ or xarray: importing ArviZ costs two seconds, and xarray imports Dask (half a
second more) whenever Dask is installed; ``bayescal fit`` writes ``posterior.nc`` and its report
reads it back, with h5netcdf (HDF5) alone.  :meth:`Group.to_xarray` builds the datasets of an
``InferenceData`` when one is asked for (``BayesFit.idata``).
"""

from __future__ import annotations

import datetime
import pathlib
from dataclasses import dataclass

import numpy as np

from .._version import __version__

__all__ = ["Group", "group_maker", "read", "write"]


@dataclass(frozen=True, eq=False)
class Group:
    """One group of an InferenceData as arrays.

    Attributes
    ----------
    variables : dict
        Name -> ``(dims, values)``, ``dims`` a tuple of dimension names.
    coords : dict
        Dimension name -> its labels (every dimension a variable uses has some).
    attrs : dict
        The group's attributes.
    """

    variables: dict
    coords: dict
    attrs: dict

    def to_xarray(self):
        """The group as an ``xarray.Dataset``."""
        import xarray as xr

        return xr.Dataset(dict(self.variables), coords=dict(self.coords), attrs=dict(self.attrs))


def group_maker(coords: dict):
    """``make(variables) -> Group``: a group of ``variables`` (name -> ``(dims, values)``) with
    the labels in ``coords`` of the dimensions they use, and ArviZ's attributes of a group (when
    and by what it was made)."""
    stamp = {
        "created_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "inference_library": "bayescal",
        "inference_library_version": __version__,
    }

    def make(variables: dict) -> Group:
        used = {dim for dims, _ in variables.values() for dim in dims}
        return Group(variables, {d: c for d, c in coords.items() if d in used}, stamp)

    return make


def write(path, attrs: dict, groups: dict, run: dict | None = None) -> None:
    """Write ``groups`` (name -> :class:`Group`) and the root ``attrs`` to ``path`` (netCDF4);
    ``run`` adds entries as ``bayescal_<name>`` attributes (a results folder's ``run_id`` and
    ``input_sha256``)."""
    import h5netcdf

    folder = pathlib.Path(path).parent
    if not folder.is_dir():  # h5py would say "unable to synchronously create file"
        raise FileNotFoundError(
            f"path: no folder {str(folder)!r} to save {pathlib.Path(path).name!r} in; "
            "create it first"
        )
    extra = {f"bayescal_{name}": str(value) for name, value in (run or {}).items()}
    with h5netcdf.File(path, "w") as file:
        file.attrs.update({**attrs, **extra})
        for name, group in groups.items():
            node = file.create_group(name)
            node.dimensions = {dim: len(labels) for dim, labels in group.coords.items()}
            for dim, labels in group.coords.items():
                _create(node, dim, (dim,), np.asarray(labels))
            for variable, (dims, values) in group.variables.items():
                _create(node, variable, tuple(dims), np.asarray(values))
            node.attrs.update(group.attrs)


def _create(node, name: str, dims: tuple, values: np.ndarray) -> None:
    """One variable, numbers compressed as ArviZ compresses them."""
    import h5py

    attrs, options = {}, {"compression": "gzip"}
    if values.dtype.kind in "UO":
        values, options = values.astype(object), {"dtype": h5py.string_dtype()}
    elif values.dtype.kind == "b":
        values, attrs = values.astype(np.int8), {"dtype": "bool"}
    node.create_variable(name, dims, data=values, **options).attrs.update(attrs)


def read(path) -> tuple[dict, dict]:
    """The root attributes and every group (name -> :class:`Group`) of the netCDF4 file
    ``path``, as :func:`write` or ArviZ wrote it.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` naming the file when it
    is not a netCDF4/HDF5 file.
    """
    import h5netcdf

    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        file = h5netcdf.File(path, "r")
    except OSError as error:
        raise ValueError(f"{path}: not a netCDF file of a posterior ({error})") from None
    with file:
        groups = {name: _read_group(node) for name, node in file.groups.items()}
        return dict(file.attrs), groups


def _read_group(node) -> Group:
    variables, coords = {}, {}
    for name, variable in node.variables.items():
        values, attrs = variable[...], dict(variable.attrs)
        if values.dtype.kind == "O":  # variable-length strings come back as bytes
            values = np.array([v.decode() if isinstance(v, bytes) else v for v in values.flat])
            values = values.reshape(variable.shape)
        if attrs.pop("dtype", None) == "bool":
            values = values.astype(bool)
        if variable.dimensions == (name,):
            coords[name] = values
        else:
            variables[name] = (variable.dimensions, values)
    return Group(variables, coords, dict(node.attrs))
