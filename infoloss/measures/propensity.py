"""Propensity and cluster measures: pMSE (Snoke et al. 2018) and Woo et al.'s U_c.

Both measures merge the two files, label each record by its file, and ask how
well the label can be told from the variables: by a propensity model (pMSE)
or by clusters fitted without the label (U_c).  They compare the files as
samples: the record pairing is not needed, the files may have different
sizes.  Survey weights are used when both files have them (option
``weighted``, as in the table measures; ``details["weights"]`` says how).

Ids: ``pmse``, ``pmse_ratio``, ``pmse_std`` (one model fit per pair, shared
by the three) and ``cluster_utility``.  Called with two DataFrames, each
call encodes its own pair and so fits the model exactly once (``model="cart"``
with a null: once plus one tree per permutation); to share one fit between
the three, encode the pair once (``infoloss.encode_pair``) and pass it to
each, as ``compare`` does.

Conventions (where the literature leaves a choice):

* **Variables.** Every analysed variable that was not removed from the
  protected file.  Continuous variables are standardised on the merged file
  (mean and standard deviation of its non-missing values; a constant
  variable carries no information and is left out); a missing continuous
  value becomes 0 (the merged mean) and gets an indicator column, present
  only when the merged file has both missing and non-missing values.
  Categorical variables (nominal and ordinal) are one-hot coded over the
  categories present in the merged file, with *missing as a category of its
  own*, so no record is dropped and suppressions count as changes.
* **Many categories.** A categorical variable with more than
  ``infoloss.limits.MAX_MODEL_LEVELS`` (100) levels in the merged file keeps
  its 99 most frequent levels and groups the others into one level (a model
  with one parameter per category of an identifier-like variable is neither
  estimable nor affordable; synthpop refuses such models, ``max.params``);
  ``details["grouped"]`` names the variables and counts.  Differences
  within the grouped levels are then not seen.
* **Propensity design (logit).** One reference category per variable (its
  most frequent one in the merged file) is dropped.  Columns that are exact
  linear combinations of the intercept and earlier-pivoted columns (nested
  categorical variables, an indicator equal to a category, ...) are found by
  a pivoted Cholesky factorisation of the design's correlation matrix
  (a column is aliased when less than 1e-9 of its variance is left after the
  others) and dropped.  ``k`` = intercept + non-aliased columns, the
  ``km1 + 1`` of synthpop.
* **Separation.** The unpenalised logit has no finite maximum likelihood
  estimate when a category (or a missing indicator) occurs in only one file:
  its coefficient runs to ±∞ and its records' fitted propensities to exactly
  0 or 1.  Those records get that limit (their label) and the model is
  fitted to the others (repeated until no such category is left);
  ``details["separated"]`` counts them.  When the fitted linear predictor
  separates the remaining records of the two files completely, every record
  gets its limit, so a perfectly separable pair gives ``pMSE = c(1 - c)``.
  A fit that leaves some fitted |η| above 15 (propensities within 3e-7 of
  0 or 1: a variable that nearly splits the files) is reported as
  ``separation: "quasi-complete"`` too; its pMSE is then at its limit.
  Any other non-convergence is reported in ``details["converged"]`` and
  ``details["warnings"]``.
* **Fit.** scikit-learn's ``LogisticRegression`` without penalty
  (``C=inf``, Newton-CG, gradient tolerance 1e-8 on columns scaled to unit
  variance, 1e-6 above 20,000 fitted records, where the pMSE is then within
  about 1e-5 of its converged value, relatively); the fitted propensities do
  not depend on that scaling.
  ``model="cart"``: ``DecisionTreeClassifier`` on the full one-hot design
  with ``min_samples_leaf=5`` and a pre-pruning threshold
  ``min_impurity_decrease = cp * 2c(1-c)`` (``cp = 0.001``, the analogue of
  rpart's complexity parameter on the Gini impurity); ``k`` is its number
  of leaves.
* **Null of the logit.** E0 and SD0 are Snoke et al.'s (and synthpop's):
  the null of data synthesised from a correct model fitted to the
  original.  Two independent samples of one distribution have the larger
  expectation ``(k-1)c(1-c)/N = E0/(1-c)`` (twice E0 for files of equal
  size; checked by simulation in the tests), given as
  ``details["e0_independent"]`` and ``details["sd0_independent"]``.
* **Null for CART.** The logit formulas for E0 and SD0 do not hold for a
  tree.  For ``model="cart"`` the null is a permutation null: the file labels
  are permuted ``n_permutations`` times (default 20, seeded), a tree is fitted
  each time, and E0 and SD0 are the mean and standard deviation of those
  pMSEs (each permutation is one more tree fit: at 50,000 records per file
  one tree takes a few seconds).  This is the null of two files drawn from
  one distribution;
  synthpop's CART ``S_pMSE`` divides by *half* that mean (a null for data
  synthesised from the original), so its values are twice ours.
* **Large files.** The model is fitted on a seeded simple random sample when
  a file has more than ``max_records`` records (default 50,000 for the
  propensity model; 5,000 for the clusters, whose cost grows as N·G, i.e.
  N²/100 with the default G): the larger file is sampled to
  ``max_records`` and the other with the same sampling fraction, so ``c``
  stays about the full files' share (at least one record of the smaller
  file is kept: 3 records against 10,000 sampled to 100 give c = 0.0099,
  not 0.0003).  Files of equal size (record-paired,
  identical, or unpaired of equal size) are sampled at the same record
  numbers, so a file against itself gives pMSE 0 however large it is.
  The pMSE, E0 and SD0 are those of the sample (``N`` and ``c`` in
  ``details`` are the sample's); ``details["sample"]`` says so.  A sampled
  fit, and any CART fit (its tie-breaks follow the seed), depends on the
  seed: the pMSE measures are then averaged over ``seeds`` seeds (default 3,
  the spread in ``details["seeds"]``; each seed is one more fit, about 0.9 s
  on 1,000,000 x 50 files); a logit on every record is fitted once.
* **Clusters.** k-means (scikit-learn ``KMeans``, k-means++ start, one
  seeded run) on the merged file coded as above but with every category's
  0/1 column (no reference dropped) and missing indicators as 0/1 columns:
  two records with different categories of a variable are at squared
  distance 2 from each other on it, the mean squared distance of two records
  on a standardised continuous variable.  k-prototypes would need a further
  dependency and gives the same role to the categorical variables through
  a matching distance.  ``G`` defaults to 1 % of the merged records (of the
  sample, when sampled), at least 2; clusters that end up empty are not
  counted; ``w_j = 1``.
* **Weights.** With ``weighted`` (default: when both files have weights)
  each file's weights are rescaled to sum to its number of records (mean 1
  within each file, so ``c`` stays ``n_M/N`` and equal weights are no
  weights).  The logit and the tree are fitted with these as
  ``sample_weight`` (the weighted likelihood; statsmodels' GLM with
  ``freq_weights`` gives the same fit), the pMSE is the weighted mean
  ``Σ w_i (p̂_i − c)² / N``, and the logit's null E0 and SD0 are multiplied
  by Kish's design effect ``deff = N Σ w_i² / (Σ w_i)²`` (an approximation:
  weighting inflates the variance of the fitted propensities by about
  ``deff``; exact for equal weights, where deff = 1).  The CART permutation
  null permutes the labels with each record keeping its weight.  The
  clusters are k-means with ``sample_weight`` and ``U_c`` uses weighted
  counts ``n_jO``, ``n_j``.  Records of weight 0 count for nothing; a category
  present in one file only among the records of positive weight is treated
  as separated.
* **Range of pmse_std.** Its lower end is ``-sqrt((k-1)/2)`` (at pMSE = 0),
  which depends on ``k``, so the registry declares it unbounded on both sides.

References
----------
Snoke, J., Raab, G. M., Nowok, B., Dibben, C. & Slavković, A. (2018). General
and specific utility measures for synthetic data. *Journal of the Royal
Statistical Society A* 181(3), 663-688.

Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global measures
of data utility for microdata masked for disclosure limitation. *Journal of
Privacy and Confidentiality* 1(1), 111-124.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.linalg import lapack

from .. import limits, numeric
from .._concurrent import import_alone, recorded_warnings, thread_limits
from ..errors import InputError, NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MAX_SEED, MeasureResult, Option, measure
from .tables import WEIGHTED, _weighting

__all__ = ["pmse", "pmse_ratio", "pmse_std", "cluster_utility"]

MODELS = ("logit", "cart")
#: a fitted |η| above this (a propensity within 3e-7 of 0 or 1) is reported as quasi-complete separation
_SEPARATION_ETA = 15.0
_ALIAS_TOL = 1e-9  # share of a column's variance left after the others, below which it is aliased
_LOGIT_TOL = 1e-8  # gradient tolerance of the Newton-CG fit (columns scaled to unit variance) ...
_LOGIT_TOL_LARGE = 1e-6  # ... and above _LOGIT_LARGE merged records, where it keeps the pMSE within ~1e-5 relative
_LOGIT_LARGE = 20_000
_LOGIT_MAX_ITER = 100
_CART_CP = 1e-3
_CART_MIN_LEAF = 5
WEIGHTS_NOTE = "not used: the files are compared as samples"
WEIGHTED_NOTE = (
    "survey weights, rescaled to sum to each file's number of records, as sample_weight of the fit and in the "
    "weighted mean Σ w (p − c)² / N"
)
_REFERENCES = "Snoke, Raab, Nowok, Dibben & Slavkovic (2018), JRSS A 181(3):663-688"


# ---------------------------------------------------------------------------
# the merged file, coded once per sample
# ---------------------------------------------------------------------------
@dataclass
class _Merged:
    """The merged (possibly sampled) file: labels, numeric block, categorical codes."""

    y: np.ndarray  # 0 original, 1 protected
    n_o: int
    n_p: int
    dense: np.ndarray  # (N, q): standardised continuous variables, then missing indicators
    dense_names: list[str]
    indicator: np.ndarray  # (q,) bool: which dense columns are 0/1 missing indicators
    cat_names: list[str]
    cat_codes: list[np.ndarray]  # per variable: codes 0..L-1 over the categories present
    cat_labels: list[list[str]]
    sample: dict | None
    variables: list[str]
    grouped: dict[str, str] = field(default_factory=dict)  # variables whose rare levels were grouped
    raw_weights: np.ndarray | None = None  # survey weights of the merged records, when both files have them

    @property
    def n(self) -> int:
        return self.n_o + self.n_p

    @property
    def c(self) -> float:
        return self.n_p / self.n

    def weights(self, y: np.ndarray | None = None) -> np.ndarray:
        """Each file's weights rescaled to sum to its number of records (``y``: the file labels, default ``self.y``)."""
        return _norm_weights(self.raw_weights, self.y if y is None else y)


