"""Nearest-record pairing (``pairing: nearest``): each protected record paired with its nearest original record.

Synthetic files have no record-by-record correspondence with the original,
so the record-level measures (``il1s``, ``lambda``, ``records_changed``, ...)
cannot apply.  With ``pairing: nearest`` the pair stays unpaired for every
other measure (tables, moments and distributions compare the *whole*
original file), and the record-level measures run on a *paired view*: each
protected record next to the original record nearest to it.

Matching variables (``pairing: nearest``): the categorical key variables
(role ``key``) and every continuous variable; ``pairing: {nearest: [A, B]}``
names them.  Variables removed from the protected file are left out.

Nearest means, in this order:

1. **Exact-match blocks on the categorical variables.**  A protected record
   is paired with an original record of the same categorical values (missing
   is a value).  Among them the nearest is the one at the smallest Euclidean
   distance on the continuous variables, each standardised by the original
   file's mean and standard deviation (a missing value counts as the mean,
   i.e. 0; a constant variable is left out).  Ties go to the lowest original
   record number.
2. **Fewest mismatching categories.**  A protected record whose categorical
   combination does not occur in the original (a synthetic combination, a
   suppressed key) is matched among the original records that agree with it
   on all categorical variables but one, choosing the nearest on the
   continuous variables over every choice of the ignored variable; if there
   is none, all but two, and so on.  A level with more than 50 choices of
   ignored variables is skipped: the records left are matched over the whole
   original file on the continuous variables.

So categorical agreement comes first (one-hot distances would let a large
continuous difference outweigh a category), and the search stays exact: the
returned record is the nearest one under this rule (tested against
scikit-learn's ``NearestNeighbors`` within blocks).

Speed: within a block the nearest record is found by blocked matrix products
(``‖q‖² − 2 q·o + ‖o‖²``, BLAS), or with scipy's ``cKDTree`` when a block is
large and has at most 16 continuous variables; the loop runs over blocks,
never over records.  The cost is about ``Σ_blocks n_orig·n_prot·p``: fast when
the categorical variables split the file into blocks (1,000,000 × 50 with
three categorical keys: see ``bench/bench_pairing.py``), slow for a single
block of many high-dimensional records (exact nearest neighbours in 50
dimensions have no shortcut).

The pairing's summary (``details["pairing"]`` of every record-level measure
and the scenario's ``pairing`` block in the JSON): the distance quantiles,
the share of exact matches (protected records equal to their original on
every matching variable), the number of mismatching categories, and how often
original records were reused.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import numeric
from .errors import InputError, NotComputed

__all__ = ["NearestPairing", "nearest_records", "paired_view"]

MAX_SUBSETS = 50  # choices of ignored categorical variables per relaxation level before the whole-file fallback
_CHUNK_BYTES = 64 << 20  # distance block of at most 64 MB
_KDTREE_MAX_DIMS = 10  # a block with at most this many variables is searched with a KD-tree when large
_LARGE_BLOCK = 20_000_000  # n_orig × n_prot of a block above which the KD-tree / projection search is tried
_PROJECTED_DIMS = 8  # dimensions of the projection whose KD-tree proposes the candidates
_PROJECTED_NEIGHBOURS = 4  # candidates per query compared in full
_PROJECTED_MIN_SURE = 0.5  # the projection search is used when at least this share of a sample is certified
_PAIRS_PER_CHUNK = 4_000_000
QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)


@dataclass
class NearestPairing:
    """The spec's request (``variables``: None for the default) and, once computed, the result."""

    variables: list[str] | None = None
    index: np.ndarray | None = field(default=None, repr=False)  # original record of each protected record
    distance: np.ndarray | None = field(default=None, repr=False)
    mismatches: np.ndarray | None = field(default=None, repr=False)
    summary: dict[str, Any] | None = None
    view: Any = field(default=None, repr=False)


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------
def _matching_variables(pair, requested: list[str] | None) -> tuple[list[str], list[str]]:
    if requested is None:
        cats = [n for n in pair.categorical_names
                if pair.variable(n).role == "key" and pair.categorical[n].prot is not None]
        conts = [n for n in pair.continuous_names if pair.continuous[n].prot is not None]
    else:
        unknown = [n for n in requested if n not in pair.categorical and n not in pair.continuous]
        if unknown:
            raise InputError(
                f"'pairing: nearest' names {unknown[0]!r}, which is not an analysed variable of the spec; "
                "list analysed variables (with a scale) only."
            )
        removed = [n for n in requested if pair.variable(n).removed]
        if removed:
            raise InputError(f"'pairing: nearest' names {removed[0]!r}, which was removed from the protected file.")
        cats = [n for n in requested if n in pair.categorical]
        conts = [n for n in requested if n in pair.continuous]
    if not cats and not conts:
        raise NotComputed("nearest-record pairing has no matching variable (no categorical key, no continuous variable)")
    return cats, conts


