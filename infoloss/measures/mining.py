"""Classification and regression utility: does a model learnt on the protected file work on the original?

"Train on protected, test on real" (Fletcher & Islam 2015, section III.B; SDMetrics' ML
efficacy): for each target variable (``role: target`` in the spec, or
``--target``), a model is fitted on the protected file and evaluated on
held-out records of the *original* that the reference model, fitted on the
rest of the original, never saw.  A categorical target is a classification,
a continuous one a regression.

Ids: ``ml_score_ratio`` (headline), ``ml_gain_kept``,
``ml_prediction_agreement``, ``ml_importance_correlation``.

Conventions (where the literature leaves a choice):

* **Split.** Original records with a target value are split by
  scikit-learn's ``train_test_split`` (``test_size``, default 30 % held out),
  stratified by class (a continuous target by quintile classes; a class of
  one record joins the largest class for stratification, and the split is
  unstratified if it still cannot be stratified), seeded; the classes are
  numbered by size for it, so renamed labels or a Categorical's declared
  order split the same records alike.  A training part
  larger than ``max_train`` or a held-out part larger than ``max_test``
  (default 10,000 each) is reduced by a further stratified, seeded
  ``train_test_split``; ``details`` gives both sizes.  The split depends on
  the original only and is the same for every scenario.
* **Protected training records.** Paired files: the protected versions of
  the original's training records (never of a held-out record).  Unpaired
  files of the original's size: the protected records with the training
  records' numbers (as for every sampling measure, files of equal size are
  sampled at the same record numbers; both models then learn from as many
  records).  Other unpaired files: every protected record (a seeded sample
  of ``max_train`` beyond).
  Records whose target is missing are left out; a protected class the
  original does not have is kept as a class of its own, always wrong on the
  original.
* **Features.** Every other analysed variable (other targets included);
  the protected model uses those the protected file has.  The coding is
  fixed by the original (``_mining_data``): a protected category the
  original lacks counts as missing.
* **Models.** ``model="hgb"`` (default): ``HistGradientBoostingClassifier``
  / ``Regressor``; ``"linear"``: logistic / linear regression; ``"tree"``: a
  decision tree (``details["model"]`` has the settings).  Every fit is
  seeded, so with identical files (paired or not) the protected model *is*
  the reference model and every measure takes its ideal value exactly.
* **Weights.** With a weight column and ``weighted=True`` (default) the
  models are fitted with the records' weights and the scores are weighted.
* **Baseline and removal.** The baseline model predicts the training
  records' (weighted) most frequent class or mean (scikit-learn's
  ``DummyClassifier``/``DummyRegressor``); the removal model is the reference
  model without the key variables (Fletcher & Islam's (2015) removal error: the key
  variables left out).  Seed 003 calls the original-trained model's error
  the "baseline error"; here that is ``scores["original"]``, and "baseline"
  is the no-information model.
* **Large files.** The models are trained on at most ``max_train`` and
  scored on at most ``max_test`` records (seeded stratified samples; each
  target's ``sampled`` and ``records`` in ``details`` say so).  The fits run
  on one thread each (see ``_mining_data.one_thread``); a weighted
  gradient-boosting fit bins its variables at weighted quantiles first
  (``_mining_models.weighted_bins``), the same bins scikit-learn computes,
  faster.  1,000,000 × 50 with two targets takes about 45 s on 2 cores
  (``bench/bench_mining.py``), further scenarios about 13 s each.
* **Seeds.** Everything is repeated for ``seeds`` seeds (default 5:
  ``seed, seed+1, ...``), each with its own split and model seed; the value
  is the mean over seeds and ``details`` gives sd, min and max.

References
----------
Fletcher, S. & Islam, M. Z. (2015). Measuring information quality for
privacy preserving data mining. *International Journal of Computer Theory
and Engineering* 7(1), 21-28 (Fletcher & Islam 2015).

Breiman, L. (2001). Random forests. *Machine Learning* 45, 5-32
(permutation importance).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import NotComputed
from ..pair import EncodedPair
from ..registry import MAX_SEED, MeasureResult, Option, measure
from . import _mining_data as md
from . import _mining_models as mm

__all__ = ["ml_score_ratio", "ml_gain_kept", "ml_prediction_agreement", "ml_importance_correlation"]

_FIT_OPTIONS = (
    Option("model", "choice", "hgb", "the model: gradient-boosted trees, logistic/linear regression or one tree",
           choices=mm.MODELS),
    Option("seeds", "int", 5, "number of seeds (splits and fits) the result is averaged over", low=1, high=100),
    Option("seed", "int", 0, "the first seed", low=0, high=MAX_SEED),
    Option("test_size", "float", 0.3, "share of the original's records held out for testing", low=0, high=1,
           low_open=True, high_open=True),
    Option("max_train", "int", 10_000, "most training records per model (a seeded stratified sample beyond)", low=10),
    Option("max_test", "int", 10_000, "most held-out records (a seeded stratified sample beyond)", low=10),
    Option("weighted", "bool", True, "use the weight column in the fits and the scores"),
)
_METRIC_OPTIONS = (
    Option("classification_metric", "choice", "balanced_accuracy", "the score of a categorical target",
           choices=mm.CLASSIFICATION_METRICS),
    Option("regression_metric", "choice", "r2", "the score of a continuous target", choices=mm.REGRESSION_METRICS),
)
SCORE_OPTIONS = _FIT_OPTIONS + _METRIC_OPTIONS
IMPORTANCE_OPTIONS = SCORE_OPTIONS + (
    Option("importance_records", "int", 500, "held-out records the permutation importances are computed on",
           low=10),
    Option("importance_repeats", "int", 2, "shuffles per variable in the permutation importances", low=1,
           high=100),
)
_HIGHER = ("balanced_accuracy", "accuracy", "f1_macro", "roc_auc", "r2")


def _settings(model: str, seeds: int, seed: int, test_size: float, max_train: int, max_test: int,
              weighted: bool) -> mm.Settings:
    return mm.Settings(model, tuple(md.seeds(seed, seeds)), float(test_size), int(max_train), int(max_test),
                       bool(weighted))


def _metric(t: mm.Target, classification_metric: str, regression_metric: str) -> str:
    if t.task == "regression":
        return regression_metric
    if classification_metric == "roc_auc" and not t.binary:
        raise NotComputed(f"ROC AUC is for targets with two classes and {t.name!r} has {t.n_classes}; "
                          "choose another classification_metric")
    return classification_metric


# ---------------------------------------------------------------------------
# per-target evaluation (shared by the measures, cached on the pair)
# ---------------------------------------------------------------------------
def _evaluate(pair: EncodedPair, t: mm.Target, s: mm.Settings) -> dict[str, Any]:
    """Scores of the protected, original, baseline and removal models on every seed's held-out records."""

    def compute() -> dict[str, Any]:
        runs: dict[str, list[dict]] = {"protected": [], "original": [], "baseline": [], "removal": []}
        removal_reason = None
        notes: list[str] = []
        caught: list[str] = []
        sizes: dict[str, list[int]] = {"original_train": [], "protected_train": [], "held_out": [],
                                       "original_train_pool": [], "held_out_pool": []}
        how, stratified = "", True
        for seed in s.seed_list:
            ref = mm.reference(pair, t, s, seed)
            fits = {"protected": mm.protected_fit(pair, t, s, seed), "original": mm.original_fit(pair, t, s, seed),
                    "baseline": mm.original_fit(pair, t, s, seed, "baseline")}
            if removal_reason is None:
                try:
                    fits["removal"] = mm.original_fit(pair, t, s, seed, "removal")
                except NotComputed as exc:
                    removal_reason = str(exc)
            for kind, fit in fits.items():
                runs[kind].append(mm.scores(t, ref.y_test, fit.output, ref.w_test))
                if fit.note and f"{kind} model: {fit.note}" not in notes:
                    notes.append(f"{kind} model: {fit.note}")
                caught += [m for m in fit.warnings if m not in caught]
            how = fits["protected"].how
            stratified &= ref.stratified
            for key, value in (("original_train", ref.train.shape[0]), ("protected_train", fits["protected"].n_train),
                               ("held_out", ref.test.shape[0]), ("original_train_pool", ref.n_train_pool),
                               ("held_out_pool", ref.n_test_pool)):
                sizes[key].append(int(value))
        return {"runs": runs, "removal_reason": removal_reason, "notes": notes, "warnings": caught,
                "sizes": sizes, "how": how, "stratified": stratified}

    return pair.cached(("mining", "evaluate", t.key(), s.key()), compute)


