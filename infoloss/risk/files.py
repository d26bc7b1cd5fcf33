"""What the risk kernels read from an encoded pair, and each file's risk computed once.

Risk measures describe one file at a time: the protected file's risk is the
measure's value, the original's the reference in ``details``.  The
original's results are stored with :meth:`EncodedPair.cached_original`, so
``compare`` computes them once for all scenarios; they never depend on the
category codes (which change with the protected file), only on the values.

Key variables are the spec's ``role: key`` variables; a key variable removed
from the protected file counts as missing there (a wildcard: an intruder
cannot use it).  Weights are the spec's weight column; the household id is
the spec's ``role: household`` column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import NotComputed, counted
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from .diversity import classes, l_diversity, t_closeness
from .freq import frequencies, household_risk, individual_risk
from .suda import SudaResult, dis_result, msu_search

__all__ = [
    "FileRisk",
    "key_names",
    "key_codes",
    "hash_values",
    "file_risk",
    "file_suda",
    "sensitive_names",
    "sensitive_codes",
    "file_classes",
    "file_l_diversity",
    "file_t_closeness",
    "cached_for",
    "FILE_NAMES",
]

FILE_NAMES = {ORIGINAL: "original", PROTECTED: "protected"}
SDCMICRO_MISSING = -999  # the number sdcMicro gives a missing key value in SUDA2


def key_names(pair: EncodedPair) -> list[str]:
    """The key variables (``role: key``), in spec order; NotComputed without any."""
    names = [v.name for v in pair.variables if v.role == "key"]
    if not names:
        raise NotComputed(
            "no key variables are declared; mark the quasi-identifiers with 'role: key' in the spec (or --key)"
        )
    return names


def sensitive_names(pair: EncodedPair) -> list[str]:
    """The sensitive variables (``role: sensitive``), in spec order; NotComputed without any."""
    names = [v.name for v in pair.variables if v.role == "sensitive"]
    if not names:
        raise NotComputed(
            "no sensitive variables are declared; mark them with 'role: sensitive' in the spec (or --sensitive)"
        )
    return names


def cached_for(pair: EncodedPair, which: str, key: Any, compute: Any) -> Any:
    """``compute()`` cached on the pair, or once per original for the original file.

    ``key`` must name everything the result depends on besides the file.
    """
    spec_key = _spec_key(pair)
    if which == ORIGINAL:
        return pair.cached_original(("risk", spec_key, key), compute)
    return pair.cached(("risk", "prot", spec_key, key), compute)


def _spec_key(pair: EncodedPair) -> tuple:
    """What risk results depend on in the spec: key, sensitive, weight and household columns."""
    spec = pair.spec
    roles = tuple((v.name, v.role, v.scale, tuple(map(str, v.missing)), v.level)
                  for v in spec.variables.values() if v.role in ("key", "sensitive", "household") or v.level != "person")
    return roles, spec.weight


# ---------------------------------------------------------------------------
# codes
# ---------------------------------------------------------------------------
def _codes(pair: EncodedPair, name: str, which: str) -> np.ndarray:
    """Value codes of one variable in one file (-1 missing); continuous values numbered in value order."""

    def compute() -> np.ndarray:
        n = pair.n(which)
        if name in pair.categorical:
            codes = pair.categorical[name].codes(which)
            return np.full(n, -1, dtype=np.int32) if codes is None else codes.astype(np.int32, copy=False)
        x = pair.continuous[name].values(which)
        if x is None:
            return np.full(n, -1, dtype=np.int32)
        out = np.full(n, -1, dtype=np.int32)
        ok = ~np.isnan(x)
        out[ok] = np.unique(x[ok], return_inverse=True)[1]
        return out

    return pair.cached(("risk", "codes", name, which), compute)


def key_codes(pair: EncodedPair, which: str) -> np.ndarray:
    """The key variables' codes as an ``(n, m)`` int32 matrix, ``-1`` for missing."""
    names = key_names(pair)
    return pair.cached(("risk", "keys", which, tuple(names)),
                       lambda: np.column_stack([_codes(pair, name, which) for name in names]))


def hash_values(pair: EncodedPair, which: str) -> np.ndarray:
    """The numbers sdcMicro's SUDA2 sees for the key values (for its hash of full patterns).

    A numeric value is truncated to an integer (as sdcMicro's C++ does); a
    text category is its 1-based position among the file's sorted
    categories (R's factor codes); missing is -999.
    """
    names = key_names(pair)
    return np.column_stack([_hash_column(pair, name, which) for name in names])