def _norm_weights(raw: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty_like(raw, dtype=float)
    for label in (0.0, 1.0):
        sel = y == label
        total = float(raw[sel].sum())
        if not total > 0:
            raise NotComputed("the weights of the records of one file sum to zero")
        w = raw[sel]
        out[sel] = 1.0 if w.min() == w.max() else w * (np.count_nonzero(sel) / total)  # equal weights: exactly 1
    return out


def _check_pair(pair: EncodedPair) -> None:
    if pair.n_orig < 1 or pair.n_prot < 1:
        which = "original" if pair.n_orig < 1 else "protected"
        raise InputError(f"the {which} file has no records, so the files cannot be compared.")


def _check_records(max_records: int) -> int:
    if int(max_records) != max_records or int(max_records) < 1:
        raise ValueError("max_records must be a positive whole number")
    return int(max_records)


def _sample(pair: EncodedPair, max_records: int, seed: int,
            kept: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray | None, np.ndarray | None, dict | None]:
    """Seeded sample indices of each file (None: every record), keeping the files' ratio; ``kept``: the records of
    each file to sample from (those of positive weight), else every record."""
    if kept is not None:
        io, ip, info = _sample_of(len(kept[0]), len(kept[1]), max_records, seed)
        return kept[0] if io is None else kept[0][io], kept[1] if ip is None else kept[1][ip], info
    return _sample_of(pair.n_orig, pair.n_prot, max_records, seed)


def _sample_of(n_o: int, n_p: int, max_records: int, seed: int) -> tuple[np.ndarray | None, np.ndarray | None,
                                                                          dict | None]:
    if max(n_o, n_p) <= max_records:
        return None, None, None
    if n_o == n_p:
        idx = _prefix_sample(n_o, max_records, seed)
        io, ip = idx, idx
        how = "the same record numbers in both files (files of equal size: paired or identical records alike)"
    else:
        f = max_records / max(n_o, n_p)
        m_o, m_p = max(1, round(f * n_o)), max(1, round(f * n_p))
        io = None if m_o >= n_o else _prefix_sample(n_o, m_o, seed)
        ip = None if m_p >= n_p else _prefix_sample(n_p, m_p, seed)
        how = "simple random samples with the same sampling fraction"
    size_o = n_o if io is None else io.shape[0]
    size_p = n_p if ip is None else ip.shape[0]
    info = {
        "orig": int(size_o),
        "prot": int(size_p),
        "records_orig": int(n_o),
        "records_prot": int(n_p),
        "max_records": int(max_records),
        "seed": int(seed),
        "how": how,
        "note": "the model is fitted and evaluated on seeded simple random samples of the files",
    }
    return io, ip, info


def _prefix_sample(n: int, size: int, seed: int) -> np.ndarray:
    """The sorted first ``size`` of a seeded random permutation of ``0..n-1`` (depends on ``n`` and ``seed`` only)."""
    return np.sort(np.random.default_rng(seed).permutation(n)[:size])


def _take(x: np.ndarray, idx: np.ndarray | None) -> np.ndarray:
    return x if idx is None else x[idx]


def _merged(pair: EncodedPair, max_records: int, seed: int, weighted: bool = False) -> _Merged:
    """The merged file; ``weighted``: without the records of weight 0, which count for nothing (they set c =
    n_M/N and each file's rescaled weights: 20 of them moved a pMSE from 0.0259 to 0.0239)."""
    kept = _positive_records(pair) if weighted else None
    key = ("propensity", "merged", int(max_records), int(seed), kept is not None)
    return pair.cached(key, lambda: _build_merged(pair, max_records, seed, kept))


def _positive_records(pair: EncodedPair) -> tuple[np.ndarray, np.ndarray] | None:
    """Each file's records of positive weight, or None when no record has weight 0 (or there are no weights)."""
    w_o, w_p = pair.weights(ORIGINAL), pair.weights(PROTECTED)
    if w_o is None or w_p is None or (w_o.min() > 0 and w_p.min() > 0):
        return None
    kept = np.flatnonzero(w_o > 0), np.flatnonzero(w_p > 0)
    if kept[0].size == 0 or kept[1].size == 0:
        raise NotComputed("the weights of the records of one file sum to zero")
    return kept


def _build_merged(pair: EncodedPair, max_records: int, seed: int,
                  kept: tuple[np.ndarray, np.ndarray] | None = None) -> _Merged:
    _check_pair(pair)
    cont = [n for n in pair.continuous_names if pair.continuous[n].prot is not None]
    cats = [n for n in pair.categorical_names if pair.categorical[n].prot is not None]
    if not cont and not cats:
        raise NotComputed("every analysed variable was removed from the protected file")
    io, ip, info = _sample(pair, max_records, seed, kept)
    n_o = pair.n_orig if io is None else io.shape[0]
    n_p = pair.n_prot if ip is None else ip.shape[0]
    n = n_o + n_p
    y = np.zeros(n)
    y[n_o:] = 1.0
    values, names, indicators, ind_names = [], [], [], []
    for name in cont:
        col = pair.continuous[name]
        x = np.concatenate([_take(col.orig, io), _take(col.prot, ip)])
        miss = np.isnan(x)
        n_miss = int(np.count_nonzero(miss))
        if n_miss == n:
            continue  # missing everywhere: nothing tells the files apart
        x = numeric.scaled(x, numeric.exponent(x))  # exact; the standardised values do not change
        ok = x[~miss] if n_miss else x
        mean = float(ok.mean())
        sd = float(ok.std())
        if sd > 0 and np.isfinite(sd):
            z = (x - mean) / sd
            if n_miss:
                z[miss] = 0.0
            values.append(z)
            names.append(name)
        if n_miss:
            indicators.append(miss.astype(float))
            ind_names.append(f"{name}=<missing>")
    dense = np.column_stack(values + indicators) if values or indicators else np.empty((n, 0))
    codes, labels, grouped = [], [], {}
    for name in cats:
        col = pair.categorical[name]
        cells = np.concatenate([_take(pair.cell_codes(name, ORIGINAL), io), _take(pair.cell_codes(name, PROTECTED), ip)])
        counts = np.bincount(cells, minlength=col.n_categories + 1)
        present = np.flatnonzero(counts)
        keep = limits.top_levels(counts[present])
        if keep is None:
            lookup = np.full(col.n_categories + 1, -1, dtype=np.int32)
            lookup[present] = np.arange(present.shape[0], dtype=np.int32)
            level_cells = present
        else:  # too many levels for a model: the most frequent kept, the others one level
            level_cells = present[keep]
            lookup = np.full(col.n_categories + 1, keep.shape[0], dtype=np.int32)
            lookup[level_cells] = np.arange(keep.shape[0], dtype=np.int32)
            other = present.shape[0] - keep.shape[0]
            grouped[name] = (
                f"{present.shape[0]:,} categories in the merged file (limit {limits.MAX_MODEL_LEVELS} per variable): "
                f"the {keep.shape[0]} most frequent are kept and the other {other:,} grouped into one level"
            )
        codes.append(lookup[cells])
        labels.append([col.categories[i] if i < col.n_categories else "<missing>" for i in level_cells])
        if keep is not None:
            labels[-1].append(f"<{other:,} other categories>")
    w_o, w_p = pair.weights(ORIGINAL), pair.weights(PROTECTED)
    raw_weights = None
    if w_o is not None and w_p is not None:
        raw_weights = np.concatenate([_take(w_o, io), _take(w_p, ip)]).astype(float)
    return _Merged(
        y=y,
        n_o=n_o,
        n_p=n_p,
        dense=np.ascontiguousarray(dense),
        dense_names=names + ind_names,
        indicator=np.array([False] * len(names) + [True] * len(ind_names), dtype=bool),
        cat_names=cats,
        cat_codes=codes,
        cat_labels=labels,
        sample=info,
        variables=cont + cats,
        grouped=grouped,
        raw_weights=raw_weights,
    )


def _csr(
    dense: np.ndarray,
    codes: list[np.ndarray],
    levels: list[np.ndarray],
    scales: list[np.ndarray] | None = None,
) -> sparse.csr_matrix:
    """``[dense | one column per given level of each variable]`` as CSR, built in one pass.

    Level columns hold 1 (or the level's entry of ``scales``) where the record
    has that level; columns follow ``levels`` variable by variable.
    """
    n, q = dense.shape
    idx = [np.broadcast_to(np.arange(q, dtype=np.int64), (n, q))]
    val = [dense]
    offset = q
    for v, (c, lev) in enumerate(zip(codes, levels)):
        if lev.shape[0] == 0:
            continue
        size = max(int(c.max(initial=-1)) + 1, int(lev.max()) + 1)
        lookup = np.full(size, -1, dtype=np.int64)
        lookup[lev] = offset + np.arange(lev.shape[0])
        weight = np.zeros(size)
        weight[lev] = 1.0 if scales is None else scales[v]
        idx.append(lookup[c][:, None])
        val.append(weight[c][:, None])
        offset += lev.shape[0]
    if offset == 0:
        return sparse.csr_matrix((n, 0))
    all_idx = np.hstack(idx)
    keep = all_idx >= 0
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=indptr[1:])
    return sparse.csr_matrix((np.hstack(val)[keep], all_idx[keep], indptr), shape=(n, offset))