def _metric_spread(runs: list[dict], metric: str, seed_list: tuple[int, ...]) -> dict | None:
    values = [r[metric] for r in runs]
    if not values or any(v is None for v in values):
        return None
    return md.spread(values, seed_list)


def _error_spread(t: mm.Target, runs: list[dict]) -> dict | None:
    """Seed 003's prediction error over seeds; None when it is undefined (an RMSE beyond the float range)."""
    values = [mm.error(t, r) for r in runs]
    return None if any(v is None for v in values) else md.spread(values)


def _target_block(t: mm.Target, ev: dict[str, Any], metric: str, s: mm.Settings) -> dict[str, Any]:
    """What every score measure says about one target: scores of the four models with their seed spread."""
    metrics = mm.REGRESSION_METRICS if t.task == "regression" else mm.CLASSIFICATION_METRICS
    block: dict[str, Any] = {
        "task": t.task,
        "metric": metric,
        "features": [f.name for f in t.features],
        "records": {k: md.spread(v) for k, v in ev["sizes"].items()},
        "protected_training": ev["how"],
        "sampled": bool(max(ev["sizes"]["original_train_pool"]) > min(ev["sizes"]["original_train"])
                        or max(ev["sizes"]["held_out_pool"]) > min(ev["sizes"]["held_out"])),
        "stratified": ev["stratified"],
        "scores": {kind: {m: _metric_spread(runs, m, s.seed_list) for m in metrics}
                   for kind, runs in ev["runs"].items() if runs},
        "error": {kind: _error_spread(t, runs) for kind, runs in ev["runs"].items() if runs},
        "error_meaning": "1 - accuracy" if t.task == "classification" else "RMSE",
    }
    if t.task == "classification":
        block["classes"] = t.n_classes
    if len(t.protected_features) != len(t.features):
        block["protected_features"] = [f.name for f in t.protected_features]
    if ev["removal_reason"]:
        block["removal"] = f"not computed: {ev['removal_reason']}"
    else:
        block["removal_features"] = [f.name for f in t.removal_features or ()]
    if ev["notes"]:
        block["notes"] = ev["notes"]
    if ev["warnings"]:
        block["warnings"] = ev["warnings"]
    return block