def _hash_column(pair: EncodedPair, name: str, which: str) -> np.ndarray:
    codes = _codes(pair, name, which)
    if name in pair.continuous:
        x = pair.continuous[name].values(which)
        if x is None:
            return np.full(codes.shape[0], SDCMICRO_MISSING, dtype=np.int64)
        out = np.where(np.isnan(x), SDCMICRO_MISSING, np.trunc(np.clip(np.nan_to_num(x), -2**31, 2**31 - 1)))
        return out.astype(np.int64)
    categories = pair.categorical[name].categories
    numbers = [_as_number(c) for c in categories]
    if all(v is not None for v in numbers):
        lookup = np.array([int(np.trunc(v)) for v in numbers] + [SDCMICRO_MISSING], dtype=np.int64)
    else:
        present = np.unique(codes[codes >= 0])
        levels = sorted((categories[i] for i in present))
        position = {label: k + 1 for k, label in enumerate(levels)}
        lookup = np.array([position.get(c, 0) for c in categories] + [SDCMICRO_MISSING], dtype=np.int64)
    return lookup[codes]


def _as_number(label: str) -> float | None:
    try:
        value = float(label)
    except ValueError:
        return None
    return value if np.isfinite(value) and abs(value) < 2**31 else None


def sensitive_codes(pair: EncodedPair, name: str, which: str) -> tuple[np.ndarray, bool]:
    """Codes of a sensitive variable (``-1`` missing) and whether its values are ordered."""
    var = pair.variable(name)
    return _codes(pair, name, which), var.scale in ("ordinal", "continuous")


# ---------------------------------------------------------------------------
# frequencies and individual risk
# ---------------------------------------------------------------------------
@dataclass
class FileRisk:
    """The frequency-based risk of one file: per record and overall."""

    fk: np.ndarray
    Fk: np.ndarray
    risk: np.ndarray | None  # None when some record's individual risk is not finite (risk_reason says why)
    weighted: bool
    household: np.ndarray | None
    household_reason: str | None
    risk_reason: str | None = None

    @property
    def n(self) -> int:
        return int(self.fk.shape[0])

    @property
    def individual(self) -> np.ndarray:
        """The individual risks; NotComputed with the reason when some are not finite."""
        if self.risk is None:
            raise NotComputed(self.risk_reason or "the individual risk is not available")
        return self.risk

    @property
    def expected_reidentifications(self) -> float:
        return float(np.sum(self.individual))

    @property
    def global_risk(self) -> float:
        return self.expected_reidentifications / self.n


def file_risk(pair: EncodedPair, which: str, alpha: float = 1.0, missing_keys: str = "wildcard") -> FileRisk:
    """fk, Fk, individual and household risk of one file (cached; the original's once).

    ``alpha`` and ``missing_keys`` are those of :func:`infoloss.risk.freq.frequencies`.
    """
    keys = key_codes(pair, which)

    def compute() -> FileRisk:
        weights = pair.weights(which)
        fk, Fk = frequencies(keys, weights, alpha=alpha, missing_keys=missing_keys)
        risk = individual_risk(fk, Fk, weighted=weights is not None)
        # the risk is a probability of sampling weights (at least 1: Fk >= fk); weights below 1 give values above 1
        below = weights is not None and bool((Fk < fk * (1.0 - 1e-12)).any())
        if below or not np.isfinite(risk).all():  # fk and Fk stay: the counts of k-anonymity need no risk
            reason = (f"the individual risk of the {FILE_NAMES[which]} file is undefined for some records: the "
                      "weights of their key class sum to 0 (zero weights) or to less than its number of records "
                      "(weights below 1, while sampling weights are at least 1); check the weight column")
            return FileRisk(fk, Fk, None, weights is not None, None, reason, reason)
        household, reason = _household(pair, which, risk)
        return FileRisk(fk, Fk, risk, weights is not None, household, reason)

    return cached_for(pair, which, ("file_risk", alpha, missing_keys), compute)


