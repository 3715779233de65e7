"""A privacy ledger across releases of one table: the public claims, composed by the tightest
valid rule, and a lifetime budget checked before any data is read.

The ledger is a JSON-lines file, one public claim per line (:func:`ledger_entry`: the claim's
privacy figures, its model and neighbouring relation, the rows released and the mechanisms'
names; never n, a timing, a path, a seed, an assumption's value or a warning's text). An append
takes a lock beside the file, writes the whole new ledger to a temporary file in the same
folder, fsyncs it and renames it over the old one (``os.replace``): a reader sees the old
ledger or the new one, never a torn line, and a refused run leaves it byte for byte as it was.

Two runs of one table may start at the same time. So that both cannot pass the lifetime check
before either writes, a run *reserves* its planned claim (:func:`reserve_claim`): under the
lock it composes the ledger with the planned claim, checks the lifetime budget and appends the
planned claim as a reserved line (the line also holds ``"reservation"``, a random token that
says nothing about the data). When its output is written the run replaces that line by its
actual claim, never larger (:func:`commit_claim`). A run that stops after reserving (an error,
a kill) leaves its reservation in the ledger, counted at the planned claim: it may have read
the data.

Composition (:func:`compose`), every entry being a DP guarantee under one neighbouring relation:

* all pure ε-DP: ε = Σ ε_i (basic composition; Dwork & Roth 2014, Thm. 3.16);
* pure and ρ-zCDP entries: ρ = Σ ρ_i, a pure ε_i counting ε_i²/2 (Bun & Steinke 2016,
  Prop. 1.4 and Lemma 2.3); ε at δ = Σ δ_i is the smaller of the zCDP conversion and the basic
  sum;
* entries with Rényi figures (inherent RDP at one order α_i, zCDP, pure): RDP is
  non-decreasing in the order, so each is (α, ε_i)-RDP at the *smallest* order α = min α_i
  (zCDP: ρα; pure: min(ε, αε²/2)), and ε_RDP = Σ ε_i at α (Mironov 2017, Prop. 1); ε at δ is
  the smaller of the RDP conversion and the basic sum;
* otherwise: basic composition of (ε, δ): (Σ ε_i, Σ δ_i).

Mixed neighbouring relations are refused: an add/remove guarantee becomes a replacement one
only at twice the cost (group privacy of two; for zCDP four times ρ), which the ledger does not
apply silently. An entry that is not a guarantee makes the total no guarantee.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import secrets
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from synthcert._result import Result
from synthcert.errors import AssumptionError, BudgetError, DataError, ParameterError
from synthcert.privacy.accountant import PrivacyAccountant, basic_composition, compose_steps
from synthcert.privacy.claims import GUARANTEE, PrivacyClaim, no_privacy_claim

LEDGER_FIELDS = (
    "model", "guarantee", "neighboring", "epsilon", "delta", "rho", "alpha", "epsilon_rdp",
    "n_out", "conversion", "mechanisms", "claim_schema_version",
)  # fmt: skip
"""The claim fields a ledger line holds (public by construction; nothing else is written)."""
RESERVATION = "reservation"
"""The key of a reserved line's token (:func:`reserve_claim`)."""
RELATIONS = {"unbounded": "unbounded", "bounded": "bounded", "bounded-direct": "bounded"}


def ledger_entry(claim: PrivacyClaim) -> dict:
    """The line a claim adds to a ledger: its public privacy figures only.

    Examples
    --------
    >>> c = PrivacyClaim("pure-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=0.0, n_out=10)
    >>> sorted(ledger_entry(c))[:4]
    ['alpha', 'claim_schema_version', 'conversion', 'delta']
    """
    doc = claim.to_dict()
    return {k: doc[k] for k in LEDGER_FIELDS}