def _common_details(pair: EncodedPair, s: mm.Settings) -> dict[str, Any]:
    weighted = s.weighted and pair.weights_orig is not None
    return {
        "model": mm.model_text(s.model),
        "split": f"stratified, seeded train_test_split of the original's records with a target value, "
                 f"{s.test_size:g} held out; parts above max_train={s.max_train} / max_test={s.max_test} records "
                 "reduced by a stratified seeded sample (details.targets.*.records gives the sizes)",
        "seeds": list(s.seed_list),
        "weights": "the weight column, in the fits and the scores" if weighted else "not used",
    }


def _per_target(pair: EncodedPair, s: mm.Settings, one: Callable[[mm.Target], tuple[float, dict]]) -> MeasureResult:
    """Run ``one`` for every target; the value is the mean over the targets it could be computed for."""
    by_variable: dict[str, float] = {}
    blocks: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for name in mm.target_names(pair):
        try:
            t = mm.target(pair, name)
            value, block = one(t)
        except NotComputed as exc:
            reasons[name] = str(exc)
            continue
        by_variable[name] = value
        blocks[name] = block
    if not by_variable:
        raise NotComputed("; ".join(reasons.values()))
    details = {**_common_details(pair, s), "targets": blocks}
    if reasons:
        details["not_computed"] = reasons
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details)


