"""The one chunk size, and the chunk arithmetic every reader and sampler shares."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synthcert import engine
from synthcert.engine.counts import EngineCounts
from synthcert.engine.plan import iter_partition
from synthcert.errors import ParameterError
from synthcert.statistics import CHUNK_ROWS, chunk_sizes
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.workflows import Execution


def default(func, name="chunk_rows"):
    return inspect.signature(func).parameters[name].default


def test_one_default_everywhere_and_it_is_the_size_that_defines_m_g_rows():
    # 2^19 rows: the chunk of M_G's rows for a seed since the first release; cannot change
    assert CHUNK_ROWS == 524_288 == 2**19
    users = [
        GaussianSynthesizer.__init__,
        engine.fit_moments,
        engine.histograms,
        engine.marginals,
        iter_partition,
        EngineCounts.__init__,
        Execution.__init__,  # the release's chunk size (synthcert.workflows)
    ]
    assert [default(f) for f in users] == [CHUNK_ROWS] * len(users)


@given(st.integers(0, 10_000), st.integers(1, 3_000))
def test_chunk_sizes_cover_the_rows_in_full_chunks_then_the_rest(n, size):
    sizes = chunk_sizes(n, size)
    assert sum(sizes) == n
    assert len(sizes) == -(-n // size)
    assert all(s == size for s in sizes[:-1])
    assert all(0 < s <= size for s in sizes)


def test_chunk_sizes_match_the_gaussian_chunking():
    synth = GaussianSynthesizer(engine_schema(), chunk_rows=1000)
    for n in (0, 1, 999, 1000, 1001, 4567):
        assert chunk_sizes(n, 1000) == synth._chunk_sizes(n)


def test_chunk_sizes_refuse_negative_rows_and_empty_chunks():
    with pytest.raises(ParameterError, match="non-negative"):
        chunk_sizes(-1, 10)
    with pytest.raises(ParameterError, match="at least 1"):
        chunk_sizes(10, 0)


def engine_schema():
    from synthcert.data.datasets import demo_schema

    return demo_schema()