def read_entries(path: str | os.PathLike) -> tuple[tuple[PrivacyClaim, str | None], ...]:
    """The claims of a ledger file with their reservation tokens (None: a finished run's claim;
    no entry when the file does not exist yet).

    Raises
    ------
    DataError
        A line is not a claim a ledger holds (its number is named).
    """
    p = Path(path)
    if not p.exists():
        return ()
    out = []
    for number, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
            if not isinstance(doc, dict):
                raise DataError("not a ledger entry (not a JSON object)")
            token = doc.pop(RESERVATION, None)
            if set(doc) - set(LEDGER_FIELDS) or not (token is None or isinstance(token, str)):
                raise DataError("not a ledger entry (unknown or missing fields)")
            out.append((PrivacyClaim.from_dict(doc), token))
        except (json.JSONDecodeError, DataError, TypeError, ValueError) as exc:
            msg = f"line {number} of the ledger {str(p)!r} is not a claim: {exc}"
            raise DataError(msg) from exc
    return tuple(out)


def read_ledger(path: str | os.PathLike) -> tuple[PrivacyClaim, ...]:
    """The claims of a ledger file, reserved ones included (none when it does not exist yet).

    Raises
    ------
    DataError
        A line is not a claim a ledger holds (its number is named).
    """
    return tuple(claim for claim, _ in read_entries(path))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    lock = path.with_name(path.name + ".lock")
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _line(claim: PrivacyClaim, token: str | None = None) -> bytes:
    doc = ledger_entry(claim)
    if token is not None:
        doc[RESERVATION] = token
    return (json.dumps(doc, sort_keys=True) + "\n").encode("utf-8")