def _per_seed(t: mm.Target, values: list[float | None], what: str, why: str) -> list[float]:
    bad = sum(v is None for v in values)
    if bad:
        raise NotComputed(f"the {what} of target {t.name!r} is undefined in {bad} of {len(values)} seeds: {why}")
    return [float(v) for v in values]  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# measures
# ---------------------------------------------------------------------------
def _ratio(metric: str, p: float | None, o: float | None) -> float | None:
    if p is None or o is None:
        return None
    if metric == "rmse":  # lower is better: the original's error over the protected one
        return (1.0 if o == 0 else None) if p == 0 else o / p
    return p / o if o > 0 else None


@measure(
    "ml_score_ratio",
    family="mining",
    description="score of a model trained on the protected file over that of one trained on the original, "
                "both tested on held-out original records (per target)",
    range=(None, None),
    better="higher",
    ideal=1.0,
    needs_pairing=False,
    headline=True,
    options=SCORE_OPTIONS,
)
def ml_score_ratio(
    pair: EncodedPair, *, model: str = "hgb", seeds: int = 5, seed: int = 0, test_size: float = 0.3,
    max_train: int = 10_000, max_test: int = 10_000, weighted: bool = True,
    classification_metric: str = "balanced_accuracy", regression_metric: str = "r2",
) -> MeasureResult:
    r"""Train on protected, test on original: the ratio of the two models' scores.

    .. math::

        \text{ratio} = \frac{S(f_{\text{prot}};\ \text{held-out original})}
                            {S(f_{\text{orig}};\ \text{held-out original})}

    per target and seed, where :math:`f_{\text{prot}}` is fitted on the
    protected training records, :math:`f_{\text{orig}}` on the original
    training records and :math:`S` is the score (balanced accuracy by
    default for a categorical target, :math:`R^2` for a continuous one).
    For ``regression_metric="rmse"`` the ratio is
    :math:`\text{RMSE}_{\text{orig}}/\text{RMSE}_{\text{prot}}`, so that
    higher is better throughout.  1 when the protected file trains models
    as good as the original; below 1 is a loss; above 1 the protected model
    scores better, e.g. by chance.  Undefined (not computed, with the reason)
    when the original-trained score is not positive.

    The value is the mean over targets (``by_variable``) of the mean over
    seeds.  ``details["targets"][name]`` gives for each target the
    accuracy, balanced accuracy, macro F1 and ROC AUC (binary targets), or
    R² and RMSE, of the protected-trained, original-trained, baseline
    (most frequent class / mean) and removal (key variables left out)
    models, each with its mean, sd, min and max over seeds; Fletcher & Islam's (2015)
    prediction error (1 − accuracy, or RMSE) of the four; ``ratio``; the
    record counts; and which protected records were used.  See the module
    docstring for the split, features, models and weights.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not).
    model : {"hgb", "linear", "tree"}
        Gradient-boosted trees, logistic / linear regression, one tree.
    seeds, seed : int
        Number of seeds and the first one.
    test_size : float
        Share of the original records held out.
    max_train, max_test : int
        Largest training and held-out parts (a seeded stratified sample
        beyond).
    weighted : bool
        Use the weight column in fits and scores.
    classification_metric, regression_metric : str
        The score for categorical and continuous targets.

    References
    ----------
    Fletcher, S. & Islam, M. Z. (2015). Measuring information quality for
    privacy preserving data mining. *IJCTE* 7(1), 21-28 (Fletcher & Islam 2015, III.B).

    Examples
    --------
    The target is ``"hi"`` exactly when x ≥ 50; the protected file swapped
    the two classes, so its model predicts the original records wrong but
    for a record at the boundary in two of the five seeds' splits: balanced
    accuracy 0.013 against 0.987 for the original-trained model.

    >>> import pandas as pd
    >>> from infoloss.measures.mining import ml_score_ratio
    >>> orig = pd.DataFrame({"x": range(100), "y": ["lo"] * 50 + ["hi"] * 50})
    >>> prot = orig.assign(y=["hi"] * 50 + ["lo"] * 50)
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "nominal", "role": "target"}}}
    >>> ml_score_ratio(orig, orig.copy(), spec, model="tree").value
    1.0
    >>> round(ml_score_ratio(orig, prot, spec, model="tree").value, 4)
    0.0138
    """
    s = _settings(model, seeds, seed, test_size, max_train, max_test, weighted)

    def one(t: mm.Target) -> tuple[float, dict]:
        metric = _metric(t, classification_metric, regression_metric)
        ev = _evaluate(pair, t, s)
        runs = ev["runs"]
        values = _per_seed(t, [_ratio(metric, p[metric], o[metric]) for p, o in zip(runs["protected"], runs["original"])],
                           "score ratio", "the original-trained model's score is not positive (or the score is undefined, "
                           "e.g. R² of held-out values that are all equal)")
        block = _target_block(t, ev, metric, s)
        block["ratio"] = md.spread(values, s.seed_list)
        return block["ratio"]["mean"], block

    return _per_target(pair, s, one)


