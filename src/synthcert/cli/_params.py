"""``--param key=value``: the rare settings of a run, in one repeatable option.

``release`` and ``synthesize`` keep on their ``--help`` only what most runs set; the rest
(the number of rows, the secret seed, the engine, the neighbouring relation...) is a
``--param``. Each command declares the run settings it reads (:data:`RELEASE_PARAMS`,
:data:`SYNTHESIZE_PARAMS`); in ``synthesize`` every other key is a parameter of the
synthesizer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import typer

from synthcert.cli._options import deprecated

# run settings read by the workflow (not by a synthesizer), with their help
RUN_PARAMS: dict[str, str] = {
    "n_out": "rows to release (1e5 style accepted)",
    "seed": "a SECRET seed, for reproducing a run (written to the private record only)",
    "engine": "local, dask or a Dask scheduler address (tcp://HOST:PORT)",
}
RELEASE_PARAMS: dict[str, str] = {
    **RUN_PARAMS,
    "neighboring": "unbounded (default), bounded or bounded-direct",
    "ridge": "PUBLIC rho > 0: sample from N(mu, Sigma + rho I), no assumption on the data, "
    "instead of --sigma",
    "missing": "model (default), drop or fail",
    "certificate": "where to write the certificate (default: OUT's name + .certificate.json)",
    "save_params": "true: also write the fitted mean and covariance to --private-dir/params.npz",
    "workers": "threads (local) or workers of a new LocalCluster (default: cores)",
    "chunk_rows": "rows per chunk when streaming the input",
    "partition_rows": "rows per input partition and per output file of a folder output",
}
SYNTHESIZE_PARAMS: dict[str, str] = {
    **RUN_PARAMS,
    "private_domain": "SHARE of --epsilon spent on a DP estimate of every data-derived bound and "
    "category list",
    "domain_range": "COL=LO:HI, a PUBLIC range searched by private_domain's quantiles (repeatable)",
    "domain_share": "COL=SHARE, the fraction of the private_domain budget spent on COL "
    "(repeatable)",
    "dp_bins": 'SHARE of --epsilon spent on DP quantile bin edges ("bins": "dp-quantile"), or '
    'of the synthesizer\'s budget on DP tree bins ("bins": "dp-tree", dp_tree)',
    "dp_tree": "true: DP tree bins for every numeric column without declared bins or log scale; "
    "false: none but the declared ones",
    "dp_bins_log": 'true: DP quantile bins for every "scale": "log" column too',
    "allow_data_domain": "true: run on a domain read from the data (no guarantee is stated)",
}
MULTI = ("domain_range", "domain_share")  # repeatable keys: their values are collected


def split_params(
    items: list[str] | None, run_keys: Mapping[str, str], *, others: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``--param`` items as (run settings, other parameters).

    Keys are spelled with ``_`` or ``-``; values are JSON when they parse as JSON (numbers,
    true, null), else text. A key of ``run_keys`` given twice is refused (``MULTI`` keys
    collect a list). With ``others=False`` a key outside ``run_keys`` is refused.

    Examples
    --------
    >>> split_params(["n-out=100", "degree=2"], RUN_PARAMS, others=True)
    ({'n_out': 100}, {'degree': 2})
    """
    run: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise typer.BadParameter(f"--param expects key=value, got {item!r}")
        if key in MULTI and key in run_keys:
            run.setdefault(key, []).append(text)
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        target = run if key in run_keys else rest
        if key not in run_keys and not others:
            known = ", ".join(run_keys)
            raise typer.BadParameter(f"--param {key} is not a setting of this command ({known})")
        if key in target:
            raise typer.BadParameter(f"--param {key} is given twice")
        target[key] = value
    return run, rest


def merge_alias(run: dict[str, Any], key: str, value: Any, flag: str) -> None:
    """Put the value of a deprecated flag into the run settings (refused if --param has it)."""
    if value is None or value is False:
        return
    deprecated(flag, f"use --param {key}=VALUE")
    if key in run:
        raise typer.BadParameter(f"{flag} and --param {key} both given: give it once")
    run[key] = value


def merge_aliases(
    run: dict[str, Any], aliases: Iterable[tuple[str, Any, str]], scheduler: str | None
) -> None:
    """:func:`merge_alias` for each (key, value, flag) of a command's deprecated flags.

    ``--engine dask`` given with ``--scheduler`` is not merged: the scheduler's address (an
    alias of ``engine`` too) says the engine.
    """
    for key, value, flag in aliases:
        if not (key == "engine" and value == "dask" and scheduler is not None):
            merge_alias(run, key, value, flag)


def params_help(keys: Mapping[str, str], lead: str) -> str:
    """The help of ``--param``: a lead sentence, then each key and what it sets."""
    return lead + " " + "; ".join(f"{k}: {v}" for k, v in keys.items()) + "."


def param_option(keys: Mapping[str, str], lead: str) -> typer.models.OptionInfo:
    """The repeatable ``--param KEY=VALUE`` option of a command whose run settings are
    ``keys``, its help :func:`params_help` (``lead``, then each key and what it sets)."""
    return typer.Option("--param", metavar="KEY=VALUE", help=params_help(keys, lead))


__all__ = [
    "RELEASE_PARAMS",
    "RUN_PARAMS",
    "SYNTHESIZE_PARAMS",
    "merge_alias",
    "merge_aliases",
    "param_option",
    "params_help",
    "split_params",
]