# ---------------------------------------------------------------------------
# the logit design: reference categories, aliasing, k
# ---------------------------------------------------------------------------
@dataclass
class _Design:
    dense_keep: np.ndarray  # indices of the merged numeric columns kept
    levels: list[np.ndarray]  # per categorical variable: its non-reference, non-aliased categories
    references: dict[str, str]
    aliased: list[str]

    @property
    def k(self) -> int:
        return 1 + self.dense_keep.shape[0] + sum(lev.shape[0] for lev in self.levels)


def _logit_design(m: _Merged) -> _Design:
    levels, names, references = [], [], {}
    for name, c, lab in zip(m.cat_names, m.cat_codes, m.cat_labels):
        counts = np.bincount(c, minlength=len(lab))
        ref = int(np.argmax(counts))
        references[name] = lab[ref]
        lev = np.array([i for i in range(len(lab)) if i != ref], dtype=np.int64)
        levels.append(lev)
        names += [f"{name}={lab[i]}" for i in lev]
    columns = m.dense.shape[1] + len(names)
    if columns > limits.MAX_MODEL_COLUMNS:
        raise NotComputed(
            f"the logit would have {columns:,} columns (the numbers and a column per category but one of each "
            f"categorical variable), more than the {limits.MAX_MODEL_COLUMNS:,} whose cross-products it checks for "
            "aliasing; list fewer variables in the spec, or use model='cart'"
        )
    keep = _independent_columns(m.dense, m.cat_codes, levels, m.n)
    q = m.dense.shape[1]
    kept = np.zeros(q + len(names), dtype=bool)
    kept[keep] = True
    all_names = m.dense_names + names
    starts = np.cumsum([q] + [lev.shape[0] for lev in levels])
    return _Design(
        dense_keep=np.flatnonzero(kept[:q]),
        levels=[lev[kept[starts[v]:starts[v + 1]]] for v, lev in enumerate(levels)],
        references=references,
        aliased=[all_names[i] for i in np.flatnonzero(~kept)],
    )


