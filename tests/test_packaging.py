"""A plain `pip install .` must ship every package, `bayescal.models` included (DESIGN.md §1)."""

import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_the_package_and_the_models(tmp_path):
    # built from a copy of the project's files: setuptools builds in the source tree (build/,
    # *.egg-info), and a test must not write into the checkout
    source = tmp_path / "source"
    for name in ("pyproject.toml", "README.md"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    for package in ("bayescal", "models"):
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("bayescal-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"bayescal/{p.relative_to(ROOT / 'bayescal').as_posix()}"
        for p in (ROOT / "bayescal").rglob("*.py")
    }
    expected |= {
        f"bayescal/models/{p.relative_to(ROOT / 'models').as_posix()}"
        for p in (ROOT / "models").rglob("*.py")
    }
    assert "bayescal/models/__init__.py" in names
    assert expected <= names, sorted(expected - names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "bayescal = bayescal.app.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