def _gain(metric: str, p: float | None, o: float | None, b: float | None) -> float | None:
    if p is None or o is None or b is None:
        return None
    sign = -1.0 if metric == "rmse" else 1.0
    denominator = sign * (o - b)
    if denominator <= 1e-12 * max(1.0, abs(o)):
        return None
    return sign * (p - b) / denominator


@measure(
    "ml_gain_kept",
    family="mining",
    description="share of the original-trained model's gain over the baseline (most frequent class / mean) "
                "that the protected-trained model keeps (per target)",
    range=(None, None),
    better="higher",
    ideal=1.0,
    needs_pairing=False,
    options=SCORE_OPTIONS,
)
def ml_gain_kept(
    pair: EncodedPair, *, model: str = "hgb", seeds: int = 5, seed: int = 0, test_size: float = 0.3,
    max_train: int = 10_000, max_test: int = 10_000, weighted: bool = True,
    classification_metric: str = "balanced_accuracy", regression_metric: str = "r2",
) -> MeasureResult:
    r"""Where the protected-trained model stands between useless (0) and the original-trained one (1).

    .. math::

        G = \frac{S_{\text{prot}} - S_{\text{base}}}{S_{\text{orig}} - S_{\text{base}}}

    per target and seed, with the scores :math:`S` of the protected-trained,
    the baseline (most frequent class / mean of the original's training
    records) and the original-trained model on the held-out original
    records (for RMSE the same with the signs turned, so higher is better).
    1 when the protected file keeps all of the original's predictive
    information, 0 when its model does no better than guessing (a target
    randomly permuted in the protected file scores near 0), negative when it
    does worse.  Undefined (not computed) when the original-trained model is
    no better than the baseline.  Same models, split, seeds and details as
    :func:`ml_score_ratio`, with ``gain`` per target.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not).
    model, seeds, seed, test_size, max_train, max_test, weighted, classification_metric, regression_metric
        As for :func:`ml_score_ratio`.

    References
    ----------
    Fletcher, S. & Islam, M. Z. (2015). Measuring information quality for
    privacy preserving data mining. *IJCTE* 7(1), 21-28 (baseline and
    removal error, Fletcher & Islam (2015) III.B).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.mining import ml_gain_kept
    >>> orig = pd.DataFrame({"x": range(100), "y": ["lo"] * 50 + ["hi"] * 50})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "nominal", "role": "target"}}}
    >>> ml_gain_kept(orig, orig.copy(), spec, model="tree").value
    1.0
    """
    s = _settings(model, seeds, seed, test_size, max_train, max_test, weighted)

    def one(t: mm.Target) -> tuple[float, dict]:
        metric = _metric(t, classification_metric, regression_metric)
        ev = _evaluate(pair, t, s)
        runs = ev["runs"]
        values = _per_seed(
            t, [_gain(metric, p[metric], o[metric], b[metric])
                for p, o, b in zip(runs["protected"], runs["original"], runs["baseline"])],
            "kept gain", "the original-trained model does no better than the baseline (or a score is "
            "undefined)")
        block = _target_block(t, ev, metric, s)
        block["gain"] = md.spread(values, s.seed_list)
        return block["gain"]["mean"], block

    return _per_target(pair, s, one)