def _household(pair: EncodedPair, which: str, risk: np.ndarray) -> tuple[np.ndarray | None, str | None]:
    names = pair.spec.names_with_role("household")
    if not names:
        return None, "no household id is declared; give the household id column 'role: household' (or --household)"
    ids = pair.households(which)
    if ids is None:
        return None, f"the {FILE_NAMES[which]} file has no household id column {names[0]!r}"
    if (ids < 0).any():
        return None, (f"the household id {names[0]!r} is missing for {counted(int((ids < 0).sum()), 'record')} of the "
                      f"{FILE_NAMES[which]} file; every person needs a household id")
    problem = household_level_problem(pair)
    if problem:
        return None, problem
    return household_risk(risk, ids), None


def household_level_problem(pair: EncodedPair) -> str | None:
    """A sentence when members of one household differ in a household-level variable of the original, else None."""
    hh_name = pair.spec.names_with_role("household")
    levels = [v.name for v in pair.variables if v.level == "household"]
    ids = pair.households_orig
    if not hh_name or not levels or ids is None:
        return None

    def check() -> str | None:
        for name in levels:
            codes = _codes(pair, name, ORIGINAL).astype(np.int64)
            ok = ids >= 0
            combos = np.unique(np.column_stack([ids[ok], codes[ok]]), axis=0)
            per_household = np.bincount(combos[:, 0])
            bad = np.flatnonzero(per_household > 1)
            if bad.size:
                return (f"{counted(int(bad.size), 'household')} of {hh_name[0]!r} "
                        f"{'has' if bad.size == 1 else 'have'} members with different values of the "
                        f"household-level variable {name!r}, so {hh_name[0]!r} is not a household id for these "
                        "data; fix the id column, or the variable's 'level' in the spec")
        return None

    return pair.cached_original(("risk", "household_level", _spec_key(pair)), check)


# ---------------------------------------------------------------------------
# SUDA2, l-diversity, t-closeness
# ---------------------------------------------------------------------------
#: most key variables SUDA2 searches (see file_suda)
MAX_SUDA_KEYS = 15


def file_suda(pair: EncodedPair, which: str, dis_fraction: float = 0.01, uniques: str = "sdcmicro") -> SudaResult:
    """SUDA2 of one file's key variables (cached; the original's once).

    SUDA2 looks at every subset of the key variables: its time doubles with
    each key (5,000 records with 3 categories a key: 12 keys 1.6 s, 14 keys
    7.6 s, 25 keys hours), so at most ``MAX_SUDA_KEYS`` are searched.
    """
    keys = key_codes(pair, which)
    if keys.shape[1] > MAX_SUDA_KEYS:
        raise NotComputed(
            f"SUDA searches every subset of the key variables, and {keys.shape[1]} keys would take hours; mark at "
            f"most {MAX_SUDA_KEYS} variables as keys (the quasi-identifiers an intruder could know)"
        )
    pad = uniques == "sdcmicro"  # the published SUDA weighs with M = the number of keys; sdcMicro pads it to 3
    search = cached_for(pair, which, ("msu_search", pad or keys.shape[1] >= 3), lambda: msu_search(keys, pad=pad))
    return cached_for(
        pair, which, ("suda2", dis_fraction, uniques),
        lambda: dis_result(search, keys, hash_values=hash_values(pair, which), dis_fraction=dis_fraction,
                           uniques=uniques),
    )


def file_classes(pair: EncodedPair, which: str) -> np.ndarray:
    """Equivalence class of each record: identical key patterns, missing equal only to missing."""
    return pair.cached(("risk", "classes", which), lambda: classes(key_codes(pair, which)))


def file_l_diversity(pair: EncodedPair, name: str, which: str, c: float = 2.0) -> dict[str, np.ndarray]:
    """Per-record distinct, entropy and recursive l-diversity of one sensitive variable."""
    codes, _ = sensitive_codes(pair, name, which)
    cls = file_classes(pair, which)
    return cached_for(pair, which, ("l_diversity", name, c), lambda: l_diversity(cls, codes, c=c))


def file_t_closeness(pair: EncodedPair, name: str, which: str) -> np.ndarray:
    """Per-record t (EMD of the class's distribution from the file's) of one sensitive variable."""
    codes, ordered = sensitive_codes(pair, name, which)
    cls = file_classes(pair, which)
    return cached_for(pair, which, ("t_closeness", name), lambda: t_closeness(cls, codes, ordered=ordered))