def _crosstabs(codes: list[np.ndarray], levels: list[np.ndarray], n: int) -> np.ndarray:
    """The Gram matrix of the 0/1 columns of ``levels`` of each variable: counts of pairs of categories.

    One bincount per pair of variables; with more than 50 variables and few records (the 0/1 columns at most
    ``limits.MAX_DENSE_CELLS`` cells) one BLAS product ``DᵀD`` instead, the same whole numbers exactly (3,000
    variables of 400 records: 1.4 s against 34 s of pairs).  Many records of few variables stay with the
    bincounts (1,000,000 records of 20 variables: 0.5 s against 2.3 s for a sparse product).
    """
    sizes = [int(c.max(initial=-1)) + 1 for c in codes]
    starts = np.cumsum([0] + [lev.shape[0] for lev in levels])
    if len(codes) > 50 and n * int(starts[-1]) <= limits.MAX_DENSE_CELLS:
        d = _csr(np.empty((n, 0)), codes, levels).toarray()
        return d.T @ d
    out = np.zeros((starts[-1], starts[-1]))
    for a, (ca, la) in enumerate(zip(codes, levels)):
        if la.shape[0] == 0:
            continue
        counts = np.bincount(ca, minlength=sizes[a])
        out[starts[a]:starts[a + 1], starts[a]:starts[a + 1]] = np.diag(counts[la].astype(float))
        for b in range(a + 1, len(codes)):
            lb = levels[b]
            if lb.shape[0] == 0:
                continue
            table = np.bincount(ca.astype(np.int64) * sizes[b] + codes[b], minlength=sizes[a] * sizes[b])
            block = table.reshape(sizes[a], sizes[b])[np.ix_(la, lb)]
            out[starts[a]:starts[a + 1], starts[b]:starts[b + 1]] = block
            out[starts[b]:starts[b + 1], starts[a]:starts[a + 1]] = block.T
    return out


def _independent_columns(dense: np.ndarray, codes: list[np.ndarray], levels: list[np.ndarray], n: int) -> np.ndarray:
    """Indices (dense first, then dummies) of a maximal set of columns independent of each other and the intercept.

    Pivoted Cholesky of the correlation matrix of the columns (the centred
    Gram matrix, which projects out the intercept): a column is aliased when
    less than ``_ALIAS_TOL`` of its variance is left after the columns
    pivoted before it.
    """
    q, L = dense.shape[1], sum(lev.shape[0] for lev in levels)
    p = q + L
    if p == 0:
        return np.empty(0, dtype=np.int64)
    gram = np.empty((p, p))
    sums = np.empty(p)
    if q:
        gram[:q, :q] = np.dot(dense.T, dense)
        sums[:q] = dense.sum(axis=0)
    if L:
        gram[q:, q:] = _crosstabs(codes, levels, n)
        sums[q:] = np.diag(gram[q:, q:])
        if q:
            cross = np.asarray(_csr(np.empty((n, 0)), codes, levels).T @ dense)
            gram[q:, :q] = cross
            gram[:q, q:] = cross.T
    mean = sums / n
    cov = gram / n - np.outer(mean, mean)
    var = np.diag(cov).copy()
    live = np.flatnonzero(var > 1e-12 * np.maximum(1.0, np.abs(mean) ** 2))
    if live.shape[0] == 0:
        return live.astype(np.int64)
    s = 1.0 / np.sqrt(var[live])
    corr = cov[np.ix_(live, live)] * s[:, None] * s[None, :]
    _, piv, rank, info = lapack.dpstrf(corr, tol=_ALIAS_TOL, lower=1)
    if info < 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"dpstrf failed with info={info}")
    return np.sort(live[piv[:rank] - 1]).astype(np.int64)


# ---------------------------------------------------------------------------
# fits
# ---------------------------------------------------------------------------
def _separated_records(m: _Merged, positive: np.ndarray | None = None) -> np.ndarray:
    """Records whose fitted propensity is 0 or 1 in the limit: a category or indicator of one file only.

    Repeated on the remaining records until no such category is left.  With
    ``positive`` (records of positive weight) only those records count.
    """
    y = m.y.astype(bool)
    out = np.zeros(m.n, dtype=bool)
    counted = np.ones(m.n, dtype=bool) if positive is None else positive
    groups = list(m.cat_codes)
    groups += [m.dense[:, j].astype(np.int64) for j in np.flatnonzero(m.indicator)]
    while True:
        rest = ~out
        added = False
        for g in groups:
            size = int(g.max(initial=0)) + 1
            n_o = np.bincount(g[rest & counted & ~y], minlength=size)
            n_p = np.bincount(g[rest & counted & y], minlength=size)
            one = ((n_o == 0) | (n_p == 0)) & (n_o + n_p > 0)
            if one.any():
                hit = rest & one[g]
                if hit.any():
                    out |= hit
                    rest = ~out
                    added = True
        if not added or out.all():
            return out


def _logit_fit(m: _Merged, w: np.ndarray | None = None) -> dict:
    ConvergenceWarning = import_alone("sklearn.exceptions").ConvergenceWarning
    LogisticRegression = import_alone("sklearn.linear_model").LogisticRegression

    design = _logit_design(m)
    y = m.y
    p_hat = y.copy()  # limit for separated records
    sep = _separated_records(m, None if w is None else w > 0)
    rest = np.flatnonzero(~sep)
    info: dict = {"converged": True, "iterations": 0, "warnings": []}
    separation = "none"
    if sep.any():
        separation = "quasi-complete"
    # remaining records that all have weight 0 add nothing to the weighted likelihood: the records that count
    # are all separated (sklearn refuses a fit with no positive weight)
    if rest.shape[0] and 0 < y[rest].sum() < rest.shape[0] and (w is None or bool((w[rest] > 0).any())):
        x_dense = m.dense[np.ix_(rest, design.dense_keep)]
        sd = x_dense.std(axis=0)
        ok_d = sd > 0
        x_dense = (x_dense[:, ok_d] - x_dense[:, ok_d].mean(axis=0)) / sd[ok_d]
        codes = [c[rest] for c in m.cat_codes]
        levels, scales = [], []
        for c, lev in zip(codes, design.levels):
            share = np.bincount(c, minlength=int(lev.max(initial=-1)) + 1)[lev] / rest.shape[0]
            ok = (share > 0) & (share < 1)
            levels.append(lev[ok])
            scale = np.zeros(int(lev.max(initial=-1)) + 1)
            scale[lev[ok]] = 1.0 / np.sqrt(share[ok] * (1 - share[ok]))
            scales.append(scale[lev[ok]])
        x = _csr(x_dense, codes, levels, scales)
        if x.shape[1] == 0:
            weighted = w is not None and w[rest].sum() > 0  # intercept only: the (weighted) share of protected records
            p_hat[rest] = np.average(y[rest], weights=w[rest]) if weighted else y[rest].mean()
        else:
            tol = _LOGIT_TOL if rest.shape[0] <= _LOGIT_LARGE else _LOGIT_TOL_LARGE
            model = LogisticRegression(C=np.inf, solver="newton-cg", tol=tol, max_iter=_LOGIT_MAX_ITER)
            with recorded_warnings() as caught:
                model.fit(x, y[rest], sample_weight=None if w is None else w[rest])
                eta = model.decision_function(x)
            messages = [str(w.message).split("\n")[0] for w in caught if not issubclass(w.category, DeprecationWarning)]
            iterations = int(np.max(model.n_iter_))
            converged = iterations < _LOGIT_MAX_ITER and not any(
                issubclass(w.category, ConvergenceWarning) for w in caught
            )
            info.update(converged=converged, iterations=iterations, warnings=sorted(set(messages)))
            yr = y[rest].astype(bool)
            live = np.ones(rest.shape[0], dtype=bool) if w is None else w[rest] > 0
            if eta[yr & live].min(initial=np.inf) > eta[~yr & live].max(initial=-np.inf):
                # the fitted linear predictor separates the files: no finite maximum exists and the
                # likelihood's supremum is the limit p = y (the solver stops on a flat gradient first)
                p_hat[rest] = y[rest]
                separation = "complete"
            else:
                p_hat[rest] = 1.0 / (1.0 + np.exp(-np.clip(eta, -700, 700)))
                if separation == "none" and np.abs(eta[live]).max(initial=0.0) > _SEPARATION_ETA:
                    # fitted propensities at 0 or 1 (a continuous variable that nearly splits the files):
                    # the solver stopped on a flat gradient while a coefficient runs off; pMSE is at its limit
                    separation = "quasi-complete"
    else:
        separation = "complete"  # every record, or every remaining one (of positive weight), is of one file: p = y
    c = m.c
    return {
        "p": p_hat,
        "pmse": _pmse_value(p_hat, c, w),
        "k": design.k,
        "separated": int(sep.sum()),
        "separation": separation,
        "design": design,
        **info,
    }


