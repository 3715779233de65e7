"""The one calibrator against brute force: on small domains, every monotone predicate's largest
(or smallest) admissible value is found exactly on integers, and on the admissible side within
rtol on floats; the budget searches built on it keep their pinned figures."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.errors import NumericalError
from synthcert.privacy.calibrate import calibrate, floor_within

small = st.integers(min_value=0, max_value=300)


class Counted:
    """A predicate that remembers where it was evaluated."""

    def __init__(self, test):
        self.test, self.seen = test, []

    def __call__(self, x):
        self.seen.append(x)
        return self.test(x)


@settings(max_examples=300, deadline=None)
@given(threshold=st.integers(min_value=-5, max_value=305), start=small, lower=small, upper=small)
def test_largest_integer_is_the_brute_force_boundary(threshold, start, lower, upper):
    admissible = Counted(lambda k: k <= threshold)
    found = calibrate(admissible, start, find="largest", lower=lower, upper=upper)
    brute = [k for k in range(lower, upper + 1) if admissible.test(k)]
    assert found == (max(brute) if brute else None)
    if found is not None:
        assert found in admissible.seen  # never interpolated: the budget test held there


@settings(max_examples=300, deadline=None)
@given(threshold=st.integers(min_value=-5, max_value=305), start=small, lower=small, upper=small)
def test_smallest_integer_is_the_brute_force_boundary(threshold, start, lower, upper):
    admissible = Counted(lambda n: n >= threshold)
    found = calibrate(admissible, start, find="smallest", lower=lower, upper=upper)
    brute = [n for n in range(lower, upper + 1) if admissible.test(n)]
    assert found == (min(brute) if brute else None)
    if found is not None:
        assert found in admissible.seen


@settings(max_examples=200, deadline=None)
@given(
    boundary=st.floats(min_value=1e-3, max_value=1e3),
    start=st.floats(min_value=1e-2, max_value=1e2),
    find=st.sampled_from(["largest", "smallest"]),
    with_slack=st.booleans(),
)
def test_float_boundary_is_kept_within_rtol(boundary, start, find, with_slack):
    rtol = 1e-9
    if find == "largest":
        admissible, slack = (lambda x: x <= boundary), (lambda x: x - boundary)
    else:
        admissible, slack = (lambda x: x >= boundary), (lambda x: boundary - x)
    found = calibrate(
        admissible,
        start,
        find=find,
        lower=1e-6,
        upper=1e6,
        integer=False,
        slack=slack if with_slack else None,
        rtol=rtol,
    )
    assert found is not None and admissible(found)  # on the admissible side, always
    assert math.isclose(found, boundary, rel_tol=4 * rtol)


def test_nothing_admissible_and_everything_admissible():
    assert calibrate(lambda k: False, 7, find="largest") is None
    assert calibrate(lambda n: False, 2, find="smallest", upper=1000) is None
    assert calibrate(lambda k: True, 7, find="largest", upper=40) == 40  # the bound is probed
    assert calibrate(lambda n: True, 9, find="smallest", lower=3) == 3
    x = calibrate(lambda s: True, 0.5, find="smallest", lower=1e-4, integer=False)
    assert x == 1e-4


def test_a_slack_that_disagrees_with_the_predicate_is_refused():
    with pytest.raises(NumericalError):
        calibrate(
            lambda x: x >= 10.0,
            1.0,
            find="smallest",
            integer=False,
            lower=1e-3,
            upper=1e3,
            slack=lambda x: 2.0 - x,  # root at 2, predicate boundary at 10: far apart
            rtol=1e-12,
        )


@settings(max_examples=200, deadline=None)
@given(
    limit=st.floats(min_value=0.0, max_value=50.0),
    per=st.floats(min_value=1e-3, max_value=10.0),
)
def test_floor_within_is_the_largest_count_in_budget(limit, per):
    k = floor_within(limit, per, lambda k: k * per <= limit)
    assert k * per <= limit or k == 0
    assert (k + 1) * per > limit or k == math.floor(limit / per)  # never above the floor
    assert k <= math.floor(limit / per)


def test_floor_within_refuses_a_meaningless_cost():
    assert floor_within(1.0, 0.0, lambda k: True) == 0
    assert floor_within(1.0, math.inf, lambda k: True) == 0
    assert floor_within(-1.0, 0.5, lambda k: True) == 0