def _concordance(a: np.ndarray, b: np.ndarray, w: np.ndarray | None) -> float:
    """Lin's concordance correlation 2·cov/(var_a + var_b + (mean_a - mean_b)²), weighted by ``w``."""
    ma, mb = np.average(a, weights=w), np.average(b, weights=w)
    va, vb = np.average((a - ma) ** 2, weights=w), np.average((b - mb) ** 2, weights=w)
    cov = np.average((a - ma) * (b - mb), weights=w)
    denominator = va + vb + (ma - mb) ** 2
    return 1.0 if denominator == 0 else float(2 * cov / denominator)


@measure(
    "ml_prediction_agreement",
    family="mining",
    description="agreement of the protected-trained and original-trained models' predictions on held-out "
                "original records: share of equal classes, or concordance correlation (per target)",
    range=(-1, 1),
    better="higher",
    needs_pairing=False,
    options=_FIT_OPTIONS,
)
def ml_prediction_agreement(
    pair: EncodedPair, *, model: str = "hgb", seeds: int = 5, seed: int = 0, test_size: float = 0.3,
    max_train: int = 10_000, max_test: int = 10_000, weighted: bool = True,
) -> MeasureResult:
    r"""Do the two models predict the same for the same original records?

    For a categorical target, the (weighted) share of held-out original
    records for which the protected-trained and the original-trained model
    predict the same class, :math:`\sum_i w_i [\hat y^{P}_i = \hat y^{O}_i] /
    \sum_i w_i`, in [0, 1].  For a continuous target, Lin's concordance
    correlation of the two models' predictions,

    .. math::

        \rho_c = \frac{2 s_{PO}}{s_P^2 + s_O^2 + (\bar y^P - \bar y^O)^2},

    in [-1, 1]: 1 only when the predictions are equal, lower for scatter,
    shift or a different scale (a plain correlation would miss the last
    two).  Part of Fletcher & Islam's (2015) model-structure comparison: two models can
    score alike and still predict different records right.  Same models,
    split and seeds as :func:`ml_score_ratio`; value = mean over targets of
    the mean over seeds, spread in ``details``.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not).
    model, seeds, seed, test_size, max_train, max_test, weighted
        As for :func:`ml_score_ratio`.

    References
    ----------
    Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate
    reproducibility. *Biometrics* 45(1), 255-268.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.mining import ml_prediction_agreement
    >>> orig = pd.DataFrame({"x": range(100), "y": ["lo"] * 50 + ["hi"] * 50})
    >>> prot = orig.assign(y=["hi"] * 50 + ["lo"] * 50)
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "nominal", "role": "target"}}}
    >>> ml_prediction_agreement(orig, prot, spec, model="tree").value
    0.0
    """
    s = _settings(model, seeds, seed, test_size, max_train, max_test, weighted)

    def one(t: mm.Target) -> tuple[float, dict]:
        values = []
        for sd in s.seed_list:
            ref = mm.reference(pair, t, s, sd)
            p = mm.protected_fit(pair, t, s, sd).output.pred
            o = mm.original_fit(pair, t, s, sd).output.pred
            if t.task == "classification":
                values.append(float(np.average(p == o, weights=ref.w_test)))
            else:
                values.append(_concordance(p, o, ref.w_test))
        how = "share of equal predicted classes" if t.task == "classification" else "Lin's concordance correlation"
        block = {"task": t.task, "agreement": md.spread(values, s.seed_list), "statistic": how,
                 "held_out_records": md.spread([mm.reference(pair, t, s, sd).test.shape[0] for sd in s.seed_list])}
        return block["agreement"]["mean"], block

    return _per_target(pair, s, one)