def _pmse_value(p: np.ndarray, c: float, w: np.ndarray | None) -> float:
    """pMSE = Σ w_i (p_i − c)² / N (w: weights of mean 1 per file; None: unweighted)."""
    sq = (p - c) ** 2
    return float(np.mean(sq)) if w is None else float(np.dot(w, sq) / p.shape[0])


def _cart_columns(m: _Merged) -> tuple[sparse.csc_matrix, list[str]]:
    levels = [np.arange(len(lab), dtype=np.int64) for lab in m.cat_labels]
    names = m.dense_names + [f"{n}={lab}" for n, labs in zip(m.cat_names, m.cat_labels) for lab in labs]
    x = _csr(m.dense, m.cat_codes, levels).tocsc()
    return x, names


def _cart_pmse(
    x: sparse.csc_matrix, y: np.ndarray, c: float, seed: int, w: np.ndarray | None = None
) -> tuple[float, int]:
    DecisionTreeClassifier = import_alone("sklearn.tree").DecisionTreeClassifier
    if x.shape[1] == 0:
        return 0.0, 1
    tree = DecisionTreeClassifier(
        min_samples_leaf=_CART_MIN_LEAF,
        min_impurity_decrease=_CART_CP * 2 * c * (1 - c),
        random_state=seed,
    )
    tree.fit(x, y, sample_weight=w)
    p = tree.predict_proba(x)[:, list(tree.classes_).index(1.0)] if 1.0 in tree.classes_ else np.zeros(y.shape[0])
    return _pmse_value(p, c, w), int(tree.get_n_leaves())


def _fit(pair: EncodedPair, model: str, max_records: int, seed: int, use_w: bool = False) -> dict:
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    max_records = _check_records(max_records)
    key = ("propensity", model, max_records, int(seed), bool(use_w))

    def compute() -> dict:
        m = _merged(pair, max_records, seed, use_w)
        w = m.weights() if use_w else None
        if model == "logit":
            with thread_limits(1):  # the same last bits on any machine, alone or beside
                fit = _logit_fit(m, w)
        else:
            x, _ = _cart_columns(m)
            value, leaves = _cart_pmse(x, m.y, m.c, seed, w)
            fit = {"pmse": value, "k": leaves, "separated": None}
        fit["merged"] = m
        fit["deff"] = 1.0 if w is None else float(np.mean(w**2))  # Kish: N Σw² / (Σw)² with Σw = N
        fit["weighted"] = bool(use_w)
        return fit

    return pair.cached(key, compute)


def _permutation_null(
    pair: EncodedPair, max_records: int, seed: int, n_permutations: int, use_w: bool = False
) -> tuple[float, float]:
    if int(n_permutations) < 2:
        raise ValueError("n_permutations must be at least 2")
    key = ("propensity", "cart-null", _check_records(max_records), int(seed), int(n_permutations), bool(use_w))

    def compute() -> tuple[float, float]:
        m = _merged(pair, max_records, seed, use_w)
        x, _ = _cart_columns(m)
        rng = np.random.default_rng([int(seed), 1])
        values = []
        for _ in range(int(n_permutations)):
            y = rng.permutation(m.y)  # each record keeps its weight, normalised within its permuted file
            values.append(_cart_pmse(x, y, m.c, seed, m.weights(y) if use_w else None)[0])
        return float(np.mean(values)), float(np.std(values, ddof=1))

    return pair.cached(key, compute)


def _null(pair: EncodedPair, fit: dict, model: str, max_records: int, seed: int, n_permutations: int) -> dict:
    m: _Merged = fit["merged"]
    c, n = m.c, m.n
    if model == "logit":
        if fit["k"] <= 1:
            raise NotComputed(
                "the propensity model has only an intercept (no variable varies in the merged file), "
                "so the null expectation of the pMSE is 0"
            )
        deff = fit.get("deff", 1.0)
        e0 = (fit["k"] - 1) * (1 - c) ** 2 * c / n * deff
        sd0 = math.sqrt(2 * (fit["k"] - 1)) * (1 - c) ** 2 * c / n * deff
        out = {
            "e0": e0,
            "sd0": sd0,
            "null": "Snoke et al. (2018): E0 = (k-1)(1-c)^2 c/N, SD0 = sqrt(2(k-1))(1-c)^2 c/N, the null of data "
            "synthesised from a correct model fitted to the original; two independent samples of one "
            "distribution have the larger e0_independent = (k-1)c(1-c)/N = E0/(1-c)",
            "e0_independent": (fit["k"] - 1) * c * (1 - c) / n * deff,
            "sd0_independent": math.sqrt(2 * (fit["k"] - 1)) * c * (1 - c) / n * deff,
        }
        if fit.get("weighted"):
            out["deff"] = deff
            out["null_weights"] = "weighted: E0, SD0 multiplied by Kish's design effect deff = N Σw²/(Σw)² (approximation)"
        return out
    e0, sd0 = _permutation_null(pair, max_records, seed, n_permutations, bool(fit.get("weighted")))
    if not e0 > 0 or not sd0 > 0:
        raise NotComputed("the permuted CART fits all have pMSE 0 (the trees never split), so there is no null scale")
    return {
        "e0": e0,
        "sd0": sd0,
        "null": f"permutation null: mean and standard deviation of the pMSE of {int(n_permutations)} trees "
        "fitted to randomly permuted file labels (synthpop's CART S_pMSE divides by half that mean)",
    }


def _details(fit: dict, model: str) -> dict:
    m: _Merged = fit["merged"]
    out: dict = {
        "model": (
            "logistic regression, main effects, unpenalised (scikit-learn LogisticRegression, newton-cg)"
            if model == "logit"
            else f"CART (scikit-learn DecisionTreeClassifier, min_samples_leaf={_CART_MIN_LEAF}, "
            f"min_impurity_decrease={_CART_CP} x root Gini)"
        ),
        "model_id": model,
        "k": int(fit["k"]),
        "c": m.c,
        "N": int(m.n),
        "n_orig": int(m.n_o),
        "n_prot": int(m.n_p),
        "sampled": m.sample is not None,
        "sample": m.sample,
        "variables": list(m.variables),
        "weights": WEIGHTS_NOTE,
        "max_pmse": m.c * (1 - m.c),
    }
    if m.grouped:
        out["grouped"] = dict(m.grouped)
    if fit.get("weighted"):
        out["weights"] = WEIGHTED_NOTE
    if model == "logit":
        design: _Design = fit["design"]
        out.update(
            k_meaning="parameters of the logit: intercept + non-aliased columns",
            reference_categories=design.references,
            aliased=design.aliased,
            separated=fit["separated"],
            separation=fit["separation"],
            converged=fit["converged"],
            iterations=fit["iterations"],
        )
        if fit["warnings"]:
            out["warnings"] = fit["warnings"]
    else:
        out["k_meaning"] = "number of leaves of the tree"
    return out