#: standardised values are clipped here: a protected value a million original sds away is matched as if there
#: (an original value is at most sqrt(n) sds from its mean), and the search's float32 scores stay finite
MAX_Z = 1e6


def _standardised(pair, conts: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(n_orig, p) and (n_prot, p) arrays standardised by the original's mean and sd; missing -> 0.

    The values are scaled by a power of two first (exact: the same z for
    ordinary data), so that the mean and sd of values near ±1.8e308 are
    finite; z is clipped at ±MAX_Z.
    """
    zo, zp, used = [], [], []
    for name in conts:
        col = pair.continuous[name]
        ok = col.orig[~np.isnan(col.orig)]
        if ok.size < 2:
            continue
        e = numeric.exponent(ok)
        ok = numeric.scaled(ok, e)
        mean, sd = float(ok.mean()), float(ok.std())
        if not sd > 0:
            continue
        for src, out in ((col.orig, zo), (col.prot, zp)):
            with np.errstate(over="ignore"):
                z = (numeric.scaled(src, e) - mean) / sd
            out.append(np.clip(np.where(np.isnan(z), 0.0, z), -MAX_Z, MAX_Z))
        used.append(name)
    if not used:
        return np.zeros((pair.n_orig, 0)), np.zeros((pair.n_prot, 0)), used
    return np.column_stack(zo), np.column_stack(zp), used


def _joint_codes(codes: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Shared dense codes of the combinations of several variables in both files."""
    n_o = codes[0][0].shape[0] if codes else 0
    combined = None
    for o, p in codes:
        both = np.concatenate([o, p]).astype(np.int64)
        if combined is None:
            combined = both
        else:
            combined = combined * (int(both.max()) + 1) + both
            _, combined = np.unique(combined, return_inverse=True)
            combined = combined.reshape(-1)
    if combined is None:
        raise ValueError("no codes")
    return combined[:n_o], combined[n_o:]


def _nn_dense(zo: np.ndarray, zq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index into ``zo`` of the nearest row to each row of ``zq`` (ties: the lowest index) and the squared distances.

    Scores ``q·o − ‖o‖²/2`` (the larger, the nearer) come from one float32
    matrix product per chunk of queries on data centred at the block's mean;
    a query whose best and second-best scores are closer than a bound on the
    float32 rounding error is settled in float64 among every candidate within
    that bound, so the result is the float64 nearest record.  Large blocks
    use scipy's ``cKDTree``: directly with at most 10 variables, else on an
    8-dimensional projection whose candidates are certified exactly
    (:func:`_nn_projected`).
    """
    n_q, p = zq.shape
    if p == 0 or zo.shape[0] == 1:
        diff = zq - zo[0] if p else np.zeros((n_q, 0))
        return np.zeros(n_q, dtype=np.int64), np.einsum("ij,ij->i", diff, diff)
    large = zo.shape[0] * n_q >= _LARGE_BLOCK and n_q >= 1000  # few queries: the dense search is cheaper
    if large and p <= _KDTREE_MAX_DIMS:
        from scipy.spatial import cKDTree

        d, i = cKDTree(zo).query(zq, k=1)
        return i.astype(np.int64), d * d
    centre = zo.mean(axis=0)
    o64, q64 = zo - centre, zq - centre
    if large:
        found = _nn_projected(o64, q64)
        if found is not None:
            return found
    return _nn_scores(o64, q64)


def _nn_projected(o: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact nearest rows found through a KD-tree on an orthonormal projection, or None when it would not help.

    With ``P`` orthonormal (the block's 8 leading principal axes),
    ``‖P(q − o)‖ ≤ ‖q − o‖``.  The 4 nearest records in the projection are
    compared in full; ``r`` is the smallest full distance among them.  When
    the 4th projected distance exceeds ``r``, every record that could be
    nearer than ``r`` is among the 4, so the nearest of them is the nearest
    record (certified).  Tight matches (masked files) are nearly all
    certified; the others go to the dense search.  When a sample of 256
    queries is mostly not certified (distant matches, e.g. synthetic files in
    many dimensions) the dense search is used for the whole block.
    """
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(0)
    sample = o[rng.choice(o.shape[0], min(o.shape[0], 5000), replace=False)]
    basis = np.linalg.svd(sample, full_matrices=False)[2][:_PROJECTED_DIMS].T
    tree = cKDTree(o @ basis)
    k = min(_PROJECTED_NEIGHBOURS, o.shape[0])

    def certify(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        dp, ip = tree.query(q[rows] @ basis, k=k)
        d = q[rows][:, None, :] - o[ip]
        full = np.einsum("ijk,ijk->ij", d, d)
        order = np.lexsort((ip, full), axis=1)  # nearest first, lowest index on ties
        pick = np.take_along_axis(ip, order[:, :1], axis=1)[:, 0]
        best = np.take_along_axis(full, order[:, :1], axis=1)[:, 0]
        sure = dp[:, -1] ** 2 > best * (1 + 1e-9) + 1e-12 if k < o.shape[0] else np.ones(rows.shape[0], dtype=bool)
        return pick, best, sure

    probe = rng.choice(q.shape[0], min(q.shape[0], 256), replace=False)
    if certify(probe)[2].mean() < _PROJECTED_MIN_SURE:
        return None
    idx = np.empty(q.shape[0], dtype=np.int64)
    d2 = np.empty(q.shape[0])
    sure = np.zeros(q.shape[0], dtype=bool)
    step = max(1, _PAIRS_PER_CHUNK // (k * q.shape[1]))
    for start in range(0, q.shape[0], step):
        rows = np.arange(start, min(start + step, q.shape[0]))
        idx[rows], d2[rows], sure[rows] = certify(rows)
    rest = np.flatnonzero(~sure)
    if rest.size:
        idx[rest], d2[rest] = _nn_scores(o, q[rest])
    return idx, d2


def _nn_scores(o64: np.ndarray, q64: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The dense search: float32 scores, float64 settlement of near ties (see ``_nn_dense``)."""
    n_q, p = q64.shape
    norms = np.einsum("ij,ij->i", o64, o64)
    scores_o = np.empty((p + 1, o64.shape[0]), dtype=np.float32)  # [o, −‖o‖²/2] transposed
    scores_o[:p] = o64.T
    scores_o[p] = -0.5 * norms
    big = float(np.sqrt(norms.max()))
    eps = 4.0 * (p + 2) * float(np.finfo(np.float32).eps)
    rows = max(1, _CHUNK_BYTES // (4 * o64.shape[0]))
    idx = np.empty(n_q, dtype=np.int64)
    qa = np.empty((min(rows, n_q), p + 1), dtype=np.float32)
    for start in range(0, n_q, rows):
        q = q64[start : start + rows]
        k = q.shape[0]
        qa[:k, :p] = q
        qa[:k, p] = 1.0
        score = qa[:k] @ scores_o
        r = np.arange(k)
        j1 = np.argmax(score, axis=1)
        s1 = score[r, j1].astype(np.float64)
        score[r, j1] = -np.inf
        s2 = score.max(axis=1).astype(np.float64) if score.shape[1] > 1 else np.full(k, -np.inf)
        score[r, j1] = s1
        qn = np.sqrt(np.einsum("ij,ij->i", q, q))
        delta = eps * (qn * big + 0.5 * big * big + 1.0)  # bound on the float32 error of two scores
        unsure = np.flatnonzero(s1 - s2 <= delta)
        if unsure.size:
            j1[unsure] = _settle(score[unsure], s1[unsure] - delta[unsure], q[unsure], o64)
        idx[start : start + k] = j1
    diff = q64 - o64[idx]
    return idx, np.einsum("ij,ij->i", diff, diff)


def _settle(score: np.ndarray, threshold: np.ndarray, q: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Among the candidates scoring at least ``threshold``: the float64 nearest, lowest index on ties."""
    rows, cols = np.nonzero(score >= threshold[:, None].astype(np.float32))
    diff = q[rows] - o[cols]
    d2 = np.einsum("ij,ij->i", diff, diff)
    order = np.lexsort((cols, d2, rows))
    first = np.unique(rows[order], return_index=True)[1]
    return cols[order][first]


def _search_blocks(zo, zq, bo, bq) -> tuple[np.ndarray, np.ndarray]:
    """Nearest original (within the same block) of each query; -1 and inf where the block has no original.

    Blocks are searched two at a time in threads (BLAS limited to one thread
    each: the matrix products of this shape do not scale, the reductions do).
    """
    from concurrent.futures import ThreadPoolExecutor

    from ._concurrent import thread_limits

    idx = np.full(zq.shape[0], -1, dtype=np.int64)
    best = np.full(zq.shape[0], np.inf)
    order_o = np.argsort(bo, kind="stable")
    sorted_o = bo[order_o]
    order_q = np.argsort(bq, kind="stable")
    blocks, q_start, q_count = np.unique(bq[order_q], return_index=True, return_counts=True)
    lo = np.searchsorted(sorted_o, blocks, side="left")
    hi = np.searchsorted(sorted_o, blocks, side="right")
    jobs = [
        (order_q[q_start[b] : q_start[b] + q_count[b]], order_o[lo[b] : hi[b]])
        for b in np.flatnonzero(hi > lo)
    ]

    def one(job: tuple[np.ndarray, np.ndarray]) -> None:
        queries, candidates = job
        j, d2 = _nn_dense(zo[candidates], zq[queries])
        idx[queries] = candidates[j]
        best[queries] = d2

    small = [job for job in jobs if job[1].shape[0] * job[0].shape[0] < 50_000]
    large = [job for job in jobs if job[1].shape[0] * job[0].shape[0] >= 50_000]
    for job in small:
        one(job)
    if large:
        with thread_limits(1), ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(one, large))
    return idx, best


def nearest_records(pair, requested: list[str] | None = None) -> dict[str, Any]:
    """The nearest original record of every protected record (see the module notes).

    Returns ``{"index", "distance", "mismatches", "categorical", "continuous"}``:
    index into the original records, Euclidean distance on the standardised
    continuous variables, number of categorical matching variables that
    differ, and the matching variables used.
    """
    cats, conts_all = _matching_variables(pair, requested)
    zo, zp, conts = _standardised(pair, conts_all)
    n_p = pair.n_prot
    idx = np.full(n_p, -1, dtype=np.int64)
    best = np.full(n_p, np.inf)
    mism = np.zeros(n_p, dtype=np.int64)
    codes = [(pair.cell_codes(n, "orig"), pair.cell_codes(n, "prot")) for n in cats]
    pending = np.arange(n_p)
    k = len(cats)
    for m in range(k + 1):
        if not pending.size:
            break
        subsets = list(itertools.combinations(range(k), k - m))
        if len(subsets) > MAX_SUBSETS:
            subsets = [()]  # too many choices: the whole original file, on the continuous variables
        level_idx = np.full(pending.size, -1, dtype=np.int64)
        level_best = np.full(pending.size, np.inf)
        for keep in subsets:
            if keep:
                bo, bp = _joint_codes([codes[i] for i in keep])
                bq = bp[pending]
            else:
                bo, bq = np.zeros(pair.n_orig, dtype=np.int64), np.zeros(pending.size, dtype=np.int64)
            j, d2 = _search_blocks(zo, zp[pending], bo, bq)
            better = (d2 < level_best) | ((d2 == level_best) & (j >= 0) & (j < level_idx))  # ties: lowest record
            level_idx[better], level_best[better] = j[better], d2[better]
        found = level_idx >= 0
        idx[pending[found]] = level_idx[found]
        best[pending[found]] = level_best[found]
        pending = pending[~found]
    matched = idx
    for o, p in codes:
        mism += o[matched] != p
    diff = zp - zo[matched]
    distance = np.sqrt(np.einsum("ij,ij->i", diff, diff)) if diff.shape[1] else np.zeros(n_p)
    return {"index": matched, "distance": distance, "mismatches": mism, "categorical": cats, "continuous": conts,
            "continuous_all": conts_all}


def _exact(pair, idx: np.ndarray, cats: list[str], conts: list[str]) -> np.ndarray:
    """Protected records equal to their original on every matching variable (missing equals missing)."""
    same = np.ones(idx.shape[0], dtype=bool)
    for n in cats:
        same &= pair.cell_codes(n, "orig")[idx] == pair.cell_codes(n, "prot")
    for n in conts:
        o, p = pair.continuous[n].orig[idx], pair.continuous[n].prot
        same &= (o == p) | (np.isnan(o) & np.isnan(p))
    return same


def _summary(pair, res: dict[str, Any]) -> dict[str, Any]:
    d = res["distance"]
    counts = np.bincount(res["index"], minlength=pair.n_orig)
    mism = np.bincount(res["mismatches"])
    exact = _exact(pair, res["index"], res["categorical"], res["continuous_all"])
    return {
        "method": "nearest",
        "variables": {"exact_match_blocks": res["categorical"], "distance": res["continuous"]},
        "metric": "exact-match blocks on the categorical variables (fewest mismatches first), then the Euclidean "
        "distance on the continuous variables standardised by the original's mean and sd (missing -> mean)",
        "n_protected": int(pair.n_prot),
        "distance_quantiles": {f"{q:g}": float(np.quantile(d, q)) for q in QUANTILES} if d.size else {},
        "distance_mean": float(d.mean()) if d.size else 0.0,
        "share_exact": float(exact.mean()) if exact.size else 0.0,
        "key_mismatches": {str(k): int(v) for k, v in enumerate(mism) if v},
        "originals_used": int(np.count_nonzero(counts)),
        "max_reuse": int(counts.max()) if counts.size else 0,
        "note": "record-level measures compare each protected record with its nearest original record; the "
        "other measures compare the whole files",
    }


# ---------------------------------------------------------------------------
# the paired view
# ---------------------------------------------------------------------------
def paired_view(pair) -> Any:
    """The record-paired view of a ``pairing: nearest`` pair (computed once, cached on the pair)."""
    from .pair import CategoricalColumn, ContinuousColumn, EncodedPair

    state: NearestPairing = pair.nearest
    if state.view is not None:
        return state.view
    res = nearest_records(pair, state.variables)
    idx = res["index"]
    state.index, state.distance, state.mismatches = idx, res["distance"], res["mismatches"]
    categorical = {
        n: CategoricalColumn(c.name, c.scale, c.categories, c.orig[idx], c.prot) for n, c in pair.categorical.items()
    }
    continuous = {n: ContinuousColumn(c.name, c.orig[idx], c.prot) for n, c in pair.continuous.items()}
    w_orig = None if pair.weights_orig is None else pair.weights_orig[idx]
    view = EncodedPair(
        spec=pair.spec,
        variables=pair.variables,
        categorical=categorical,
        continuous=continuous,
        weights_orig=w_orig,
        weights_prot=pair.weights_prot if pair.weights_prot is not None else w_orig,
        paired=True,
        n_orig=pair.n_prot,
        n_prot=pair.n_prot,
        matched_from=pair,
    )
    state.summary = _summary(pair, res)  # no wall-clock seconds: the same files give the same JSON
    state.view = view
    return view