# ---------------------------------------------------------------------------
# permutation importances
# ---------------------------------------------------------------------------
def _scorer(t: mm.Target, metric: str, y: np.ndarray, w: np.ndarray | None) -> Callable[[mm.Output], float]:
    def score(out: mm.Output) -> float:
        value = mm.scores(t, y, out, w)[metric]
        if value is None:
            raise NotComputed(f"the {metric} of target {t.name!r} is undefined on the held-out records")
        return -value if metric == "rmse" else value

    return score


def _importance_rows(ref: mm.Reference, records: int, seed: int) -> np.ndarray:
    rows = md.sample_rows(ref.test.shape[0], records, np.random.default_rng(seed))
    return np.arange(ref.test.shape[0]) if rows is None else rows


def _importances(pair: EncodedPair, t: mm.Target, s: mm.Settings, seed: int, metric: str, records: int,
                 repeats: int, which: str, shared: tuple[str, ...]) -> np.ndarray:
    """Permutation importances of the variables ``shared`` for the original- or protected-trained model."""

    @md.one_thread
    def compute() -> np.ndarray:
        ref = mm.reference(pair, t, s, seed)
        rows = _importance_rows(ref, records, seed)
        fit = mm.original_fit(pair, t, s, seed) if which == "original" else mm.protected_fit(pair, t, s, seed)
        x = ref.x_test[rows][:, fit.columns]
        own = [t.features[i].name for i in fit.columns]
        columns = [own.index(name) for name in shared]
        w = None if ref.w_test is None else ref.w_test[rows]
        return mm.permutation_importance(lambda z: mm.predict(fit.model, z, t), _scorer(t, metric, ref.y_test[rows], w),
                                         x, columns, repeats, seed)

    key = ("mining", "importance", which, t.key(), s.key(), seed, metric, records, repeats, shared)
    if which == "original":
        return pair.cached_original(key, compute)
    return pair.cached(key, compute)


def _shared(pair: EncodedPair, t: mm.Target, s: mm.Settings, seed: int) -> tuple[str, ...]:
    """The variables both models use, in the features' order."""
    used = {t.features[i].name for i in mm.protected_fit(pair, t, s, seed).columns}
    used &= {t.features[i].name for i in mm.original_fit(pair, t, s, seed).columns}
    return tuple(f.name for f in t.features if f.name in used)


def _rank_correlation(a: np.ndarray, b: np.ndarray) -> tuple[float | None, str | None]:
    """Spearman's ρ of two importance vectors; None when neither ranks the variables (both all equal)."""
    from scipy.stats import spearmanr

    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return None, None
    if np.array_equal(a, b):
        return 1.0, None
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return 0.0, ("one model's importances are all equal (e.g. a model that predicts one class), so they share "
                     "no ranking with the other's: counted as 0")
    return float(spearmanr(a, b).statistic), None


