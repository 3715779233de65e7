"""``synthcert reproduce rdp``: write the tables (CSV), the figures (PNG) and the summary."""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from synthcert.data.io import atomic_write_path, write_text
from synthcert.reproduce.rdp.figures import (
    figure_alpha_eps,
    figure_dp_bars,
    figure_eps_vs_d,
    figure_eps_vs_sigma,
)
from synthcert.reproduce.rdp.markdown import summary_markdown
from synthcert.reproduce.rdp.tables import (
    table1,
    table2,
    table52,
    table_paper_vs_exact,
    thesis_554,
)
from synthcert.reproduce.written import Written


@dataclass(frozen=True)
class Reproduction(Written):
    """Where the outputs went (:class:`~synthcert.reproduce.written.Written`) and how many
    printed values matched.

    Attributes
    ----------
    matched, compared : int
        Printed values matched (or explained as truncation/rounding), of all compared.
    differing : tuple of str
        The printed values not matched.
    seconds : float
        Wall time.
    """

    matched: int
    compared: int
    differing: tuple[str, ...]
    seconds: float


def _write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Write a CSV atomically."""
    with atomic_write_path(path) as tmp, open(tmp, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def reproduce_rdp(
    out_dir: str | Path, *, figures: bool = True, progress: Callable[[str], None] | None = None
) -> Reproduction:
    """Write the CSVs, the Markdown summary and the PNG figures into ``out_dir``.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        Directory (created if needed).
    figures : bool
        Also draw the PNG figures (the slow part).
    progress : callable, optional
        Called with the name of each step.

    Returns
    -------
    Reproduction
        The files written and how many printed values matched.

    Examples
    --------
    >>> import tempfile
    >>> res = reproduce_rdp(tempfile.mkdtemp(), figures=False)  # doctest: +SKIP
    >>> res.matched, res.compared  # doctest: +SKIP
    (150, 152)
    """
    start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    step = progress or (lambda _msg: None)
    files: list[Path] = []

    step("Table 1")
    t1 = table1()
    step("Table 2")
    t2 = table2()
    step("Table 5.2")
    t52 = table52()
    step("§5.5.4")
    t554 = thesis_554()
    step("paper vs exact")
    tex = table_paper_vs_exact()
    for name, rows in (("table1", t1), ("table2", t2), ("table5_2", t52), ("thesis_5_5_4", t554),
                       ("paper_vs_exact", tex)):  # fmt: skip
        path = out / f"{name}.csv"
        _write_csv(path, list(rows[0].keys()), [list(r.values()) for r in rows])
        files.append(path)
    if figures:
        for d in (6, 9):
            step(f"Figure 5.3 (d = {d})")
            files.append(figure_alpha_eps(out, d))
        step("Figures 5.4 and 5.8")
        files.append(figure_eps_vs_d(out))
        files.append(figure_eps_vs_sigma(out))
        for n in (10**6, 10**7, 10**8):
            step(f"Figure bars n = {n:.0e}")
            files.append(figure_dp_bars(out, n, t554))
    seconds = time.perf_counter() - start
    files.append(write_text(summary_markdown(t1, t2, t52, t554, seconds, tex), out / "summary.md"))
    compared = [*t1, *t2, *t52, *t554]
    differing = tuple(
        f"{r.get('neighboring')} n={r.get('n')} printed {r.get('printed')}"
        for r in compared
        if not r["match"]
    )
    return Reproduction(
        out_dir=str(out),
        files=tuple(str(f) for f in files),
        matched=len(compared) - len(differing),
        compared=len(compared),
        differing=differing,
        seconds=time.perf_counter() - start,
    )
