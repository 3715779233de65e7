"""A DP integer flag: whether a numeric column holds whole numbers, from two noisy counts.

``schema infer`` reads a column's ``integer`` flag from the data (``"integer_source":
"data"``): one record of 37.5 among whole ages flips it, so a DP run may not publish it. The
public rule of ``--param private_domain`` (:func:`synthcert.privacy.domain.flag_rule`) used to
model every such column as real numbers, and a new user's ages, stays and quantities came out
as 46.1975 and 1.0139. Here the flag is estimated instead, with a part of the column's budget:

* **Counts (private).** w = the column's present values that are whole numbers, f = those that
  are not (an infinite value counts as not whole); a missing or unparsable value counts in
  neither.
* **Sensitivity.** One record is in at most one of the two counts, so (w, f) is a histogram of
  two public buckets: adding or removing a record moves one count by 1 (Delta_1 = Delta_2 = 1),
  replacing it one unit between them (Delta_1 = 2, Delta_2 = sqrt 2):
  :func:`synthcert.privacy.magnitude_bounds.sensitivities`.
* **Noise.** The route of the domain step's buckets: discrete Laplace of scale Delta_1 / epsilon
  (pure) or discrete Gaussian of sigma^2 = Delta_2^2 / (2 rho) (zCDP), one draw per count
  (:func:`synthcert.privacy.mechanisms.laplace_mechanism` / ``gaussian_mechanism``).
* **Decision (post-processing).** Whole numbers iff the noisy f stays below T_f, the threshold
  an empty count passes with probability at most :data:`KEEP_FAILURE`, and the noisy w reaches
  T_w, the one an empty count passes with probability at most :data:`ROUND_FAILURE`
  (:func:`synthcert.privacy.magnitude_bounds.threshold` with one bucket). So a column of whole
  numbers holding at least about 2 T_w of them is declared whole with probability about
  1 - KEEP_FAILURE, and a column with no whole value at most ROUND_FAILURE of the time; a
  column with few values of either kind stays real-valued (the former rule). A column declared
  whole is decoded to whole numbers, and its DP bounds are rounded outwards.

The flag is published only as part of the DP schema (a function of the noisy counts).
"""

from __future__ import annotations

import numpy as np

from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.magnitude_bounds import noisy_histogram, threshold

MECHANISM = "noisy whole/fractional counts (data-derived integer flags)"
PART = 0.2  # of a column's bucket budget spent on its integer test (the buckets keep the rest)
KEEP_FAILURE = 0.01  # a column of whole numbers stays below T_f with at least 1 - this
ROUND_FAILURE = 1e-3  # a column with no whole value reaches T_w with at most this
Rng = np.random.Generator


def whole_counts(x: np.ndarray) -> np.ndarray:
    """(w, f): the present values of ``x`` that are whole numbers, and those that are not
    (private)."""
    x = np.asarray(x, dtype=np.float64)
    present = x[~np.isnan(x)]
    whole = int(np.count_nonzero(np.isfinite(present) & (present == np.floor(present))))
    return np.array([whole, present.size - whole], dtype=np.int64)


def dp_integer(
    counts: np.ndarray,
    noise: str,
    budget: float,
    *,
    neighboring: str,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
    name: str = MECHANISM,
) -> bool:
    """Whether the column is whole-numbered, from its (w, f) counts (module docstring).

    ``budget`` is epsilon (``noise="laplace"``) or rho (``"gaussian"``); the mechanism is
    recorded in ``accountant``. Everything after the noise is post-processing.
    """
    noisy = noisy_histogram(
        counts, 2, noise, budget, neighboring=neighboring, rng=rng, accountant=accountant,
        name=name,
    )  # fmt: skip
    t_fraction = threshold(noise, budget, neighboring, KEEP_FAILURE, buckets=1)
    t_whole = threshold(noise, budget, neighboring, ROUND_FAILURE, buckets=1)
    return bool(noisy[1] < t_fraction and noisy[0] >= t_whole)


__all__ = [
    "KEEP_FAILURE",
    "MECHANISM",
    "PART",
    "ROUND_FAILURE",
    "dp_integer",
    "whole_counts",
]