def _over_seeds(
    pair: EncodedPair, model: str, max_records: int, seed: int, seeds: int, use_w: bool,
    statistic: Callable[[dict], float],
) -> tuple[float, dict, dict]:
    """``statistic`` of the fit, averaged over ``seeds`` seeds when the fit depends on the seed.

    A logit fitted to every record has no random step: one fit, the same
    for every seed.  A sample of a large file, or CART (whose tie-breaks
    between equally good splits follow the seed), gives a value per seed
    ``seed, seed+1, …``: the mean, with the spread in ``details["seeds"]``
    (mean, sd, min, max, values).  Returns the value, the first seed's fit
    (its details describe the model) and the details to add.
    """
    from ._mining_data import seeds as seed_range, spread

    first = _fit(pair, model, max_records, seed, use_w)
    if model == "logit" and first["merged"].sample is None:
        return statistic(first), first, {"depends_on_seed": False}
    seed_list = seed_range(seed, seeds)
    values = [statistic(first)] + [statistic(_fit(pair, model, max_records, s, use_w)) for s in seed_list[1:]]
    summary = spread(values, seed_list)
    return summary["mean"], first, {"depends_on_seed": True, "seeds": summary}


_MODEL = Option("model", "choice", "logit", "the propensity model: logistic with main effects, or CART", choices=MODELS)
_MAX_RECORDS = Option("max_records", "int", 50_000, "largest merged file the model is fitted on (a seeded sample beyond)", low=2)
_SEED = Option("seed", "int", 0, "the first seed of the sample (and of CART's tie-breaks)", low=0, high=MAX_SEED)
_SEEDS = Option("seeds", "int", 3, "seeds the value is averaged over when the fit depends on one (a sample of a large "
                "file, CART's tie-breaks); one fit otherwise", low=1, high=100)
PMSE_OPTIONS = (_MODEL, _MAX_RECORDS, _SEED, _SEEDS, WEIGHTED)
PMSE_NULL_OPTIONS = PMSE_OPTIONS + (
    Option("n_permutations", "int", 20, "permutations for CART's null distribution", low=2, high=1000, when="model=cart"),
)
CLUSTER_OPTIONS = (
    Option("G", "int", None, "number of k-means clusters (auto: 1% of the merged records, at least 2)", low=2,
           nullable=True),
    Option("max_records", "int", 5000, "largest merged file that is clustered (a seeded sample beyond)", low=2),
    Option("seed", "int", 0, "the first seed of the samples and k-means starts", low=0, high=MAX_SEED),
    Option("seeds", "int", 5, "number of seeds (sample and k-means start) U_c is averaged over", low=1, high=100),
    WEIGHTED,
)

@measure(
    "pmse",
    shares_cores=True,
    family="propensity",
    description="propensity-score mean squared error: how well a model tells the files apart (0: not at all)",
    range=(0, 0.25),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=PMSE_OPTIONS,
)
def pmse(
    pair: EncodedPair, *, model: str = "logit", max_records: int = 50_000, seed: int = 0, seeds: int = 3,
    weighted: bool | None = None,
) -> MeasureResult:
    r"""Propensity-score mean squared error (Woo et al. 2009; Snoke et al. 2018).

    .. math::

        pMSE = \frac{1}{N}\sum_{i=1}^{N} (\hat p_i - c)^2, \qquad c = \frac{n_M}{N}

    over the merged file of :math:`n_O` original and :math:`n_M` protected
    records, :math:`N = n_O + n_M`; :math:`\hat p_i` is the fitted
    probability that record :math:`i` is protected.  It lies in
    :math:`[0, c(1-c)]`: 0 when the model cannot tell the files apart,
    :math:`c(1-c)` when it separates them perfectly.  The coding of the
    variables, the handling of separation and sampling are in the module
    documentation.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    model : {"logit", "cart"}
        Logistic regression with main effects (default) or a classification tree.
    max_records : int
        A file with more records is replaced by a seeded simple random
        sample (the larger file to ``max_records``, the other with the same
        sampling fraction); default 50,000.
    seed : int
        The first seed of the sampling and of the tree's tie-breaks.
    seeds : int
        When the fit depends on the seed (a sampled file, or CART), the
        value is the mean over the seeds ``seed, …, seed + seeds − 1``
        (default 3: each is one more fit, about 0.9 s at the default
        ``max_records``) and ``details["seeds"]`` gives its spread; a logit
        on every record is fitted once (``details["depends_on_seed"]``
        False).
    weighted : bool, optional
        Fit and average with the survey weights (see the module notes);
        default: when both files have weights.

    Returns
    -------
    MeasureResult
        value pMSE; details (of the first seed's fit): ``model``, ``k``
        (parameters), ``c``, ``N``, ``e0`` and ``sd0`` (null expectation and
        standard deviation, logit only), ``sampled``/``sample``,
        ``separated`` (records in a category of one file only), ``aliased``
        columns, ``converged``, ``weights``; ``depends_on_seed`` and, when
        it does, ``seeds`` (mean, sd, min, max and the value per seed).

    References
    ----------
    Snoke, J., Raab, G. M., Nowok, B., Dibben, C. & Slavković, A. (2018).
    General and specific utility measures for synthetic data. *Journal of
    the Royal Statistical Society A* 181(3), 663-688.

    Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global
    measures of data utility for microdata masked for disclosure limitation.
    *Journal of Privacy and Confidentiality* 1(1), 111-124.

    Examples
    --------
    Two original and four protected records that ``x`` separates perfectly:
    every fitted propensity is 0 or 1, so pMSE = c(1 - c) with c = 4/6.

    >>> import pandas as pd
    >>> from infoloss.measures.propensity import pmse
    >>> orig = pd.DataFrame({"x": [1.0, 2.0]})
    >>> prot = pd.DataFrame({"x": [3.0, 4.0, 5.0, 6.0]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
    >>> r = pmse(orig, prot, spec)
    >>> round(r.value, 6), round(2 / 3 * (1 - 2 / 3), 6), r.details["k"]
    (0.222222, 0.222222, 2)
    """
    use_w, wdetails = _weighting(pair, weighted, "pmse")
    value, fit, by_seed = _over_seeds(pair, model, max_records, seed, seeds, use_w, lambda f: f["pmse"])
    details = {**_details(fit, model), **wdetails}
    if model == "logit" and fit["k"] > 1:
        details.update({k: v for k, v in _null(pair, fit, model, max_records, seed, 20).items()})
    return MeasureResult(value=value, details={**details, **by_seed})


def _against_null(
    pair: EncodedPair, model: str, max_records: int, seed: int, seeds: int, n_permutations: int, use_w: bool,
    form: Callable[[float, dict], float],
) -> tuple[float, dict]:
    """``form(pMSE, null)`` averaged over the seeds (:func:`_over_seeds`), and the details of pmse_ratio and
    pmse_std.  The logit's null is each fit's own (it follows k, c and N); CART's permutation null is fitted once,
    on the first seed's sample (every seed's sample has the same size and share c), since each seed's would be
    ``n_permutations`` more trees."""
    first = _fit(pair, model, max_records, seed, use_w)
    null = _null(pair, first, model, max_records, seed, n_permutations)

    def statistic(fit: dict) -> float:
        own = null if model == "cart" or fit is first else _null(pair, fit, model, max_records, seed, n_permutations)
        return form(fit["pmse"], own)

    value, _, by_seed = _over_seeds(pair, model, max_records, seed, seeds, use_w, statistic)
    mean_pmse, _, _ = _over_seeds(pair, model, max_records, seed, seeds, use_w, lambda f: f["pmse"])
    return value, {**_details(first, model), **null, "pmse": mean_pmse, **by_seed}


