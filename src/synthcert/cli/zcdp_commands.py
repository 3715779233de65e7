"""`synthcert account-univariate` and `synthcert reproduce neunhoeffler` (seed 004)."""

from __future__ import annotations

from pathlib import Path

import typer

from synthcert.cli._app import privacy_command, reproduce_app
from synthcert.cli._claims import univariate_claim, with_claim
from synthcert.cli._common import (
    console,
    emit_json,
    handle_errors,
    key_value_table,
    parse_count,
    parse_float,
    progress_bar,
    risk_row,
)


@privacy_command("account-univariate")
@handle_errors
def account_univariate(
    bound: str = typer.Option(
        ..., "--bound", help="Public clamping bound b: every value is clamped to [-b, b]."
    ),
    n: str = typer.Option(..., "--n", help="Number of original records (e.g. 1000 or 1e6)."),
    n_syn: str = typer.Option(..., "--n-syn", help="Synthetic records per copy."),
    m: str = typer.Option("1", "--m", help="Number of synthetic copies released."),
    sigma: str | None = typer.Option(
        None,
        "--sigma",
        help="Public (known) standard deviation sigma of the synthesis model; the variance is "
        "sigma^2 (§4.1, §4.2).",
    ),
    sigma_lower: str | None = typer.Option(
        None,
        "--sigma-lower",
        help="Unknown variance (§4.3): a public lower bound on the sample standard deviation; "
        "the synthesizer draws from N(mean, s^2).",
    ),
    bayesian: bool = typer.Option(
        False, "--bayesian", help="Bayesian synthesis: each copy draws its mean from the posterior."
    ),
    delta: str = typer.Option("1e-6", "--delta", help="delta of the (epsilon, delta) figure."),
    conversion: str = typer.Option(
        "cks",
        "--conversion",
        help="zCDP -> (epsilon, delta): 'cks' (Canonne-Kamath-Steinke, tight; alias 'tight') or "
        "'bun-steinke' (rho + 2 sqrt(rho log 1/delta), the paper's §2).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Privacy of univariate Gaussian synthesis (seed 004, §4): rho-zCDP and (epsilon, delta).

    Example: synthcert privacy account-univariate --bound 4 --n 1000 --n-syn 15625 --sigma 1
    gives rho = 0.5 (Figure 1 of the paper).
    """
    from synthcert.privacy.gaussian_zcdp import univariate_guarantee

    if (sigma is None) == (sigma_lower is None):
        raise typer.BadParameter("give exactly one of --sigma and --sigma-lower")
    result = univariate_guarantee(
        parse_float(bound),
        parse_count(n),
        parse_count(n_syn),
        parse_count(m),
        sigma=None if sigma is None else parse_float(sigma),
        sigma_lower=None if sigma_lower is None else parse_float(sigma_lower),
        bayesian=bayesian,
        delta=parse_float(delta),
        conversion=conversion,  # type: ignore[arg-type]
    )
    if as_json:
        emit_json(with_claim(result, univariate_claim(result)))
        return
    rows = [
        ("synthesis", result.synthesis),
        ("rho (zCDP)", result.rho),
        ("epsilon", result.epsilon),
        ("delta", result.delta),
        ("accounting", result.accounting),
        *result.components.items(),
    ]
    if result.note:
        rows.append(("note", result.note))
    rows.append(risk_row(result.claim))
    console.print(key_value_table("Univariate Gaussian synthesis (seed 004)", rows))


@reproduce_app.command("neunhoeffler")
@handle_errors
def reproduce_neunhoeffler(
    out: Path = typer.Option(Path("neunhoeffler"), "--out", help="Folder for the PNG and tables."),
    repetitions: str = typer.Option(
        "2000", "--repetitions", help="Repetitions of the Figure 1 simulation."
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same output)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Figure 1 of seed 004 (n_syn = 15,625 at rho = 0.5) with a KS test, and an n_syn table."""
    from synthcert.reproduce.neunhoeffler import reproduce, table_markdown

    reps = parse_count(repetitions)
    if reps < 10:
        raise typer.BadParameter("--repetitions must be at least 10")
    with progress_bar(disable=as_json, unit="repetitions") as bar:
        task = bar.add_task("fig1", total=reps)
        result = reproduce(
            out, repetitions=reps, seed=seed, progress=lambda k: bar.advance(task, k)
        )
    if as_json:
        emit_json(result)
        return
    f = result.figure1
    console.print(
        key_value_table(
            "Figure 1 (seed 004): synthetic-data mean vs Gaussian-mechanism mean",
            [
                ("n_syn (paper: 15,625)", f["n_syn"]),
                ("sd of synthetic means", f["synthetic_sd"]),
                ("sd of mechanism means", f["mechanism_sd"]),
                ("theoretical sd Delta/sqrt(2 rho)", f["theoretical_sd"]),
                ("KS statistic", f["ks_statistic"]),
                ("KS p-value", f["ks_pvalue"]),
            ],
        )
    )
    console.print(table_markdown(result.table))
    console.print("wrote " + ", ".join(result.files))
