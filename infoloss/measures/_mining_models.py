"""Models, splits and scores behind the classification and regression utility measures (``mining.py``).

Everything that depends only on the original file (the split, the
reference model fitted on the original, the baseline and removal models) is
cached with ``EncodedPair.cached_original`` and so computed once for all the
scenarios of a ``compare`` run; the protected-trained model is cached on the
pair, so the measures of one scenario share it.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import NotComputed
from ..numeric import unscale
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from . import _mining_data as md

MODELS = ("hgb", "linear", "tree")
CLASSIFICATION_METRICS = ("balanced_accuracy", "accuracy", "f1_macro", "roc_auc")
REGRESSION_METRICS = ("r2", "rmse")
MIN_RECORDS = 20  # fewest original records with a target value for a split
MAX_CLASSES = 50  # most classes of a classification target (original records with a target value)
HGB_MAX_CATEGORIES = 255  # HistGradientBoosting's native categorical support (max_bins)
TREE_CP = 0.01  # rpart's default complexity parameter
HGB_EARLY_STOPPING = 1000  # fewest training records for early stopping on a 10 % validation part
REGRESSION_STRATA = 5  # quantile classes of a continuous target used to stratify the split


@dataclass(frozen=True)
class Settings:
    """The options that decide the split and the fits (one cache entry per distinct value)."""

    model: str
    seed_list: tuple[int, ...]
    test_size: float
    max_train: int
    max_test: int
    weighted: bool

    def key(self) -> tuple:
        return (self.model, self.seed_list, float(self.test_size), int(self.max_train), int(self.max_test),
                bool(self.weighted))


@dataclass(frozen=True)
class Target:
    """A target variable: task, coding and the features used to predict it."""

    name: str
    task: str  # "classification" | "regression"
    coding: md.Feature
    features: tuple[md.Feature, ...]  # of the original-trained model: every other analysed variable
    protected_features: tuple[md.Feature, ...]  # those the protected file has
    removal_features: tuple[md.Feature, ...] | None  # without the key variables; None: no key variable

    @property
    def n_classes(self) -> int:
        return self.coding.n_levels

    @property
    def binary(self) -> bool:
        return self.task == "classification" and self.n_classes == 2

    def key(self) -> tuple:
        return (self.name, self.task, self.coding.labels, md.original_labels_key(self.features),
                tuple(f.name for f in self.protected_features),
                None if self.removal_features is None else tuple(f.name for f in self.removal_features))


@dataclass
class Output:
    """A model's predictions on the held-out records: labels (or values) and P(second class) for binary."""

    pred: np.ndarray
    proba: np.ndarray | None = None


@dataclass
class Fit:
    """A fitted model with the columns it uses and its output on the held-out records."""

    model: Any
    columns: np.ndarray  # column numbers in the held-out matrix of the reference features (those the model uses)
    output: Output
    n_train: int
    note: str | None = None
    warnings: list[str] = field(default_factory=list)
    how: str = ""  # how the training records were chosen (protected models)


@dataclass
class Reference:
    """One seed's split and the models fitted on the original's training records."""

    seed: int
    train: np.ndarray  # original record numbers
    test: np.ndarray
    x_test: np.ndarray  # the reference features at the held-out records
    y_test: np.ndarray
    w_test: np.ndarray | None
    stratified: bool
    n_train_pool: int  # training records before sampling down to max_train
    n_test_pool: int


# ---------------------------------------------------------------------------
# targets
# ---------------------------------------------------------------------------
def target_names(pair: EncodedPair) -> list[str]:
    """The analysed variables with role ``target``; NotComputed when there is none."""
    analysed = set(pair.names(include_removed=True))
    names = [n for n in pair.spec.names_with_role("target") if n in analysed]
    if not names:
        raise NotComputed(
            "no target variable: give the variable to predict 'role: target' in the spec, or use --target"
        )
    return names