def _replace_file(p: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``p``, fsync it and rename it over ``p``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _lines(p: Path) -> list[bytes]:
    return p.read_bytes().splitlines(keepends=True) if p.exists() else []


def _with_newline(lines: list[bytes]) -> list[bytes]:
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    return lines


def append_claim(path: str | os.PathLike, claim: PrivacyClaim) -> Path:
    """Append ``claim`` to the ledger atomically (lock, temporary file, fsync, ``os.replace``).

    Returns
    -------
    Path
        The ledger.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with _locked(p):
        _replace_file(p, b"".join([*_with_newline(_lines(p)), _line(claim)]))
    return p


def reserve_claim(
    path: str | os.PathLike,
    planned: PrivacyClaim,
    *,
    epsilon: float | None,
    delta: float | None = None,
) -> str:
    """Check the lifetime budget and reserve ``planned`` in one step under the ledger's lock.

    The check is :func:`check_lifetime`'s; when it passes, ``planned`` is appended as a reserved
    line, so a run started at the same time composes with it. Replace the line by the run's
    actual claim with :func:`commit_claim`.

    Returns
    -------
    str
        The reservation's token (random; it says nothing about the data).

    Raises
    ------
    BudgetError, ParameterError
        As :func:`check_lifetime`; the ledger is then unchanged.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(8)
    with _locked(p):
        check_lifetime(p, planned, epsilon=epsilon, delta=delta)
        _replace_file(p, b"".join([*_with_newline(_lines(p)), _line(planned, token)]))
    return token


def commit_claim(path: str | os.PathLike, token: str, claim: PrivacyClaim) -> Path:
    """Replace the reserved line ``token`` by the run's actual ``claim`` (appended when the
    reservation is no longer there), atomically under the lock."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with _locked(p):
        lines = _with_newline(_lines(p))
        mine = [i for i, t in enumerate(_tokens(lines)) if t == token]
        if mine:
            lines[mine[0]] = _line(claim)
        else:
            lines.append(_line(claim))
        _replace_file(p, b"".join(lines))
    return p


def _tokens(lines: list[bytes]) -> list[str | None]:
    """The reservation token of each line (None: none, or not a JSON object)."""
    out: list[str | None] = []
    for raw in lines:
        try:
            doc = json.loads(raw)
        except json.JSONDecodeError:
            doc = None
        token = doc.get(RESERVATION) if isinstance(doc, dict) else None
        out.append(token if isinstance(token, str) else None)
    return out


def _step(accountant: PrivacyAccountant, i: int, claim: PrivacyClaim) -> None:
    """Record entry ``i`` of the ledger as one step with the statements its claim makes: pure
    ε; (ε, δ) with ρ (zCDP); (α, ε_RDP) with its (ε, δ) when stated (inherent RDP); (ε, δ).

    Raises
    ------
    ParameterError
        The entry's figures are out of range or inconsistent (named by its position).
    """
    name = f"entry {i}"
    eps = None if claim.epsilon is None else float(claim.epsilon)
    delta = float(claim.delta or 0.0)
    stated = eps is not None and claim.delta is not None
    try:
        if claim.model == "pure-dp" and delta == 0.0 and eps is not None:
            accountant.record_pure(name, eps)
        elif claim.model == "zcdp" and claim.rho is not None:
            if stated:
                accountant.record_approx(name, eps, delta, rho=float(claim.rho))  # type: ignore[arg-type]
            else:
                accountant.record_zcdp(name, float(claim.rho))
        elif claim.model == "inherent-rdp" and None not in (claim.alpha, claim.epsilon_rdp):
            accountant.record_rdp(
                name, float(claim.alpha), float(claim.epsilon_rdp),  # type: ignore[arg-type]
                epsilon=eps if stated else None, delta=delta if stated else 0.0,
            )  # fmt: skip
        elif claim.model == "pure-dp":
            raise ParameterError(f"it states pure ε-DP with δ = {claim.delta} or without ε")
        elif stated:
            accountant.record_approx(name, eps, delta)  # type: ignore[arg-type]
        else:
            raise ParameterError(f"it states {claim.model} with neither (ε, δ) nor its figures")
    except (AssumptionError, ParameterError) as err:
        raise ParameterError(f"{name} of the ledger cannot be composed: {err}") from err


def _n_out(claims: Sequence[PrivacyClaim]) -> int | None:
    if any(c.n_out is None for c in claims):
        return None
    return sum(int(c.n_out) for c in claims)  # type: ignore[arg-type]


def compose(claims: Sequence[PrivacyClaim]) -> PrivacyClaim:
    """The total claim of several releases of one table, by the tightest valid rule.

    Parameters
    ----------
    claims : sequence of PrivacyClaim

    Returns
    -------
    PrivacyClaim
        ``conversion`` names the rule (``ledger: basic``, ``ledger: zcdp``, ``ledger: rdp``).

    Raises
    ------
    ParameterError
        No claim, mixed neighbouring relations, or figures no rule composes (an RDP claim
        without δ beside an (ε, δ) one).

    Examples
    --------
    >>> one = PrivacyClaim("pure-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=0.0)
    >>> compose([one, one]).epsilon
    2.0
    >>> z = PrivacyClaim("zcdp", GUARANTEE, "unbounded", epsilon=1.0, delta=1e-6, rho=0.02)
    >>> round(compose([z, z]).rho, 6)
    0.04
    """
    claims = list(claims)
    if not claims:
        raise ParameterError("an empty ledger has no total")
    bad = [i for i, c in enumerate(claims, start=1) if not c.is_guarantee or c.model == "none"]
    if bad:
        return no_privacy_claim(
            _n_out(claims), reason=f"none: entry {bad[0]} of the ledger states no DP guarantee"
        )
    relations = {RELATIONS.get(c.neighboring, c.neighboring) for c in claims}
    if len(relations) > 1:
        raise ParameterError(
            "the ledger mixes neighbouring relations (" + ", ".join(sorted(relations)) + "): an "
            "add/remove guarantee holds for replacement only at twice the cost (group privacy "
            "of two; 4ρ for zCDP); keep one ledger per relation"
        )
    relation = relations.pop()
    mechanisms = tuple(sorted({m for c in claims for m in c.mechanisms}))
    base = {"guarantee": GUARANTEE, "neighboring": relation, "n_out": _n_out(claims),
            "mechanisms": mechanisms}  # fmt: skip
    accountant = PrivacyAccountant()
    for i, c in enumerate(claims, start=1):
        _step(accountant, i, c)
    basic = basic_composition(accountant.ledger)
    delta = None if basic is None else basic[1]  # every total holds at Σδ
    total = compose_steps(accountant.ledger, delta)
    models = {c.model for c in claims}

    def smallest(converted: float | None) -> float | None:
        """The converted total, or the basic sum where smaller (both hold at Σδ)."""
        if converted is None:
            return None
        return converted if total.epsilon_basic is None else min(converted, total.epsilon_basic)

    if models == {"pure-dp"}:
        return PrivacyClaim("pure-dp", epsilon=total.epsilon_basic, delta=0.0,
                            conversion="ledger: basic", **base)  # fmt: skip
    if models <= {"pure-dp", "zcdp"} and total.rho is not None:
        eps = smallest(total.epsilon_zcdp)
        return PrivacyClaim("zcdp", epsilon=eps, delta=delta if eps is not None else None,
                            rho=total.rho, conversion="ledger: zcdp", **base)  # fmt: skip
    if models <= {"pure-dp", "zcdp", "inherent-rdp"} and total.epsilon_rdp is not None:
        eps = smallest(total.epsilon_rdp_dp)
        return PrivacyClaim(
            "inherent-rdp", epsilon=eps, delta=delta if eps is not None else None,
            alpha=total.alpha, epsilon_rdp=total.epsilon_rdp, conversion="ledger: rdp", **base,
        )  # fmt: skip
    if total.epsilon_basic is None or delta is None:
        raise ParameterError(
            "the ledger holds a Rényi-DP claim without (ε, δ) beside claims that only state "
            "(ε, δ): no composition rule applies"
        )
    return PrivacyClaim("approx-dp", epsilon=total.epsilon_basic, delta=delta,
                        conversion="ledger: basic", **base)  # fmt: skip


def epsilon_at(total: PrivacyClaim, delta: float | None) -> float:
    """The smallest ε the composed claim guarantees at δ (``None``: pure ε only).

    Raises
    ------
    ParameterError
        δ is needed (the total is not pure) and not given.
    """
    from synthcert.privacy.conversion import rdp_to_dp, zcdp_to_dp

    if not total.is_guarantee or total.model == "none":
        return math.inf
    if total.model == "pure-dp":
        return float(total.epsilon)  # type: ignore[arg-type]
    if delta is None:
        raise ParameterError(
            "the ledger's total is not pure ε-DP: give the lifetime δ (--lifetime-delta)"
        )
    options = []
    if total.epsilon is not None and total.delta is not None and total.delta <= delta:
        options.append(float(total.epsilon))
    if 0.0 < delta < 1.0:
        if total.model == "zcdp" and total.rho is not None:
            options.append(zcdp_to_dp(float(total.rho), delta))
        if total.model == "inherent-rdp" and total.alpha is not None:
            options.append(float(rdp_to_dp(total.alpha, float(total.epsilon_rdp), delta, "ckm")))  # type: ignore[arg-type]
    return min(options) if options else math.inf


@dataclass(frozen=True)
class LedgerTotal(Result):
    """What ``synthcert ledger show`` prints: the entries, the total claim and its risk label.

    Attributes
    ----------
    entries : int
        Releases recorded, reserved ones included.
    total : PrivacyClaim
        Their composition (:func:`compose`); its ``risk`` is the label.
    reserved : int
        Entries that are reservations (:func:`reserve_claim`) of runs that are still running or
        stopped before recording their claim: counted at their planned claim.
    """

    entries: int
    total: PrivacyClaim
    reserved: int = 0

    @property
    def claim(self) -> PrivacyClaim:
        """The total claim (so ``--json`` carries its risk label at the top level)."""
        return self.total


def ledger_total(path: str | os.PathLike) -> LedgerTotal:
    """Read and compose a ledger.

    Raises
    ------
    DataError
        The file is missing or malformed.
    """
    entries = read_entries(path)
    if not entries:
        raise DataError(f"the ledger {str(path)!r} does not exist or holds no entry")
    reserved = sum(token is not None for _, token in entries)
    return LedgerTotal(len(entries), compose([c for c, _ in entries]), reserved)


def check_lifetime(
    path: str | os.PathLike,
    planned: PrivacyClaim,
    *,
    epsilon: float | None,
    delta: float | None = None,
) -> PrivacyClaim:
    """Refuse a release whose claim would take the ledger's total beyond the lifetime budget.

    Call it *before* any data is read, with the claim the run will at most make (its requested
    budget). Nothing is written.

    Parameters
    ----------
    path : path
        The ledger (missing: empty).
    planned : PrivacyClaim
        The claim the release will make (an upper bound on it).
    epsilon, delta : float or None
        The lifetime budget (ε, δ); ``epsilon=None`` checks nothing but the composition.

    Returns
    -------
    PrivacyClaim
        The total the ledger would hold after the release.

    Raises
    ------
    BudgetError
        The total would exceed the lifetime budget, or the release states no DP guarantee.
    ParameterError
        Mixed neighbouring relations, or δ needed and not given.
    """
    if not planned.is_guarantee or planned.model == "none":
        raise BudgetError(
            "a release that states no differential-privacy guarantee cannot be recorded in a "
            "privacy ledger: its cost is unbounded"
        )
    if epsilon is not None and not (epsilon > 0 and math.isfinite(epsilon)):
        raise ParameterError(f"the lifetime ε must be positive and finite, got {epsilon}")
    if delta is not None and not 0.0 <= delta < 1.0:
        raise ParameterError(f"the lifetime δ must be in [0, 1), got {delta}")
    total = compose([*read_ledger(path), planned])
    if epsilon is None:
        return total
    spent = epsilon_at(total, delta)
    if spent > epsilon:
        at = "" if total.model == "pure-dp" else f" at δ = {delta:g}"
        raise BudgetError(
            f"this release would take the ledger's total to ε = {spent:.6g}{at}, beyond the "
            f"lifetime budget ε = {epsilon:g}: refused before reading any data"
        )
    return total


def check_relation(path: str | os.PathLike, neighboring: str) -> None:
    """Refuse a run under another neighbouring relation than the ledger's entries.

    Raises
    ------
    ParameterError
        The relations differ (see :func:`compose`).
    """
    theirs = {RELATIONS.get(c.neighboring, c.neighboring) for c in read_ledger(path)}
    mine = RELATIONS.get(neighboring, neighboring)
    if theirs and theirs != {mine}:
        raise ParameterError(
            f"the ledger's releases are under '{sorted(theirs)[0]}' neighbours and this run is "
            f"under '{mine}': an add/remove guarantee holds for replacement only at twice the "
            "cost; keep one ledger per relation"
        )


def planned_budget_claim(
    *,
    epsilon: float,
    delta: float | None,
    rho: float | None = None,
    neighboring: str,
    alpha: float | None = None,
) -> PrivacyClaim:
    """The claim a run sized to a budget makes at most: ε-DP (δ = 0 or None), (ε, δ)-DP, or
    ρ-zCDP with its (ε, δ); with ``alpha`` and no δ, an RDP budget (α, ε)."""
    if alpha is not None and delta is None:
        return PrivacyClaim("inherent-rdp", GUARANTEE, neighboring, alpha=alpha,
                            epsilon_rdp=epsilon)  # fmt: skip
    if rho is not None:
        return PrivacyClaim("zcdp", GUARANTEE, neighboring, epsilon=epsilon, delta=delta, rho=rho)
    if not delta:
        return PrivacyClaim("pure-dp", GUARANTEE, neighboring, epsilon=epsilon, delta=0.0)
    return PrivacyClaim("approx-dp", GUARANTEE, neighboring, epsilon=epsilon, delta=delta)


def recorded(claim: PrivacyClaim) -> PrivacyClaim:
    """The claim as a ledger reads it back (assumptions and warnings left out)."""
    return replace(claim, assumptions=(), warnings=())


__all__ = [
    "LEDGER_FIELDS",
    "RESERVATION",
    "LedgerTotal",
    "append_claim",
    "check_lifetime",
    "check_relation",
    "commit_claim",
    "compose",
    "epsilon_at",
    "ledger_entry",
    "ledger_total",
    "planned_budget_claim",
    "read_entries",
    "read_ledger",
    "recorded",
    "reserve_claim",
]
