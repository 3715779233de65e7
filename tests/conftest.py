"""Shared fixtures: the reference datasets come from $SYNTHCERT_DATA_HOME or ../shared/data."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Under pytest-xdist (`make test`: one worker per core) the workers are the parallelism: each holds
# BLAS, OpenMP and torch to one thread, else two workers run four busy threads on two cores. Set
# before numpy or torch is imported (tests that need more threads raise the limit themselves).
if "PYTEST_XDIST_WORKER" in os.environ:
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import pytest
from hypothesis import settings

# Property tests are deterministic by default, so CI never fails on an example a previous run
# did not draw; HYPOTHESIS_PROFILE=explore searches fresh random examples on every run.
# No per-example deadline: on a loaded machine (two xdist workers on two cores) a 200 ms deadline
# fails a correct example for its wall time, which no property test asserts.
settings.register_profile("default", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parents[1]
_DEFAULT_DATA = REPO.parent / "shared" / "data"
if "SYNTHCERT_DATA_HOME" not in os.environ and _DEFAULT_DATA.is_dir():
    os.environ["SYNTHCERT_DATA_HOME"] = str(_DEFAULT_DATA)
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def data_home() -> Path:
    """The folder with adult.data and california_housing.csv (tests never download)."""
    home = Path(os.environ.get("SYNTHCERT_DATA_HOME", _DEFAULT_DATA))
    if not (home / "adult.data").is_file():
        pytest.fail(f"reference data not found in {home}; set SYNTHCERT_DATA_HOME")
    return home


@pytest.fixture(scope="session")
def adult(data_home):
    """The 30,162 complete rows of UCI Adult (all 15 columns)."""
    from synthcert.data.datasets import load_adult

    return load_adult(data_home)


@pytest.fixture(scope="session")
def adult_numeric(adult):
    """Adult's six numeric columns."""
    from synthcert.data.datasets import ADULT_NUMERIC

    return adult[ADULT_NUMERIC]


@pytest.fixture(scope="session")
def california(data_home):
    """The 20,433 complete rows of California Housing."""
    from synthcert.data.datasets import load_california_housing

    return load_california_housing(data_home)


# deterministic generated tables with the traits of real ones (tests/fixtures/real_tables.py)
sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