@measure(
    "pmse_ratio",
    shares_cores=True,
    family="propensity",
    description="pMSE over its null expectation E0: about 1 for a correct synthesis; 0 for identical files "
    "(pMSE = 0)",
    range=(0, None),
    better="target",
    ideal=1,
    needs_pairing=False,
    options=PMSE_NULL_OPTIONS,
)
def pmse_ratio(
    pair: EncodedPair, *, model: str = "logit", max_records: int = 50_000, seed: int = 0, seeds: int = 3,
    n_permutations: int = 20, weighted: bool | None = None,
) -> MeasureResult:
    r"""The pMSE ratio: the pMSE over its null expectation (Snoke et al. 2018).

    .. math::

        \frac{pMSE}{E_0}, \qquad E_0 = \frac{(k-1)(1-c)^2 c}{N}

    :math:`k` = number of parameters of the logit (intercept included,
    non-aliased), :math:`c = n_M/N`.  :math:`E_0` is Snoke et al.'s null
    expectation, that of a protected file *synthesised from a correct model
    fitted to the original*: such files give a ratio of about 1 in
    expectation (any one pair scatters around it).  Two *independent*
    samples of one distribution differ more: their expected pMSE is
    :math:`(k-1)c(1-c)/N = E_0/(1-c)` (``details["e0_independent"]``), so
    their ratio is about :math:`1/(1-c)`, 2 for files of equal size.  A
    subsample of the original differs less (a 50 % subsample: about 1/2).
    The ratio grows with detectable differences; a file against itself
    gives 0.  With ``model="cart"``, :math:`E_0` is the mean pMSE of trees
    fitted to permuted file labels (``n_permutations`` of them, seeded),
    the null of two files from one distribution.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    model : {"logit", "cart"}
        Logistic regression with main effects (default) or a classification tree.
    max_records : int
        Per-file sample size for large files; see :func:`pmse`.
    seed : int
        The first seed of the sampling, the tree's tie-breaks and the
        permutations.
    seeds : int
        As for :func:`pmse`: the mean over the seeds when the fit depends on
        one (each seed's pMSE against the logit's null of its own fit, or
        against CART's one permutation null), the spread in
        ``details["seeds"]``.
    n_permutations : int
        Number of label permutations for the CART null (ignored for the logit).
    weighted : bool, optional
        Fit and average with the survey weights; the logit's null is scaled
        by Kish's design effect (see the module notes).  Default: when both
        files have weights.

    Returns
    -------
    MeasureResult
        value pMSE/E0; details as :func:`pmse` plus ``pmse``, ``e0``, ``sd0``, ``null``.

    Raises
    ------
    NotComputed
        When the model has no parameter besides the intercept (E0 = 0).

    References
    ----------
    Snoke, J., Raab, G. M., Nowok, B., Dibben, C. & Slavković, A. (2018).
    General and specific utility measures for synthetic data. *Journal of
    the Royal Statistical Society A* 181(3), 663-688.

    Examples
    --------
    The perfectly separable pair of :func:`pmse`: pMSE = c(1-c) = 2/9 and
    k = 2, so E0 = (1/3)^2 (2/3) / 6 = 1/81 and the ratio is 18.

    >>> import pandas as pd
    >>> from infoloss.measures.propensity import pmse_ratio
    >>> orig = pd.DataFrame({"x": [1.0, 2.0]})
    >>> prot = pd.DataFrame({"x": [3.0, 4.0, 5.0, 6.0]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
    >>> round(pmse_ratio(orig, prot, spec).value, 6)
    18.0
    """
    use_w, wdetails = _weighting(pair, weighted, "pmse")
    value, details = _against_null(pair, model, max_records, seed, seeds, n_permutations, use_w,
                                   lambda p, null: p / null["e0"])
    return MeasureResult(value=value, details={**details, **wdetails})


@measure(
    "pmse_std",
    shares_cores=True,
    family="propensity",
    description="standardised pMSE, (pMSE - E0)/SD0: about 0 for a correct synthesis; negative for identical "
    "files (pMSE = 0; -sqrt((k-1)/2) with the logit)",
    range=(None, None),
    better="target",
    ideal=0,
    needs_pairing=False,
    options=PMSE_NULL_OPTIONS,
)
def pmse_std(
    pair: EncodedPair, *, model: str = "logit", max_records: int = 50_000, seed: int = 0, seeds: int = 3,
    n_permutations: int = 20, weighted: bool | None = None,
) -> MeasureResult:
    r"""The standardised pMSE (Snoke et al. 2018).

    .. math::

        \frac{pMSE - E_0}{SD_0}, \qquad
        E_0 = \frac{(k-1)(1-c)^2 c}{N}, \quad SD_0 = \frac{\sqrt{2(k-1)}\,(1-c)^2 c}{N}

    About standard normal (logit, large :math:`N`) for a file synthesised
    from a correct model fitted to the original; see :func:`pmse_ratio` for
    other nulls.  Its smallest possible value, at pMSE = 0 (a file against
    itself), is :math:`-\sqrt{(k-1)/2}`.  With ``model="cart"``, :math:`E_0`
    and :math:`SD_0` are the mean and standard deviation of the pMSE of trees
    fitted to permuted file labels.  (The registry declares the range
    unbounded: the lower end depends on ``k``.)

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    model : {"logit", "cart"}
        Logistic regression with main effects (default) or a classification tree.
    max_records : int
        Per-file sample size for large files; see :func:`pmse`.
    seed, seeds : int
        The first seed and the number of seeds; see :func:`pmse_ratio`.
    n_permutations : int
        Number of label permutations for the CART null (ignored for the logit).
    weighted : bool, optional
        Fit and average with the survey weights; the logit's null is scaled
        by Kish's design effect (see the module notes).  Default: when both
        files have weights.

    Returns
    -------
    MeasureResult
        value (pMSE - E0)/SD0; details as :func:`pmse_ratio`.

    Raises
    ------
    NotComputed
        When the model has no parameter besides the intercept (SD0 = 0).

    References
    ----------
    Snoke, J., Raab, G. M., Nowok, B., Dibben, C. & Slavković, A. (2018).
    General and specific utility measures for synthetic data. *Journal of
    the Royal Statistical Society A* 181(3), 663-688.

    Examples
    --------
    A file against itself: pMSE = 0, so the value is -E0/SD0 = -sqrt((k-1)/2);
    with one continuous variable k = 2.

    >>> import pandas as pd
    >>> from infoloss.measures.propensity import pmse_std
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 4.0, 8.0]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
    >>> round(pmse_std(df, df.copy(), spec).value, 6), round(-(1 / 2) ** 0.5, 6)
    (-0.707107, -0.707107)
    """
    use_w, wdetails = _weighting(pair, weighted, "pmse")
    value, details = _against_null(pair, model, max_records, seed, seeds, n_permutations, use_w,
                                   lambda p, null: (p - null["e0"]) / null["sd0"])
    return MeasureResult(value=value, details={**details, **wdetails})


# ---------------------------------------------------------------------------
# cluster measure
# ---------------------------------------------------------------------------
#: largest merged file (records × one-hot columns) clustered as a dense array
_DENSE_CELLS = 20_000_000