def target(pair: EncodedPair, name: str) -> Target:
    """The target ``name`` with its features; NotComputed when it cannot be predicted."""

    def compute() -> Target:
        var = pair.variable(name)
        if var.removed or _protected_column(pair, name) is None:
            raise NotComputed(f"target {name!r} was removed from the protected file, so no model can learn it there")
        coding = md.feature(pair, name)
        if coding.kind == "continuous":
            task = "regression"
            y = pair.continuous[name].orig
            ok = y[~np.isnan(y)]
            if ok.size and float(ok.max()) == float(ok.min()):
                raise NotComputed(f"target {name!r} has one value in the original file, so there is nothing to predict")
        else:
            task = "classification"
            if coding.n_levels < 2:
                raise NotComputed(f"target {name!r} has one class in the original file, so there is nothing to predict")
        others = [n for n in pair.names(include_removed=True) if n != name]
        if not others:
            raise NotComputed(f"target {name!r} is the only analysed variable, so there is nothing to predict it from")
        keys = set(pair.spec.names_with_role("key"))
        features = md.layout(pair, others)
        prot = md.layout(pair, md.available(pair, others))
        removal = tuple(f for f in features if f.name not in keys) if keys & set(others) else None
        return Target(name, task, coding, features, prot, removal)

    return pair.cached(("mining", "target", name), compute)


def _protected_column(pair: EncodedPair, name: str) -> np.ndarray | None:
    col = pair.continuous.get(name) or pair.categorical.get(name)
    return None if col is None else col.prot


def target_values(pair: EncodedPair, t: Target, which: str, rows: np.ndarray | None = None) -> np.ndarray:
    """The target in file ``which``: float values, or class positions with NaN for missing.

    A protected class the original does not have becomes position ``K``
    (the number of original classes): a model trained on it predicts a
    class that is always wrong on original records.
    """
    if t.task == "regression":
        return md.column(pair, t.coding, which, rows)
    col = pair.categorical[t.name]
    codes = col.codes(which) if rows is None else col.codes(which)[rows]
    position = {label: float(i) for i, label in enumerate(t.coding.labels)}
    lookup = np.array([position.get(c, float(t.n_classes)) for c in col.categories] + [np.nan])
    return lookup[codes]


