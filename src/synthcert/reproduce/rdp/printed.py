"""The values Miura et al. print (seed 000 Tables 1-2, thesis seed 003 Table 5.2 and §5.5.4).

Settings and printed figures only, as strings where the number of printed digits matters (a
match is judged at the printed precision, ``matching.py``). None stands for a printed "–".
"""

from __future__ import annotations

import numpy as np

D, SIGMA = 6, 0.01
# The paper's tables and figures are reproduced with its own bounded certificate (Corollary 3.2);
# the exact bounded certificate is compared with it in ``table_paper_vs_exact``.
PAPER = "corollary"
NS = (10**4, 10**5, 10**6, 10**7, 10**8)

# Table 1 of seed 000 (n ≤ 10^7) and thesis Table 5.1 (adds 10^8). None = printed "–".
TABLE1 = {
    "unbounded": ("3535.17", "62.5859", "5.8064", "0.5764", "0.058"),
    "bounded": (None, "266.7349", "23.3577", "2.3071", "0.23"),
}
# Table 2 of seed 000: rows α, columns δ; Mironov's conversion at fixed α.
T2_ALPHAS = (2, 4, 7, 10, 20, 30)
T2_DELTAS = (1e-2, 1e-5, 1e-10, 1e-15, 1e-20)
TABLE2 = {
    (10**6, "unbounded"): (
        (7.499, 14.407, 25.920, 37.433, 48.946),
        (7.341, 9.644, 13.482, 17.319, 21.157),
        (10.978, 12.130, 14.048, 15.967, 17.886),
        (15.170, 15.937, 17.217, 18.496, 19.775),
        (30.046, 30.410, 31.016, 31.622, 32.228),
        (45.624, 45.863, 46.260, 46.657, 47.054),
    ),
    (10**6, "bounded"): (
        (16.209, 23.116, 34.629, 46.142, 57.655),
        (24.893, 27.195, 31.033, 34.871, 38.708),
        (42.046, 43.198, 45.116, 47.035, 48.954),
        (60.070, 60.838, 62.117, 63.396, 64.675),
        (123.482, 123.846, 124.452, 125.058, 125.663),
        (191.710, 191.948, 192.345, 192.742, 193.139),
    ),
    (10**7, "unbounded"): (
        (4.893, 11.801, 23.314, 34.827, 46.340),
        (2.112, 4.414, 8.252, 12.089, 15.927),
        (1.777, 2.928, 4.847, 6.766, 8.685),
        (1.954, 2.722, 4.001, 5.280, 6.559),
        (3.132, 3.496, 4.102, 4.708, 5.313),
        (4.500, 4.739, 5.136, 5.533, 5.930),
    ),
    (10**7, "bounded"): (
        (5.758, 12.666, 24.179, 35.692, 47.205),
        (3.842, 6.145, 9.982, 13.820, 17.658),
        (4.809, 5.960, 7.879, 9.798, 11.717),
        (6.291, 7.058, 8.337, 9.617, 10.896),
        (11.838, 12.201, 12.807, 13.413, 14.019),
        (17.608, 17.846, 18.243, 18.640, 19.037),
    ),
}
# Thesis Table 5.2: n_out allowed by (α = 4, ε = 1)-RDP; the thesis rounds to nearest.
TABLE52 = {
    "unbounded": ("3", "1598", "1.72e5", "1.73e7", "1.74e9"),
    "bounded": ("0", "375", "4.28e4", "4.33e6", "4.34e8"),
}
# Thesis §5.5.4 text: (ε, δ)-DP with α optimised, n_in = n_out, δ ∈ {10^-10, 1/n²}.
THESIS_554 = {
    ("unbounded", 10**6): ("13.03", "14.14"),
    ("unbounded", 10**7): ("3.79", "4.46"),
    ("unbounded", 10**8): ("1.23", "1.71"),
    ("bounded", 10**6): ("29.03", "31.2"),
    ("bounded", 10**7): ("7.87", "9.21"),
    ("bounded", 10**8): ("2.36", "2.97"),
}
# The order grid that reproduces the thesis's optimised values (found by search, see summary).
THESIS_ALPHA_GRID = np.round(np.arange(1.1, 30.0001, 0.1), 10)