def _clusters(pair: EncodedPair, G: int | None, max_records: int, seed: int, use_w: bool = False) -> dict:
    max_records = _check_records(max_records)
    key = ("propensity", "clusters", None if G is None else int(G), max_records, int(seed), bool(use_w))

    def compute() -> dict:
        from sklearn.cluster import KMeans

        m = _merged(pair, max_records, seed, use_w)
        n = m.n
        w = m.weights() if use_w else None
        g = max(2, n // 100) if G is None else int(G)
        if G is not None and (int(G) != G or g < 1):
            raise ValueError("G must be a positive whole number")
        if g > n:
            raise NotComputed(f"G = {g} clusters are more than the {n} records of the merged file")
        levels = [np.arange(len(lab), dtype=np.int64) for lab in m.cat_labels]
        x = _csr(m.dense, m.cat_codes, levels)
        dense = x.shape[0] * x.shape[1] <= _DENSE_CELLS
        if dense:  # dense k-means (BLAS distances) is several times faster
            x = x.toarray()
        distinct = _n_distinct(x)
        if x.shape[1] == 0 or distinct == 1:
            labels = np.zeros(n, dtype=np.int64)
            note = "every record has the same values: one cluster"
            caught_msgs: list[str] = []
        else:
            g_fit = min(g, distinct)
            km = KMeans(n_clusters=g_fit, n_init=1, random_state=seed, algorithm="lloyd")
            if all(c.min(initial=0) >= 0 for c in m.cat_codes):
                # scikit-learn's own k-means++ centres, found without its products with the whole matrix (on a
                # sparse one, each product converted it to CSC: 12 of 35 s for 20,000 merged records x 5,225
                # columns, 5 seeds)
                from ._kmeans_seeding import onehot_kmeans_plusplus

                picked = onehot_kmeans_plusplus(m.dense, m.cat_codes, w, g_fit, np.random.RandomState(seed))
                if picked is not None:
                    km.set_params(init=x[picked] if dense else x[picked].toarray())
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                labels = km.fit_predict(x, sample_weight=w)
            caught_msgs = sorted({str(w.message).split("\n")[0] for w in caught
                                  if not issubclass(w.category, DeprecationWarning)})
            note = None if g_fit == g else f"only {distinct} distinct records, so at most {distinct} clusters"
        k = int(labels.max()) + 1
        n_orig_in = np.bincount(labels[: m.n_o], weights=None if w is None else w[: m.n_o], minlength=k)
        # each file summed on its own, so that a file and its copy give n_jO / n_j = 1/2 exactly
        sizes = n_orig_in + np.bincount(labels[m.n_o:], weights=None if w is None else w[m.n_o:], minlength=k)
        used = sizes > 0
        c = m.n_o / n
        terms = (n_orig_in[used] / sizes[used] - c) ** 2
        return {
            "value": float(terms.mean()),
            "G": int(g),
            "clusters": int(used.sum()),
            "c": c,
            "merged": m,
            "sizes": sizes[used],
            "note": note,
            "warnings": caught_msgs,
        }

    return pair.cached(key, compute)


def _n_distinct(x: sparse.csr_matrix) -> int:
    """Number of distinct rows, from a random projection of each row (equal rows, equal hash)."""
    if x.shape[1] == 0:
        return 1
    projection = np.random.default_rng(12345).standard_normal(x.shape[1])
    return int(np.unique(x @ projection).shape[0])


@measure(
    "cluster_utility",
    family="propensity",
    description="Woo et al. U_c: how unevenly the files share k-means clusters of the merged file",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    options=CLUSTER_OPTIONS,
)
def cluster_utility(
    pair: EncodedPair, *, G: int | None = None, max_records: int = 5_000, seed: int = 0, seeds: int = 5,
    weighted: bool | None = None
) -> MeasureResult:
    r"""Woo et al.'s cluster measure :math:`U_c`.

    .. math::

        U_c = \frac{1}{G}\sum_{j=1}^{G} w_j \left(\frac{n_{jO}}{n_j} - c\right)^2,
        \qquad c = \frac{n_O}{N}, \quad w_j = 1

    :math:`G` clusters are fitted to the merged file of :math:`n_O` original
    and :math:`n_M` protected records (:math:`N = n_O + n_M`) without the
    file label; cluster :math:`j` holds :math:`n_j` records, :math:`n_{jO}` of
    them original.  0 when every cluster holds the files in the proportion
    of the merged file (as for a file against itself); at most
    :math:`\max(c, 1-c)^2`.

    The clusters are k-means clusters (scikit-learn ``KMeans``, k-means++
    start, one run seeded by ``seed``) of the records coded as: continuous
    variables standardised on the merged file (missing → 0, plus a 0/1
    missing indicator), every category of a categorical variable (missing
    included) a 0/1 column.  Clusters left empty are not counted.  The
    k-means++ centres are found from the continuous columns and the category
    codes (:mod:`infoloss.measures._kmeans_seeding`: the records scikit-learn
    picks, several times faster, or scikit-learn's own seeding when a pick is
    too close to call), so the clusters are scikit-learn's.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    G : int, optional
        Number of clusters; default 1 % of the merged records (of the
        sample, when sampled), at least 2.
    weighted : bool, optional
        Weighted k-means and weighted counts ``n_jO``, ``n_j`` (weights
        rescaled to each file's number of records); default: when both files
        have weights.
    max_records : int
        A file with more records is replaced by a seeded simple random
        sample (the larger file to ``max_records``, the other with the same
        sampling fraction); default 5,000 (k-means costs N·G, that is N²/100
        with the default G).
    seed : int
        The first seed of the sampling and of the k-means start.
    seeds : int
        U_c depends on the k-means start (and the sample): it is computed
        for the seeds ``seed, seed+1, ..., seed+seeds-1`` (default 5) and the
        value is their mean; ``details["seeds"]`` gives every seed's U_c
        with the sd, min and max (on Tarragona they differ several-fold).

    Returns
    -------
    MeasureResult
        value: the mean :math:`U_c` over seeds; details: ``seeds`` (mean, sd,
        min, max, values), and for the first seed ``G``, ``clusters``
        (non-empty), ``c``, ``clustered`` (what was clustered),
        ``cluster_sizes`` (min, max), ``sampled``/``sample``; ``weights``.

    References
    ----------
    Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global
    measures of data utility for microdata masked for disclosure limitation.
    *Journal of Privacy and Confidentiality* 1(1), 111-124.

    Examples
    --------
    Two well-separated groups of values; the original has 3 records in the
    low one and 1 in the high one, the protected file the reverse.  With
    G = 2 each cluster is 3/4 or 1/4 original while c = 1/2, so
    U_c = ((1/4)^2 + (1/4)^2)/2 = 1/16.

    >>> import pandas as pd
    >>> from infoloss.measures.propensity import cluster_utility
    >>> orig = pd.DataFrame({"x": [0.0, 0.1, 0.2, 10.0]})
    >>> prot = pd.DataFrame({"x": [0.1, 10.0, 10.1, 10.2]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
    >>> cluster_utility(orig, prot, spec, G=2).value
    0.0625
    """
    from ._mining_data import seeds as seed_range
    from ._mining_data import spread

    use_w, wdetails = _weighting(pair, weighted, "cluster_utility")
    seed_list = seed_range(seed, seeds)
    runs = [_clusters(pair, G, max_records, s, use_w) for s in seed_list]
    res = runs[0]
    m: _Merged = res["merged"]
    details = {
        "G": res["G"],
        "clusters": res["clusters"],
        "c": res["c"],
        "N": int(m.n),
        "cluster_sizes": {"min": float(res["sizes"].min()), "max": float(res["sizes"].max())},
        "algorithm": "k-means (scikit-learn KMeans, lloyd, k-means++ start, 1 run per seed, random_state=seed)",
        "seeds": spread([r["value"] for r in runs], seed_list),
        "clustered": "merged file: continuous variables standardised on it (missing -> 0 plus a 0/1 missing "
        "indicator), each category of a categorical variable (missing included) as a 0/1 column",
        "cluster_weights": "w_j = 1",
        "variables": list(m.variables),
        "sampled": m.sample is not None,
        "sample": m.sample,
        "weights": WEIGHTS_NOTE,
    }
    if m.grouped:
        details["grouped"] = dict(m.grouped)
    if res["note"]:
        details["note"] = res["note"]
    caught = [w for r in runs for w in r["warnings"]]
    if caught:
        details["warnings"] = sorted(set(caught))
    if use_w:
        details["weights"] = "survey weights, rescaled to sum to each file's number of records: weighted k-means " \
            "(sample_weight) and weighted counts n_jO, n_j"
    details.update(wdetails)
    return MeasureResult(value=details["seeds"]["mean"], details=details)