# ---------------------------------------------------------------------------
# the split (original only)
# ---------------------------------------------------------------------------
def _strata(t: Target, y: np.ndarray) -> np.ndarray:
    """Classes to stratify by: the classes, or quantile classes of a continuous target; singletons merged.

    A class is numbered by its size (the largest 0; equal sizes in the order
    of their first record), not by its code: scikit-learn draws a stratified
    split class by class in the order of their numbers, and the codes follow
    the labels' text or a Categorical's declared order, so the same records
    would be split differently when the labels were renamed or read as a
    Categorical.
    """
    if t.task == "classification":
        strata = _by_size(y.astype(np.int64))
    else:
        from scipy.stats import rankdata

        strata = np.minimum((rankdata(y) - 1) * REGRESSION_STRATA // y.shape[0], REGRESSION_STRATA - 1).astype(np.int64)
    counts = np.bincount(strata)
    rare = counts[strata] < 2
    if rare.any():  # a class of one record cannot be split: it joins the largest class for stratification
        strata = np.where(rare, int(np.argmax(counts)), strata)
    return strata


def _by_size(codes: np.ndarray) -> np.ndarray:
    """``codes`` renumbered by the size of their class, largest first, ties by first occurrence.

    >>> _by_size(np.array([5, 2, 2, 9, 5, 5])).tolist()
    [0, 1, 1, 2, 0, 0]
    """
    values, first, inverse, counts = np.unique(codes, return_index=True, return_inverse=True, return_counts=True)
    rank = np.empty(values.shape[0], dtype=np.int64)
    rank[np.lexsort((first, -counts))] = np.arange(values.shape[0])
    return rank[inverse.reshape(-1)]


def _split(rows: np.ndarray, strata: np.ndarray, seed: int, **size: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """sklearn's train_test_split of ``rows``, stratified when every stratum can be split."""
    from sklearn.model_selection import train_test_split

    try:
        a, b = train_test_split(rows, random_state=seed, stratify=strata, **size)
        return a, b, True
    except ValueError:  # a stratum too small for the requested sizes
        a, b = train_test_split(rows, random_state=seed, stratify=None, **size)
        return a, b, False


def split(pair: EncodedPair, t: Target, s: Settings, seed: int) -> tuple[np.ndarray, np.ndarray, bool, int, int]:
    """Original training and held-out record numbers for one seed (sorted), stratified and seeded.

    ``train_test_split(valid, test_size, stratify=classes, random_state=seed)``
    of the original records with a target value; a part larger than
    ``max_train`` / ``max_test`` is then reduced to that size by a second
    stratified ``train_test_split`` with the same seed.
    """
    y = target_values(pair, t, ORIGINAL)
    valid = np.flatnonzero(~np.isnan(y))
    if valid.shape[0] < MIN_RECORDS:
        raise NotComputed(
            f"too few records: target {t.name!r} has {valid.shape[0]} non-missing values in the original file and "
            f"the train/test split needs at least {MIN_RECORDS}"
        )
    n_test = math.ceil(s.test_size * valid.shape[0])  # scikit-learn's size of the held-out part
    if n_test >= valid.shape[0]:
        raise NotComputed(
            f"test_size = {s.test_size:g} holds out all {valid.shape[0]} original records with a value of target "
            f"{t.name!r}, leaving none to train on; choose a smaller test_size"
        )
    if t.task == "classification":
        n_classes = np.unique(y[valid]).shape[0]
        if n_classes > MAX_CLASSES:
            # a gradient-boosting fit grows one tree per class and iteration: 100 classes on 900 records took 51 s
            raise NotComputed(
                f"target {t.name!r} has {n_classes:,} classes in the original file; the classification measures "
                f"take at most {MAX_CLASSES} (group its categories, e.g. with a recode in the spec)"
            )
    strata = _strata(t, y[valid])
    train, test, stratified = _split(valid, strata, seed, test_size=s.test_size)
    pools = (train.shape[0], test.shape[0])
    if train.shape[0] > s.max_train:
        train, _, ok = _split(train, _strata(t, y[train]), seed, train_size=s.max_train)
        stratified &= ok
    if test.shape[0] > s.max_test:
        test, _, ok = _split(test, _strata(t, y[test]), seed, train_size=s.max_test)
        stratified &= ok
    if t.task == "classification" and np.unique(y[train]).shape[0] < 2:
        raise NotComputed(f"too few records: the original training records of target {t.name!r} have one class only")
    return np.sort(train), np.sort(test), stratified, pools[0], pools[1]


# ---------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------
def model_text(model: str) -> str:
    return {
        "hgb": "scikit-learn HistGradientBoostingClassifier/Regressor (defaults: at most 100 iterations, 31 "
        "leaves, learning rate 0.1; early stopping on a seeded 10 % validation part of the training records when "
        "they are 1,000 or more and every class has two, as scikit-learn does from 10,000; nominal variables of up to 255 categories as native categorical "
        "features, larger ones and ordinal ones as their category positions; missing values native)",
        "linear": "scikit-learn LogisticRegression (L2, C=1, lbfgs, up to 1000 iterations) / LinearRegression "
        "after one-hot coding of nominal variables (missing: all zeros) and mean imputation with missing "
        "indicators plus standardisation of the others",
        "tree": "scikit-learn DecisionTreeClassifier/Regressor with rpart's defaults (min_samples_split=20, "
        "min_samples_leaf=7, a split must lower the root's Gini impurity or variance by 1 %: cp = 0.01; missing "
        "values native) after one-hot coding of nominal variables (missing: all zeros)",
    }[model]


def estimator(task: str, model: str, feats: Sequence[md.Feature], seed: int, n_train: int = 0,
              weighted: bool = False) -> Any:
    """An unfitted scikit-learn estimator for ``feats`` (a Pipeline for linear and tree, and weighted hgb)."""
    classification = task == "classification"
    if model == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
        from sklearn.pipeline import Pipeline

        cat = np.array([f.kind == "nominal" and f.n_levels <= HGB_MAX_CATEGORIES for f in feats], dtype=bool)
        cls = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor
        hgb = cls(categorical_features=cat if cat.any() else None, early_stopping=n_train >= HGB_EARLY_STOPPING,
                  random_state=seed)
        if not weighted:
            return hgb
        return Pipeline([("bins", weighted_bins(tuple(np.flatnonzero(~cat).tolist()))), ("model", hgb)])
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    nominal = [i for i, f in enumerate(feats) if f.kind == "nominal"]
    other = [i for i, f in enumerate(feats) if f.kind != "nominal"]
    onehot = OneHotEncoder(categories=[np.arange(feats[i].n_levels, dtype=float) for i in nominal],
                           handle_unknown="ignore", sparse_output=False)
    if model == "tree":
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        numeric: Any = "passthrough"
        cls = DecisionTreeClassifier if classification else DecisionTreeRegressor
        last = cls(min_samples_split=20, min_samples_leaf=7, random_state=seed)  # rpart's minsplit and minbucket
    else:
        from sklearn.impute import SimpleImputer
        from sklearn.linear_model import LinearRegression, LogisticRegression
        from sklearn.preprocessing import StandardScaler

        numeric = Pipeline([("impute", SimpleImputer(strategy="mean", add_indicator=True)),
                            ("scale", StandardScaler())])
        last = LogisticRegression(max_iter=1000) if classification else LinearRegression()
    parts = ([("onehot", onehot, nominal)] if nominal else []) + ([("numeric", numeric, other)] if other else [])
    return Pipeline([("code", ColumnTransformer(parts)), ("model", last)])


def weighted_bins(columns: tuple[int, ...]) -> Any:
    """A transformer that replaces each of ``columns`` by its bin among at most 255 weighted quantile bins.

    Why: scikit-learn (1.6 and later) bins every numeric feature of a
    weighted HistGradientBoosting fit at its weighted quantiles, one
    Python-level percentile call per bin edge: about 3 s per fit of 10,000
    records and 40 features, 90 % of the fit.  Binning first at the same
    edges (the weighted quantiles of the training records, in one sorted
    cumulative sum per column) leaves at most 255 distinct values, which
    HistGradientBoosting bins at their midpoints, quickly; the fitted trees
    split the same groups of records, provided the bins are fitted on the
    records the model bins (with early stopping, the part left after the
    validation records: :func:`_fit_binned_hgb`).  Bin ``i`` holds the values ``x`` with
    ``edge[i-1] < x <= edge[i]`` (scikit-learn's convention); NaN stays NaN.
    """
    return _weighted_bins_class()(columns)


@functools.lru_cache(maxsize=None)
def _weighted_bins_class() -> type:
    """The transformer class of :func:`weighted_bins` (built on first use: scikit-learn is imported lazily)."""
    from sklearn.base import BaseEstimator, TransformerMixin

    class WeightedBins(TransformerMixin, BaseEstimator):
        def __init__(self, columns: tuple[int, ...] = (), max_bins: int = HGB_MAX_CATEGORIES) -> None:
            self.columns = columns
            self.max_bins = max_bins

        def fit(self, x: np.ndarray, y: Any = None, sample_weight: np.ndarray | None = None) -> "WeightedBins":
            w = np.ones(x.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
            self.edges_ = {j: quantile_edges(x[:, j], w, self.max_bins) for j in self.columns}
            return self

        def transform(self, x: np.ndarray) -> np.ndarray:
            out = np.array(x, dtype=np.float64, copy=True)
            for j, edges in self.edges_.items():
                if edges is not None:
                    col = x[:, j]
                    out[:, j] = np.where(np.isnan(col), np.nan, np.searchsorted(edges, col, side="left"))
            return out

    return WeightedBins


def quantile_edges(col: np.ndarray, w: np.ndarray, max_bins: int) -> np.ndarray | None:
    """Bin edges at the weighted quantiles ``1/max_bins, ..., (max_bins-1)/max_bins`` of ``col``.

    None when the column has at most ``max_bins`` distinct values (no binning needed).  The
    edge of quantile ``q`` is the smallest value whose cumulative weight reaches ``q`` times
    the total (the inverted weighted CDF); repeated edges are merged.
    """
    ok = ~np.isnan(col) & (w > 0)
    v, wv = col[ok], w[ok]
    order = np.argsort(v, kind="stable")
    v, wv = v[order], wv[order]
    if v.shape[0] == 0 or np.unique(v).shape[0] <= max_bins:
        return None
    cum = np.cumsum(wv)
    q = np.linspace(0, 1, max_bins + 1)[1:-1] * cum[-1]
    return np.unique(v[np.minimum(np.searchsorted(cum, q, side="left"), v.shape[0] - 1)])


def fit_model(task: str, model: str, feats: Sequence[md.Feature], x: np.ndarray, y: np.ndarray,
              w: np.ndarray | None, seed: int) -> tuple[Any, str | None, list[str]]:
    """The fitted estimator, a note when it had to be a constant one, and the warnings it raised."""
    from sklearn.dummy import DummyClassifier, DummyRegressor

    note = None
    if w is not None:
        # survey weights in units of records (mean 1): their scale, a population total, would otherwise set the
        # strength of a penalty (LogisticRegression's C); equal weights are no weights, the same fit to the bit
        w = None if np.all(w == w[0]) else w * (w.shape[0] / w.sum())
    if x.shape[1] == 0:
        est: Any = DummyClassifier(strategy="prior") if task == "classification" else DummyRegressor()
        note = "no feature: the model predicts the training records' most frequent class / mean"
    elif task == "classification" and np.unique(y).shape[0] < 2:
        est = DummyClassifier(strategy="prior")
        note = "the training records have one class only: the model predicts it for every record"
    else:
        n_train = x.shape[0]
        if task == "classification" and model == "hgb" and n_train >= HGB_EARLY_STOPPING \
                and np.unique(y, return_counts=True)[1].min() < 2:
            # early stopping draws a validation part stratified by class, which needs two records of each (and
            # one of each class in both parts: at most MAX_CLASSES classes, at least 100 validation records)
            n_train = 0
            note = ("a class has too few training records for early stopping's stratified validation part, so "
                    "the model runs without early stopping")
        elif model == "hgb" and n_train >= HGB_EARLY_STOPPING and w is not None \
                and np.count_nonzero(w > 0) < HGB_EARLY_STOPPING:
            # the 10 % validation part could then hold only records of weight 0, whose weighted loss is 0/0
            n_train = 0
            note = (f"fewer than {HGB_EARLY_STOPPING} training records have a positive weight, so the model runs "
                    "without early stopping")
        est = estimator(task, model, feats, seed, n_train, weighted=w is not None)
        if model == "tree":  # rpart's cp = 0.01: a split must lower the root's impurity by 1 %
            est.set_params(model__min_impurity_decrease=TREE_CP * _impurity(task, y, w))
    params = {}
    if w is not None:
        steps = [name for name, _ in est.steps if name != "code"] if hasattr(est, "steps") else []
        params = {f"{name}__sample_weight": w for name in steps} if steps else {"sample_weight": w}
    y_fit = y.astype(np.int64) if task == "classification" else y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if _binned_with_validation(est):
                _fit_binned_hgb(est, task, x, y_fit, w, seed)
            else:
                est.fit(x, y_fit, **params)
        except ValueError as exc:  # degenerate records scikit-learn refuses (a target near ±1.8e308, a feature
            # observed only in records of weight 0): this measure's reason, not the end of the comparison
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise NotComputed(f"scikit-learn could not fit the {model} model on these records ({first})") from None
    messages = sorted({str(c.message).split("\n")[0] for c in caught if not issubclass(c.category, DeprecationWarning)})
    return est, note, messages


def _binned_with_validation(est: Any) -> bool:
    """Whether ``est`` is a weighted HistGradientBoosting pipeline with early stopping, fitted by _fit_binned_hgb."""
    import inspect

    steps = dict(getattr(est, "steps", []))
    model = steps.get("model")
    return ("bins" in steps and getattr(model, "early_stopping", False) is True
            and "X_val" in inspect.signature(model.fit).parameters)  # scikit-learn 1.5 and later


def _fit_binned_hgb(est: Any, task: str, x: np.ndarray, y: np.ndarray, w: np.ndarray, seed: int) -> None:
    """Fit a weighted HistGradientBoosting pipeline whose bins are those of the records its trees learn from.

    With early stopping, scikit-learn sets aside a validation part and bins
    the rest; :func:`weighted_bins`, fitted on every training record, would
    bin at other edges.  So the part is set aside here (10 %, stratified by
    class, ``random_state=seed``: scikit-learn's ``validation_fraction`` and
    its stratification), the bins are fitted on the rest, and both go to
    ``fit(..., X_val=, y_val=, sample_weight_val=)``: the same trees as
    scikit-learn's weighted fit with that validation part
    (``tests/test_mining.py``).
    """
    from sklearn.model_selection import train_test_split

    model = est.named_steps["model"]
    rows = np.arange(x.shape[0])
    fit_rows, val_rows = train_test_split(rows, test_size=model.validation_fraction, random_state=seed,
                                          stratify=y if task == "classification" else None)
    fit_rows, val_rows = np.sort(fit_rows), np.sort(val_rows)
    bins = est.named_steps["bins"].fit(x[fit_rows], sample_weight=w[fit_rows])
    model.fit(bins.transform(x[fit_rows]), y[fit_rows], sample_weight=w[fit_rows], X_val=bins.transform(x[val_rows]),
              y_val=y[val_rows], sample_weight_val=w[val_rows])


def _impurity(task: str, y: np.ndarray, w: np.ndarray | None) -> float:
    """The root node's impurity: Gini (classification) or variance (regression), weighted."""
    if task == "regression":
        mean = np.average(y, weights=w)
        return float(np.average((y - mean) ** 2, weights=w))
    share = np.bincount(y.astype(np.int64), weights=w)
    share = share / share.sum()
    return float(1.0 - (share**2).sum())


def baseline(task: str, y: np.ndarray, w: np.ndarray | None) -> Any:
    """The baseline model: the (weighted) most frequent class or mean of the training records."""
    from sklearn.dummy import DummyClassifier, DummyRegressor

    est = DummyClassifier(strategy="prior") if task == "classification" else DummyRegressor(strategy="mean")
    est.fit(np.zeros((y.shape[0], 1)), y.astype(np.int64) if task == "classification" else y, sample_weight=w)
    return est


def predict(est: Any, x: np.ndarray, t: Target) -> Output:
    """Predictions (the class of largest probability, as ``predict`` gives) and P(class 1) for binary targets."""
    if t.task == "regression":
        return Output(np.asarray(est.predict(x), dtype=float))
    proba = est.predict_proba(x)
    classes = np.asarray(est.classes_)
    pred = classes[np.argmax(proba, axis=1)].astype(np.int64)
    positive = None
    if t.binary:
        hit = np.flatnonzero(classes == 1)
        positive = proba[:, hit[0]] if hit.size else np.zeros(x.shape[0])
    return Output(pred, positive)


# ---------------------------------------------------------------------------
# scores
# ---------------------------------------------------------------------------
def scores(t: Target, y: np.ndarray, out: Output, w: np.ndarray | None) -> dict[str, float | None]:
    """Every metric of the task for one model on the held-out records (weighted when ``w`` is given); None: undefined."""
    from sklearn import metrics

    require_weight(w, f"held-out records of target {t.name!r}")
    if t.task == "regression":
        if not np.isfinite(out.pred).all():  # predictions beyond the float range (values near ±1.8e308)
            return {"r2": None, "rmse": None}
        r2 = None
        if np.ptp(y) > 0:  # R² is undefined when the held-out values are all equal
            r2 = float(metrics.r2_score(y, out.pred, sample_weight=w))
        # the values are coded times 2**-exponent (see _mining_data): R² does not depend on it, the RMSE is scaled
        # back to the variable's units (None when that is beyond the float range)
        rmse = unscale(float(np.sqrt(metrics.mean_squared_error(y, out.pred, sample_weight=w))), t.coding.exponent)
        return {"r2": r2 if r2 is not None and np.isfinite(r2) else None,
                "rmse": rmse if np.isfinite(rmse) else None}
    yi = y.astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true": a wrong prediction, counted
        res: dict[str, float | None] = {
            "accuracy": float(metrics.accuracy_score(yi, out.pred, sample_weight=w)),
            "balanced_accuracy": float(metrics.balanced_accuracy_score(yi, out.pred, sample_weight=w)),
            "f1_macro": float(metrics.f1_score(yi, out.pred, labels=np.unique(yi), average="macro", sample_weight=w,
                                               zero_division=0)),
        }
    # both classes among the records that count (a class whose records all weigh 0 is absent): else AUC is undefined
    both = np.unique(yi if w is None else yi[w > 0]).shape[0] == 2
    res["roc_auc"] = (float(metrics.roc_auc_score(yi, out.proba, sample_weight=w))
                      if t.binary and both and out.proba is not None else None)
    return res


def error(t: Target, sc: dict[str, float | None]) -> float:
    """Seed 003's prediction error: 1 - accuracy (classification), RMSE (regression)."""
    return 1.0 - sc["accuracy"] if t.task == "classification" else sc["rmse"]  # type: ignore[operator]


# ---------------------------------------------------------------------------
# the cached runs
# ---------------------------------------------------------------------------
def _weights(pair: EncodedPair, which: str, rows: np.ndarray, s: Settings) -> np.ndarray | None:
    w = pair.weights(which)
    return None if (w is None or not s.weighted) else w[rows]


def require_weight(w: np.ndarray | None, records: str) -> None:
    """NotComputed when the weights of ``records`` are all 0: a weighted fit or score of them is undefined."""
    if w is not None and not bool((w > 0).any()):
        raise NotComputed(f"the {records} all have weight 0")


def reference(pair: EncodedPair, t: Target, s: Settings, seed: int) -> Reference:
    """The split of one seed and the held-out records (original only, shared by every scenario)."""

    def compute() -> Reference:
        train, test, stratified, n_train_pool, n_test_pool = split(pair, t, s, seed)
        w_test = _weights(pair, ORIGINAL, test, s)
        require_weight(_weights(pair, ORIGINAL, train, s), f"records of the training split of target {t.name!r}")
        require_weight(w_test, f"held-out records of target {t.name!r}")
        return Reference(
            seed=seed,
            train=train,
            test=test,
            x_test=md.matrix(pair, t.features, ORIGINAL, test),
            y_test=target_values(pair, t, ORIGINAL, test),
            w_test=w_test,
            stratified=stratified,
            n_train_pool=n_train_pool,
            n_test_pool=n_test_pool,
        )

    return pair.cached_original(("mining", "reference", t.key(), s.key(), seed), compute)


def original_fit(pair: EncodedPair, t: Target, s: Settings, seed: int, kind: str = "original") -> Fit:
    """The model fitted on the original's training records: ``kind`` original, removal or baseline."""

    @md.one_thread
    def compute() -> Fit:
        ref = reference(pair, t, s, seed)
        y = target_values(pair, t, ORIGINAL, ref.train)
        w = _weights(pair, ORIGINAL, ref.train, s)
        if kind == "baseline":
            est = baseline(t.task, y, w)
            return Fit(est, np.array([], dtype=np.int64), predict(est, np.zeros((ref.test.shape[0], 1)), t),
                       int(y.shape[0]))
        feats = t.features if kind == "original" else t.removal_features
        if feats is None:
            raise NotComputed("the spec has no key variable to leave out")
        feats, x = _informative(feats, md.matrix(pair, feats, ORIGINAL, ref.train))
        columns = _columns(t.features, feats)
        est, note, caught = fit_model(t.task, s.model, feats, x, y, w, seed)
        return Fit(est, columns, predict(est, ref.x_test[:, columns], t), int(y.shape[0]), note, caught)

    return pair.cached_original(("mining", "fit", kind, t.key(), s.key(), seed), compute)


def _informative(feats: Sequence[md.Feature], x: np.ndarray) -> tuple[tuple[md.Feature, ...], np.ndarray]:
    """The features with at least one value in the training records (an all-missing one teaches nothing)."""
    keep = ~np.isnan(x).all(axis=0) if x.shape[0] else np.zeros(x.shape[1], dtype=bool)
    if keep.all():
        return tuple(feats), x
    return tuple(f for f, k in zip(feats, keep) if k), x[:, keep]


def _columns(all_feats: Sequence[md.Feature], feats: Sequence[md.Feature]) -> np.ndarray:
    index = {f.name: i for i, f in enumerate(all_feats)}
    return np.array([index[f.name] for f in feats], dtype=np.int64)


def protected_rows(pair: EncodedPair, t: Target, s: Settings, seed: int) -> tuple[np.ndarray, str]:
    """The protected records the protected model is trained on, and how they were chosen.

    Paired files: the protected versions of the original's training records
    (never of a held-out record).  Unpaired files of the original's size: the
    protected records with the training records' numbers (files of equal size
    are sampled at the same record numbers, so both models learn from as many
    records and a file against itself gives exactly the ideal values).
    Other unpaired files: every protected record, or a seeded simple random
    sample of ``max_train`` of them.
    """
    y = target_values(pair, t, PROTECTED)
    if pair.paired:
        rows = reference(pair, t, s, seed).train
        how = "the protected versions of the original's training records"
    elif pair.n_prot == pair.n_orig:
        rows = reference(pair, t, s, seed).train
        how = ("the protected records with the original training records' numbers (unpaired files of equal size: "
               "as many training records as the original-trained model)")
    else:
        rows = md.sample_rows(pair.n_prot, s.max_train, np.random.default_rng(seed))
        rows = np.arange(pair.n_prot) if rows is None else rows
        how = ("every protected record" if rows.shape[0] == pair.n_prot
               else f"a seeded simple random sample of {s.max_train} protected records")
    keep = rows[~np.isnan(y[rows])]
    if keep.shape[0] == 0:
        raise NotComputed(f"target {t.name!r} is missing in every protected training record, so no model can learn it")
    if keep.shape[0] < rows.shape[0]:
        how += ", without those whose target is missing there"  # how many: the records' counts (details)
    return keep, how


def protected_fit(pair: EncodedPair, t: Target, s: Settings, seed: int) -> Fit:
    """The model fitted on the protected training records, with its output on the original's held-out records."""

    @md.one_thread
    def compute() -> Fit:
        ref = reference(pair, t, s, seed)
        rows, how = protected_rows(pair, t, s, seed)
        feats, x = _informative(t.protected_features, md.matrix(pair, t.protected_features, PROTECTED, rows))
        y = target_values(pair, t, PROTECTED, rows)
        w = _weights(pair, PROTECTED, rows, s)
        require_weight(w, f"protected training records of target {t.name!r}")
        est, note, caught = fit_model(t.task, s.model, feats, x, y, w, seed)
        dropped = [f.name for f in t.protected_features if f not in feats]
        if dropped:
            left_out = f"left out {', '.join(dropped)}: missing in every training record"
            note = left_out if note is None else f"{note}; {left_out}"
        columns = _columns(t.features, feats)
        return Fit(est, columns, predict(est, ref.x_test[:, columns], t), int(rows.shape[0]), note, caught, how)

    return pair.cached(("mining", "protected-fit", t.key(), s.key(), seed), compute)


# ---------------------------------------------------------------------------
# permutation importance
# ---------------------------------------------------------------------------
def permutation_importance(predict_fn: Callable[[np.ndarray], Output], score_fn: Callable[[Output], float],
                           x: np.ndarray, columns: Sequence[int], n_repeats: int, seed: int) -> np.ndarray:
    """Mean drop of the score when one column is permuted (Breiman 2001), for each of ``columns``.

    The same as ``sklearn.inspection.permutation_importance(..., n_repeats,
    random_state=seed).importances_mean`` (score of the intact data minus the
    score with column j shuffled, averaged over ``n_repeats`` shuffles), with
    its shuffles: one seed drawn from ``seed``, each column shuffled by the
    same sequence of ``RandomState(that seed).shuffle`` of the row numbers,
    cumulatively from repeat to repeat, so that a column's shuffles do not
    depend on the order of the columns (the fitted model can: scikit-learn's
    gradient boosting breaks ties between equally good splits by column).  Unlike scikit-learn, all
    columns' shuffled copies of one repeat are stacked and predicted in one
    call: one predict of p·m rows instead of p predicts of m rows, several
    times faster for the tree ensembles.
    """
    state = np.random.RandomState(np.random.RandomState(seed).randint(np.iinfo(np.int32).max + 1))
    m = x.shape[0]
    base = score_fn(predict_fn(x))
    out = np.zeros((len(columns), n_repeats))
    shuffled = np.arange(m)
    rows = np.arange(m)  # where each row's value of a shuffled column comes from, after this many repeats
    for r in range(n_repeats):
        state.shuffle(shuffled)
        rows = rows[shuffled]  # scikit-learn shuffles the already shuffled column again
        stacked = np.tile(x, (len(columns), 1))
        for k, j in enumerate(columns):  # a loop over variables, not records
            stacked[k * m:(k + 1) * m, j] = x[rows, j]
        pred = predict_fn(stacked)
        for k in range(len(columns)):
            part = Output(pred.pred[k * m:(k + 1) * m], None if pred.proba is None else pred.proba[k * m:(k + 1) * m])
            out[k, r] = base - score_fn(part)
    return out.mean(axis=1)