@measure(
    "ml_importance_correlation",
    family="mining",
    description="Spearman correlation of the variables' permutation importances in the protected-trained and "
                "original-trained models (per target)",
    range=(-1, 1),
    better="higher",
    needs_pairing=False,
    options=IMPORTANCE_OPTIONS,
)
def ml_importance_correlation(
    pair: EncodedPair, *, model: str = "hgb", seeds: int = 5, seed: int = 0, test_size: float = 0.3,
    max_train: int = 10_000, max_test: int = 10_000, weighted: bool = True,
    classification_metric: str = "balanced_accuracy", regression_metric: str = "r2",
    importance_records: int = 500, importance_repeats: int = 2,
) -> MeasureResult:
    r"""Do the two models rely on the same variables? Rank correlation of permutation importances.

    The permutation importance of variable :math:`j` in a model is the drop
    of its score when :math:`j` is shuffled among the held-out original
    records (Breiman 2001), averaged over ``importance_repeats`` shuffles:
    :math:`I_j = S - \frac1R\sum_r S_{(j\text{ shuffled}, r)}`.  The measure
    is Spearman's :math:`\rho` between the importances of the protected-
    and the original-trained model over the variables both use, per target
    and seed (Fletcher & Islam's (2015) model-structure similarity: two models may score
    alike on different variables).  Both models are scored on the same
    ``importance_records`` held-out records with the same shuffles.  When one
    model's importances are all equal (e.g. a model that predicts one class)
    the correlation is undefined and counted as 0 (``details`` says so);
    equal importance vectors count 1.  When both models' importances are
    all equal (e.g. two models that predict one class: every importance 0),
    neither ranks the variables and the target is not computed.  Value = mean over targets of the
    mean over seeds; ``details`` has both models' mean importances.

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not).
    model, seeds, seed, test_size, max_train, max_test, weighted, classification_metric, regression_metric
        As for :func:`ml_score_ratio` (the metric is the score that is
        dropped).
    importance_records : int
        Held-out records used (a seeded sample of them beyond).
    importance_repeats : int
        Shuffles per variable.

    References
    ----------
    Breiman, L. (2001). Random forests. *Machine Learning* 45, 5-32.

    Fletcher, S. & Islam, M. Z. (2015). Measuring information quality for
    privacy preserving data mining. *IJCTE* 7(1), 21-28.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from infoloss.measures.mining import ml_importance_correlation
    >>> rng = np.random.default_rng(0)
    >>> orig = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    >>> orig["y"] = np.where(orig.a + 0.5 * orig.b > 0, "yes", "no")
    >>> spec = {"variables": {"a": {"scale": "continuous"}, "b": {"scale": "continuous"},
    ...                       "c": {"scale": "continuous"}, "y": {"scale": "nominal", "role": "target"}}}
    >>> ml_importance_correlation(orig, orig.copy(), spec, seeds=2).value
    1.0
    """
    s = _settings(model, seeds, seed, test_size, max_train, max_test, weighted)

    def one(t: mm.Target) -> tuple[float, dict]:
        metric = _metric(t, classification_metric, regression_metric)
        values, notes, imp_o, imp_p = [], [], {}, {}
        for sd in s.seed_list:
            shared = _shared(pair, t, s, sd)
            if len(shared) < 2:
                raise NotComputed(f"the models of target {t.name!r} share fewer than two predictor variables, so "
                                  "there is no ranking to compare")
            o = _importances(pair, t, s, sd, metric, importance_records, importance_repeats, "original", shared)
            p = _importances(pair, t, s, sd, metric, importance_records, importance_repeats, "protected", shared)
            rho, note = _rank_correlation(o, p)
            values.append(rho)
            for name, a, b in zip(shared, o, p):
                imp_o.setdefault(name, []).append(float(a))
                imp_p.setdefault(name, []).append(float(b))
            if note and note not in notes:
                notes.append(note)
        values = _per_seed(t, values, "importance correlation", "neither model's importances rank the variables "
                           "(all equal, e.g. two models that predict one class)")
        block: dict[str, Any] = {
            "task": t.task, "metric": metric, "correlation": md.spread(values, s.seed_list),
            "importance_original": {k: float(np.mean(v)) for k, v in imp_o.items()},
            "importance_protected": {k: float(np.mean(v)) for k, v in imp_p.items()},
            "importance": f"mean drop of {metric} when the variable is shuffled, over {importance_repeats} "
                          f"shuffles and up to {importance_records} held-out original records",
        }
        if notes:
            block["notes"] = notes
        return block["correlation"]["mean"], block

    return _per_target(pair, s, one)
