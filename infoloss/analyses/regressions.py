"""The declared regressions, fitted with the same formula on the original and on each protected file.

A formula is a patsy formula (statsmodels' formula language) over the spec's variables: continuous variables
and ordinal ones with numeric labels enter as numbers; nominal variables (and ordinal ones with text labels)
as categorical factors, treatment-coded with the original's first category as the reference.  The
protected files are coded with the *original's* design (its categories and reference levels, patsy's
``build_design_matrices``), so that every coefficient means the same thing in every file.

Fitting follows R's ``lm``/``glm`` and their conventions:

- ``gaussian``: weighted least squares (R's ``lm(weights = w)``, :mod:`.fitting`; tested against statsmodels'
  WLS) with the spec's weights; t intervals with the residual degrees of freedom (``confint``); fit: adjusted R²;
- ``binomial`` (logit) and ``poisson`` (log): IRLS (R's ``glm``, :mod:`.fitting`; tested against statsmodels'
  GLM) with the weights
  normalised to mean 1 (raw expansion weights would act as replicated records and shrink the standard
  errors); Wald intervals ±z·SE (``confint.default``); fit: Cox & Snell's pseudo-R²
  ``1 − exp((D − D0)/N)`` (deviance D, null deviance D0, N the sum of the normalised weights), with
  ``1 − D/D0`` (McFadden's for 0/1 responses) in the details.  A categorical response of a binomial model
  is "not the first category" (R's rule for factor responses).

Listwise deletion: a record with a missing value in any variable of the formula, or whose response or terms
are not finite (e.g. ``np.log(0)``), is left out; ``where`` keeps the records for which it is true (it must
give true or false, as R's ``subset`` requires).  The counts are stated per file.  The intervals are
model-based, not design-based.  A model matrix of more than :data:`MAX_COLUMNS` columns or :data:`MAX_CELLS`
cells is not built (a note).

Coefficients that cannot be estimated get a note and no number: a column that is linearly dependent on the
earlier ones (R's ``NA``: e.g. a category absent from the file), an infinite maximum-likelihood estimate
under (quasi-)complete separation — found exactly for 0/1 columns (every record with the category has the
same outcome) and with Konis's (2007) linear program otherwise — and, when a protected file has categories
the original lacks (a recoding), the coefficients of that variable (the file is then coded on its own).

A factor's reference category must have records in both files' fits: when it has none in one of them, both
files move to the first category that has records in both, or, when none has or the reference cannot be
moved, the coefficients that depend on it are withheld in the file that lacks it (:mod:`.references`).

References
----------
Konis, K. (2007). *Linear programming algorithms for detecting separated data in binary logistic regression
models*. DPhil thesis, University of Oxford (the ``safeBinaryRegression`` / ``detectseparation`` method).
Cox, D. R. & Snell, E. J. (1989). *Analysis of Binary Data*, 2nd ed. Chapman & Hall (the pseudo-R²).
Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data masking and assessing utility.
*Journal of Privacy and Confidentiality* 2(1), 73–91 (utility as the relative change of fit statistics).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..errors import InputError, NotComputed, counted, excerpt
from .data import FileData, label_values
from .fitting import FitResult, alias_factor, glm_fit, linear_fit
from .references import (
    common_references,
    dependent_columns,
    factor_references,
    moved_levels,
    own_references,
)
from .spec import Analyses, Regression, model_desc, where_code

#: |R_jj| / ||x_j|| below this makes column j aliased (R's lm uses tol = 1e-7 in its QR)
ALIAS_TOL = 1e-7
#: a fitted |η| above this (a probability within 3e-7 of 0 or 1) triggers the exact separation check
SEPARATION_ETA = 15.0
#: rows (after removing duplicates) above which the separation linear program is not attempted
LP_MAX_ROWS = 200_000
#: the most columns, and cells (records × columns), of a regression's model matrix in one file: the matrix is
#: dense (a factor of 100,000 categories on 200,000 records would take 160 GB), and finding its aliased
#: columns takes about 2·records·columns² operations (2,000 columns of 25,000 records: some 10 s)
MAX_COLUMNS = 2_000
MAX_CELLS = 50_000_000
#: a weighted sum of squares Σ w·v² of the response or a column above this makes the fit's sums overflow
#: (the largest double over 10^4: headroom for the cross-products and residual sums, bounded by these)
FINITE_SUM_OF_SQUARES = np.finfo(float).max / 1e4
_NUMPY_SHORTCUTS = {"np": np, "numpy": np, "log": np.log, "log10": np.log10, "log1p": np.log1p, "exp": np.exp,
                    "sqrt": np.sqrt, "abs": np.abs}


@dataclass
class Fit:
    """One regression in one file: the JSON part (``result``) and the original's design for the others."""

    result: dict[str, Any]
    design: tuple | None = field(default=None, repr=False)  # (y design_info, X design_info) of the original
    categorical: dict[str, list] = field(default_factory=dict, repr=False)  # variable -> levels used
    present: dict[str, frozenset] = field(default_factory=dict, repr=False)  # factor -> categories with records
    common: dict[str, Any] = field(default_factory=dict, repr=False)  # variable -> a reference both files have


def fit_regressions(data: FileData, analyses: Analyses, reference: list[Fit] | None = None) -> list[Fit]:
    """Fit every declared regression on ``data``; ``reference`` is the original's fits (None: this is it).

    A protected file that lacks a reference category of the original's coding gets that reference's
    coefficients withheld (see :mod:`.references`); :func:`fit_protected` refits both files instead when
    a category has a record in both.
    """
    return [_fit_or_note(data, reg, analyses.ci.level, None if reference is None else reference[k])
            for k, reg in enumerate(analyses.regressions)]


def fit_protected(original: FileData, protected: FileData, analyses: Analyses,
                  reference: list[Fit]) -> tuple[list[Fit], list[Fit]]:
    """The protected file's fits, and the original's fits to compare them with.

    The original's fits are ``reference`` (computed once for every scenario) except for a regression where
    the protected file has no record of a reference category of the original's coding and another category
    has a record in both files: both files are then refitted with the first such category as the reference,
    so that the coefficients keep their names and their meaning (see :mod:`.references`).
    """
    level = analyses.ci.level
    prot = fit_regressions(protected, analyses, reference)
    orig = list(reference)
    for k, fit in enumerate(prot):
        if fit.common:
            reg = analyses.regressions[k]
            moves = {v: (label, protected.name) for v, label in fit.common.items()}
            orig[k] = _fit_or_note(original, reg, level, None, moves)
            prot[k] = _fit_or_note(protected, reg, level, orig[k], moves)
    return orig, prot


def _fit_or_note(data: FileData, reg: Regression, level: float, ref: Fit | None, moves: dict | None = None) -> Fit:
    """The fit, or a Fit with the note saying why it could not be made (an input error of the original raises)."""
    try:
        return _fit_one(data, reg, level, ref, moves or {})
    except (InputError, NotComputed) as exc:
        if ref is None and isinstance(exc, InputError):
            raise
        return Fit({"name": reg.name, "family": reg.family, "formula": reg.formula, "fitted": False,
                    "note": f"not fitted on the {data.name} file: {str(exc).rstrip('.')}"})


@dataclass
class _Model:
    """A regression's data in one file: the frame, the matrices and the records used."""

    frame: pd.DataFrame
    y: pd.DataFrame
    X: pd.DataFrame
    recoded: list[str]
    y_vec: np.ndarray  # the used records' response, model matrix and weights
    X_vec: np.ndarray
    w: np.ndarray
    counts: dict[str, int]
    response_note: str
    outcomes: Outcomes
    rows: np.ndarray  # the frame's index of the used records

    @property
    def used(self) -> pd.DataFrame:
        """The frame's records that the fit uses (finite, with a positive weight)."""
        return self.frame.loc[self.rows[self.w > 0]]


def _fit_one(data: FileData, reg: Regression, level: float, ref: Fit | None, moves: dict[str, tuple]) -> Fit:
    """One regression on one file; ``moves``: variable -> (reference category, file lacking the previous one)."""
    model = _model(data, reg, ref, moves)
    refs = factor_references(model.X.design_info, model.used, _plain_factor_variable)
    if ref is None:
        own = {v: (label, data.name) for v, label in own_references(refs).items() if v not in moves}
        if own:
            return _fit_one(data, reg, level, None, {**moves, **own})
    result = {"name": reg.name, "family": reg.family, "formula": reg.formula, "where": reg.where, "fitted": True,
              **model.counts, "weighted": bool(reg.weighted and data.design.weighted),
              "references": {r.factor: {"category": _label(r.label), "n_records": r.n_reference} for r in refs}}
    notes = [model.response_note] if model.response_note else []
    notes += [_moved_note(v, lacking) for v, (_, lacking) in moves.items()]
    if model.recoded:
        notes.append(f"the {data.name} file has categories of {', '.join(model.recoded)} that the original lacks "
                     "(recoded?), so it is coded on its own and those coefficients are not compared")
    names = list(model.X.columns)
    kinds = _column_kinds(model.X.design_info)
    coefficients, fit_stats = _estimate(model.y_vec, model.X_vec, model.w, names, kinds, reg.family, level,
                                        data.name, notes, model.outcomes)
    for c, n_records in zip(coefficients, _records_behind(model.X_vec, model.X.design_info)):
        c["n_records"] = n_records
    for c in coefficients:
        if model.recoded and _term_variables(model.X, c["name"]) & set(model.recoded):
            c["recoded"] = True
    _withhold_absent_references(coefficients, refs, model.X.design_info, data.name, moves)
    result.update(fit_stats)
    result["coefficients"] = coefficients
    result["notes"] = notes
    fit = Fit(result, present={r.factor: r.present for r in refs})
    if ref is None:
        fit.design = (model.y.design_info, model.X.design_info)
        fit.categorical = _categorical_levels(model.frame)
    elif not moves:
        fit.common = {v: label for v, label in common_references(refs, ref.present).items()
                      if v not in model.recoded}
    return fit


def _model(data: FileData, reg: Regression, ref: Fit | None, moves: dict[str, tuple]) -> _Model:
    """The records, matrices and counts of one regression on one file (NotComputed: no record to fit)."""
    import patsy

    frame = data.frame(reg.variables, levels=_frame_levels(data, reg, ref.categorical if ref is not None else None))
    if moves and ref is None:
        levels = moved_levels(_categorical_levels(frame), {v: label for v, (label, _) in moves.items()})
        frame = data.frame(reg.variables, levels=levels)
    n_all = len(frame)
    keep = _where(data, reg) if reg.where else np.ones(n_all, dtype=bool)
    complete = _complete(data, reg)
    n_missing = int((keep & ~complete).sum())
    frame = frame.loc[keep & complete]
    try:
        with np.errstate(all="ignore"):
            y, X, recoded = _design_matrices(data, reg, frame, ref)
    except (patsy.PatsyError, TypeError, ValueError, ZeroDivisionError, OverflowError) as exc:
        raise InputError(_formula_error(exc, reg, data.name)) from None
    y_vec, response_note, outcomes = _response(y, reg, data.name)
    Xv = X.to_numpy(dtype=float)
    finite = np.isfinite(y_vec) & np.isfinite(Xv).all(axis=1)
    n_not_finite = int((keep & complete).sum() - len(y) + (~finite).sum())
    if not finite.any():
        raise NotComputed(_no_record_text(reg, data.name, n_not_finite))
    rows = y.index.to_numpy()[finite]
    w = _weights(data, reg, rows)
    positive = w > 0  # a record of weight 0 adds nothing to the fit (R's lm and glm drop it, and nobs() with it)
    counts = {"n_records": n_all, "n_filtered_out": int(n_all - keep.sum()), "n_missing": n_missing,
              "n_not_finite": n_not_finite,
              **({"n_zero_weight": int((~positive).sum())} if reg.weighted and data.design.weighted else {}),
              "n_used": int(positive.sum()), "off_mode": _off_mode(y_vec[finite][positive])}
    if reg.family == "gaussian":
        _check_response_varies(y_vec[finite][positive], reg)
    return _Model(frame, y, X, recoded, y_vec[finite], Xv[finite], w, counts, response_note, outcomes, rows)


def _formula_error(exc: Exception, reg: Regression, which: str) -> str:
    """The message of a formula that cannot be evaluated on the ``which`` file; patsy wraps the error of a term
    (``Error evaluating factor: OverflowError: ...``) and keeps it as the cause."""
    import patsy

    cause = exc.__cause__ if isinstance(exc, patsy.PatsyError) and exc.__cause__ is not None else exc
    start = f"regression {reg.name!r} cannot be evaluated on the {which} file"
    if isinstance(cause, OverflowError):  # 10.0 ** 400, or an int beyond the floats meeting a column
        return (f"{start}: its formula {excerpt(reg.formula)} gives a number too large for a floating-point value "
                "(above 1.8e308); write smaller constants.")
    if isinstance(cause, ZeroDivisionError):  # of Python numbers: a column divided by 0 gives inf, left out
        return (f"{start}: its formula {excerpt(reg.formula)} divides a constant by zero (with /, // or %); "
                "write another divisor or remove that term.")
    if isinstance(exc, patsy.PatsyError):
        first = str(exc).splitlines()[0].rstrip(".")
        return f"regression {reg.name!r} cannot be built on the {which} file ({first})."
    return f"{start} ({exc}); check the formula's operations against the variables' scales."


def _check_response_varies(y: np.ndarray, reg: Regression) -> None:
    """NotComputed when a linear regression's response has one value in every record it uses: the fit is exact,
    its slopes are rounding noise (2.6e-20, se 0) whose signs the comparison would then compare, and its R² is
    0/0 (R's ``lm`` warns of an "essentially perfect fit")."""
    if y.size and bool(np.all(y == y[0])):
        raise NotComputed(f"the response of regression {reg.name!r} has one value in all {counted(y.size, 'record')} "
                          "it uses, so there is nothing to explain")


def _off_mode(y: np.ndarray) -> int:
    """The records whose response is not its most common value (safe mode: with few, the coefficients give
    those records' values back, as a mean would)."""
    if y.size == 0:
        return 0
    return int(y.size - np.unique(y, return_counts=True)[1].max())


def _no_record_text(reg: Regression, which: str, n_not_finite: int) -> str:
    if n_not_finite:
        return (f"regression {reg.name!r} has no record in the {which} file whose response and terms are all "
                f"finite: the response or a term of each of its {n_not_finite} complete records is not (e.g. "
                "np.log(0))")
    return f"regression {reg.name!r} has no complete record in the {which} file"


def _whole(value: Any) -> Any:
    """A number that counts something (degrees of freedom) as an int when it is whole (safe mode rounds the
    other numbers of the analyses block to 3 significant digits: 1991 degrees of freedom became 1990)."""
    return int(value) if isinstance(value, (int, float, np.number)) and float(value).is_integer() else value


def _label(value: Any) -> Any:
    """A category as JSON has it: a number (int when whole) or text."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return int(value) if float(value).is_integer() else float(value)
    return str(value)


def _moved_note(variable: str, lacking: str) -> str:
    return (f"reference category of {variable}: the first of its categories with a record in the records this "
            f"regression uses in both files (see references), as the {lacking} file has none of the one before")


def _withhold_absent_references(coefficients: list[dict], refs: list, info: Any, which: str,
                                moves: dict[str, tuple]) -> None:
    """Withhold the coefficients that depend on a reference category this file has no record of."""
    by_name = {c["name"]: c for c in coefficients}
    for r in refs:
        if not r.absent:
            continue
        why = ("no category has a record in both files" if r.movable or r.variable in moves
               else "its reference cannot be moved (an explicit reference, or a factor computed from a number)")
        note = (f"not comparable, withheld: no record of {r.variable or r.factor}'s reference category "
                f"{_label(r.label)!r} in the {which} file ({why})")
        for name in dependent_columns(info, r.factor):
            c = by_name[name]
            c.update(estimate=None, se=None, lower=None, upper=None, p_value=None, note=note)


def _column_kinds(info: Any) -> list[str]:
    """Per column: ``"intercept"``, ``"categorical"`` (every factor of its term is) or ``"numeric"``."""
    kinds = []
    for term, sl in info.term_slices.items():
        if not term.factors:
            kind = "intercept"
        elif all(info.factor_infos[f].type == "categorical" for f in term.factors):
            kind = "categorical"
        else:
            kind = "numeric"
        kinds += [kind] * len(info.column_names[sl])
    return kinds


# ---------------------------------------------------------------------------
# the data
# ---------------------------------------------------------------------------
def _design_matrices(data: FileData, reg: Regression, frame: pd.DataFrame, ref: Fit | None) -> tuple:
    """Response and model matrices: the original's coding when it fits this file, else the file's own.

    Returns ``(y, X, recoded)``, ``recoded`` the variables whose categories the original's coding cannot
    represent here (their coefficients are then not compared).
    """
    import patsy

    if ref is None or ref.design is None:
        return (*_own_design(reg, frame), [])
    recoded = _recoded_variables(data, ref)
    if not recoded:
        try:
            _check_info(ref.design[1], len(frame))
            y, X = patsy.build_design_matrices(list(ref.design), frame, return_type="dataframe")
            return y, X, []
        except patsy.PatsyError:  # a transformed categorical term (e.g. C(x // 10)) with a value the original lacks
            recoded = _categorical_term_variables(ref, data.pair.spec.variables)
    return (*_own_design(reg, frame), recoded)


def _own_design(reg: Regression, frame: pd.DataFrame) -> tuple:
    """patsy's ``dmatrices(formula, frame)``, with the model matrix's size checked before it is built."""
    import patsy

    desc = model_desc(reg.formula)
    _check_levels(desc, frame)
    infos = patsy.design_matrix_builders([desc.lhs_termlist, desc.rhs_termlist], lambda: iter([frame]),
                                         patsy.EvalEnvironment([_NUMPY_SHORTCUTS]))
    _check_info(infos[1], len(frame))
    return patsy.build_design_matrices(infos, frame, return_type="dataframe")


def _check_levels(desc: Any, frame: pd.DataFrame) -> None:
    """:func:`_check_size` for each factor of a variable (``x``, ``C(x)``) before patsy codes it: patsy first
    makes a dense categories × categories contrast matrix (100,000 categories: 56 GB).  A term of a factor of
    k categories has at least k − 1 columns (a categorical response has k).  A factor computed in the formula,
    ``C(x // 10)``, is evaluated here first to count its categories (1,000,000 incomes // 10: 100,000)."""
    for term in desc.lhs_termlist + desc.rhs_termlist:
        for factor in term.factors:
            name = _factor_variable(factor.code)
            if name is None:
                levels = _computed_levels(factor.code, frame)
                if levels is None:
                    continue
            elif name not in frame.columns:
                continue
            elif isinstance(frame[name].dtype, pd.CategoricalDtype):
                levels = len(frame[name].cat.categories)
            elif factor.code.startswith("C("):
                levels = int(frame[name].nunique())
            else:
                continue  # a number: one column
            _check_size(levels - 1, len(frame), factor.name(), levels, at_least=True)


def _computed_levels(code: str, frame: pd.DataFrame) -> int | None:
    """The categories of ``C(expression)`` whose expression is computed from the variables (``C(x // 10)``), or
    None for another factor or one that cannot be evaluated here (patsy then says why).  The expression passed
    the formula checks (:func:`.spec.formula_variables`): the names and calls patsy itself would evaluate."""
    import ast

    import patsy

    node = ast.parse(code, mode="eval").body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "C" and node.args):
        return None
    try:
        values = patsy.EvalEnvironment([_NUMPY_SHORTCUTS]).eval(ast.unparse(node.args[0]), inner_namespace=frame)
        return int(pd.Series(np.asarray(values).ravel()).nunique())
    except Exception:  # noqa: BLE001 (the user's expression: patsy reports the failure when it builds the matrix)
        return None


def _check_info(info: Any, n: int) -> None:
    """:func:`_check_size` for the model matrix that patsy's ``info`` describes."""
    term, width = max(((t.name(), s.stop - s.start) for t, s in info.term_slices.items()), key=lambda tw: tw[1])
    _check_size(len(info.column_names), n, term, width)


def _check_size(p: int, n: int, term: str, width: int, at_least: bool = False) -> None:
    """NotComputed when the model matrix would have more than :data:`MAX_COLUMNS` columns or :data:`MAX_CELLS`
    cells; ``term``, the widest, with ``width`` columns (categories when ``at_least``)."""
    from ..limits import size_text

    if p <= MAX_COLUMNS and n * p <= MAX_CELLS:
        return
    columns = f"{'at least ' if at_least else ''}{p:,} columns"
    size = (f"{columns}, more than the limit of {MAX_COLUMNS:,}" if p > MAX_COLUMNS else
            f"{columns} for {n:,} records ({n * p:,} cells, {size_text(8 * n * p)}), "
            f"more than the limit of {MAX_CELLS:,} cells")
    fix = (f"group the categories of {term} ({width:,} {'categories' if at_least else 'columns'}) into fewer "
           "(a recode), or use fewer terms" if width > 1 else "use fewer terms")
    raise NotComputed(f"its model matrix would have {size}; {fix}")


def _categorical_term_variables(ref: Fit, variables: dict) -> list[str]:
    """The spec variables used by the original's categorical terms."""
    import ast

    out: list[str] = []
    for info in ref.design:
        for factor, finfo in info.factor_infos.items():
            if finfo.type == "categorical":
                tree = ast.parse(factor.code, mode="eval")
                out += [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in variables]
    return list(dict.fromkeys(out))


def _frame_levels(data: FileData, reg: Regression, levels: dict | None) -> dict | None:
    """Levels for the categorical columns: the original's where it has them (unknown values stay visible)."""
    if levels is None:
        return None
    out = {}
    for name, lv in levels.items():
        extra = [v for v in data.labels_present(name) if v not in set(lv)]
        out[name] = list(lv) + extra
    return out


def _categorical_levels(frame: pd.DataFrame) -> dict[str, list]:
    return {c: list(frame[c].cat.categories) for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)}


def _recoded_variables(data: FileData, ref: Fit) -> list[str]:
    """Variables of the original's categorical terms with values in this file that the original lacks."""
    out: list[str] = []
    for info in ref.design:
        for factor, finfo in info.factor_infos.items():
            name = _factor_variable(factor.code) if finfo.type == "categorical" else None
            if name is None or name in out:
                continue
            if name in data.pair.categorical:
                present = data.labels_present(name)
            else:
                values = data.numeric(name)
                present = np.unique(values[~np.isnan(values)]).tolist()
            allowed = set(finfo.categories)
            if any(v not in allowed for v in present):
                out.append(name)
    return out


def _factor_variable(code: str) -> str | None:
    """The variable of a factor that is the variable itself, ``C(x, ...)`` or ``Q('x')``; else None."""
    import ast

    node = ast.parse(code, mode="eval").body
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "C" and node.args:
        node = node.args[0]
    if isinstance(node, ast.Name):
        return node.id
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Q" and node.args
            and isinstance(node.args[0], ast.Constant)):
        return str(node.args[0].value)
    return None


def _plain_factor_variable(code: str) -> str | None:
    """The variable of a factor coded by its levels' order: ``x``, ``C(x)`` or ``Q('x')``, not ``C(x, ...)``."""
    import ast

    node = ast.parse(code, mode="eval").body
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "C"
            and (len(node.args) != 1 or node.keywords)):
        return None
    return _factor_variable(code)


def _term_variables(X: pd.DataFrame, column: str) -> set[str]:
    """The names used by the term that produced ``column``."""
    import ast

    info = X.design_info
    for term, sl in info.term_slices.items():
        if column in info.column_names[sl]:
            names: set[str] = set()
            for factor in term.factors:
                tree = ast.parse(factor.code, mode="eval")
                names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
                names |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            return names
    return set()


def _complete(data: FileData, reg: Regression) -> np.ndarray:
    """Records with every variable of the formula (and of ``where``) observed: listwise deletion by variable.

    numpy comparisons turn a missing value into False (``I(sex == 2)``), where R gives NA and drops the
    record; deleting by variable first gives R's result.
    """
    ok = np.ones(data.n, dtype=bool)
    for name in reg.variables:
        if name in data.pair.continuous:
            ok &= ~np.isnan(data.numeric(name))
        else:
            ok &= data.codes(name)[0] >= 0
    return ok


def _where(data: FileData, reg: Regression) -> np.ndarray:
    """The records for which the regression's ``where`` is true (the expression was checked at load)."""
    namespace: dict[str, Any] = dict(_NUMPY_SHORTCUTS)
    for name in reg.variables:
        if name in data.pair.continuous:
            namespace[name] = data.numeric(name)
        else:
            codes, labels = data.codes(name)
            # a missing category is NaN: any comparison with it is false (None would raise for < and >); the
            # record is left out anyway, as a record with a missing value of a variable of the regression
            namespace[name] = np.array(label_values(labels) + [np.nan], dtype=object)[codes]
    try:
        with np.errstate(all="ignore"):
            mask = eval(where_code(reg.where), {"__builtins__": {}}, namespace)  # noqa: S307
    except Exception as exc:  # the user's expression: any failure is an input error
        raise InputError(f"the 'where' of regression {reg.name!r} cannot be evaluated ({exc}).") from None
    mask = np.asarray(mask)
    if mask.shape != (data.n,) or not _logical(mask):
        gives = "one value" if mask.shape != (data.n,) else "numbers" if mask.dtype.kind in "iufc" else "values"
        raise InputError(f"the 'where' of regression {reg.name!r}, {excerpt(reg.where)}, gives {gives} instead "
                         "of true or false for each record; write a condition, such as age > 16 (R's subset "
                         "refuses one that is not logical too).")
    return np.asarray(pd.Series(mask).fillna(False).astype(bool))


def _logical(mask: np.ndarray) -> bool:
    """True and false only (missing, in a comparison of text with a missing category, counts as false).

    A number would be read as its truth value, so that ``age - 16`` (a typo for ``age > 16``) silently kept
    the records whose age is not 16.
    """
    if mask.dtype == bool:
        return True
    # pandas' type inference runs in C: no Python loop over the records
    return mask.dtype == object and pd.api.types.infer_dtype(mask, skipna=True) in ("boolean", "empty")


def _response(y: pd.DataFrame, reg: Regression, which: str) -> tuple[np.ndarray, str, Outcomes]:
    """The response as numbers (a categorical one: 1 for success), the note saying what success is, and
    how its outcomes read."""
    outcomes = _outcomes(y)
    if y.shape[1] == 1:
        values = y.iloc[:, 0].to_numpy(dtype=float)
        note = ""
    elif reg.family == "binomial":
        values = 1.0 - y.iloc[:, 0].to_numpy(dtype=float)
        note = (f"success = {outcomes.one}" if outcomes.one.endswith(" true") else
                f"categorical response: success = {outcomes.one} (R's rule for factor responses)")
    else:
        raise InputError(f"the response of regression {reg.name!r}, {y.design_info.term_names[0]}, is categorical, "
                         f"not a number; for a {reg.family} model use a continuous variable (or an ordinal one with "
                         "numeric codes), or use family: binomial.")
    ok = values[np.isfinite(values)]
    if reg.family == "binomial" and ((ok < 0) | (ok > 1)).any():
        raise InputError(f"the response of the binomial regression {reg.name!r} has values outside 0..1 in the "
                         f"{which} file; use a 0/1 variable or a condition like I(x == 1).")
    if reg.family == "poisson" and (ok < 0).any():
        raise InputError(f"the response of the poisson regression {reg.name!r} has negative values in the "
                         f"{which} file; a count cannot be negative.")
    return values, note, outcomes


class Outcomes(NamedTuple):
    """A response's name and how its outcomes 1 and 0 read."""

    name: str
    one: str
    zero: str


def _outcomes(y: pd.DataFrame) -> Outcomes:
    """``y = 1`` and ``y = 0``; for a condition (patsy codes True and False as categories) ``I(x > 0) true``
    and ``I(x > 0) false``; for a categorical response, whose first category is failure (R's rule for factor
    responses), ``C(g) other than 'a'`` and ``C(g) = 'a'``."""
    info = y.design_info
    name = info.term_names[0]
    if y.shape[1] == 1:
        return Outcomes(name, f"{name} = 1", f"{name} = 0")
    categories = info.factor_infos[info.terms[0].factors[0]].categories
    if all(isinstance(c, (bool, np.bool_)) for c in categories):
        return Outcomes(name, f"{name} true", f"{name} false")
    first = _label(categories[0])
    return Outcomes(name, f"{name} other than {first!r}", f"{name} = {first!r}")


def _weights(data: FileData, reg: Regression, rows: np.ndarray) -> np.ndarray:
    design = data.design
    if not (reg.weighted and design.weighted):
        return np.ones(rows.size)
    return design.weights[rows]


# ---------------------------------------------------------------------------
# fitting
# ---------------------------------------------------------------------------
def _estimate(y: np.ndarray, X: np.ndarray, w: np.ndarray, names: list[str], kinds: list[str], family: str,
              level: float, which: str, notes: list[str], response: Outcomes) -> tuple[list[dict], dict]:
    positive = w > 0
    y, X, w = y[positive], X[positive], w[positive]
    if y.size:
        _check_range(y, X, w, family, response.name, names)
        _check_outcomes(y, family, response, which)
    aliased, factor = alias_factor(X, w, ALIAS_TOL)
    keep = np.flatnonzero(~aliased)
    coefficients = [{"name": n, "estimate": None, "se": None, "lower": None, "upper": None, "p_value": None}
                    for n in names]
    for j in np.flatnonzero(aliased):
        coefficients[j]["note"] = _aliased_note(X[:, j], names[j], kinds[j], which, "Intercept" in names)
    if keep.size == 0 or y.size <= keep.size:
        raise NotComputed(f"the {which} file has {y.size} complete records for {keep.size} coefficients")
    Xk = X[:, keep]
    intercept = "Intercept" in [names[j] for j in keep]
    stats: dict[str, Any] = {}
    if family == "gaussian":
        res = linear_fit(y, Xk, w, level=level, intercept=intercept, factor=factor)
        stats.update(r2_kind="adjusted R²", r2=_num(res.r2_adj), r2_plain=_num(res.r2), df_residual=_whole(res.df_resid))
        infinite: set[int] = set()
    else:
        wn = w / w.mean()
        res = glm_fit(y, Xk, wn, family, level=level, intercept=intercept)
        infinite = _separated(y, Xk, family, res, notes, which)
        n_eff = float(wn.sum())
        stats.update(r2_kind="Cox–Snell pseudo-R²",
                     r2=_num(1 - np.exp((res.deviance - res.null_deviance) / n_eff)),
                     deviance_r2=_num(1 - res.deviance / res.null_deviance) if res.null_deviance > 0 else None,
                     deviance=_num(res.deviance), null_deviance=_num(res.null_deviance), converged=res.converged)
    for i, j in enumerate(keep):
        c = coefficients[j]
        if i in infinite:
            c["note"] = (f"infinite estimate: (quasi-)complete separation in the {which} file, "
                         "so the coefficient and its interval are not reported")
            continue
        c.update(estimate=_num(res.params[i]), se=_num(res.bse[i]), lower=_num(res.lower[i]),
                 upper=_num(res.upper[i]), p_value=_num(res.pvalues[i]))
    return coefficients, stats


def _aliased_note(column: np.ndarray, name: str, kind: str, which: str, intercept: bool) -> str:
    """Why a column's coefficient is not estimable: an absent category, a constant column or collinearity."""
    if kind == "categorical" and not column.any():
        return f"not estimable: no record of the {which} file has this category"
    if not column.any():
        return f"not estimable: {name} is 0 in every record the {which} file's fit uses"
    if intercept and kind == "numeric" and np.ptp(column) == 0:
        return (f"not estimable: {name} is constant ({column[0]:g}) in every record the {which} file's fit uses, "
                "so it is collinear with the intercept")
    return f"not estimable: collinear with earlier terms in the {which} file"


def _records_behind(X: np.ndarray, info: Any) -> list[int]:
    """For each coefficient, the fewest records its estimate contrasts.

    A category's coefficient (a 0/1 column) rests on the records of that
    category and on those of its term's reference category (the records
    where every column of the term is 0); any other column on the records
    where it is not 0, or, when one value holds most records, where it
    differs from that value (for a column that is 0 but on a few records,
    those records either way).  The intercept -- the fit where every column
    is 0 -- rests on the smallest reference category of the model's
    categorical terms, and on the few records of a column whose value on
    most records is not 0 (``np.where(c, 0, 1)``: the intercept is the mean
    of the few records at 0).  A coefficient of a category of
    one record reproduces that record's value (safe mode withholds
    coefficients of fewer than ``min_cell`` records).
    """
    out = [0] * X.shape[1]
    smallest_reference = X.shape[0]
    categorical_columns: set[int] = set()
    for term, sl in info.term_slices.items():
        columns = range(X.shape[1])[sl]
        if not columns or not term.factors:
            continue
        if not all(info.factor_infos[f].type == "categorical" for f in term.factors):
            continue
        categorical_columns.update(columns)
        nonzero = np.count_nonzero(X[:, sl], axis=0)
        reference = int(np.count_nonzero(~(X[:, sl] != 0).any(axis=1)))
        for j, k in zip(columns, nonzero):
            out[j] = int(k) if reference == 0 else min(int(k), reference)  # reference 0: full-rank coding
        if reference:
            smallest_reference = min(smallest_reference, reference)
    intercept = None
    for j, name in enumerate(info.column_names):
        if name == "Intercept":
            intercept = j
        elif j not in categorical_columns:
            values, counts = np.unique(X[:, j], return_counts=True)
            top = int(np.argmax(counts)) if counts.size else 0
            if counts.size and 2 * counts[top] > X.shape[0]:  # one value on most records: the others stand out
                out[j] = int(X.shape[0] - counts[top])
                if values[top] != 0:  # the intercept's records (this column at 0) lie among those few
                    smallest_reference = min(smallest_reference, out[j])
            else:
                out[j] = int(np.count_nonzero(X[:, j]))
    if intercept is not None:
        out[intercept] = int(smallest_reference)
    return out


def _check_outcomes(y: np.ndarray, family: str, response: Outcomes, which: str) -> None:
    """NotComputed when every response is at the boundary: all 0 or all 1 (binomial), all 0 (poisson).

    The likelihood then grows without bound along the intercept and no
    coefficient has a finite estimate (the fit would stop at an arbitrary
    large intercept and report the slopes' rounding noise as estimates).
    """
    if family == "binomial" and (np.all(y == 1) or np.all(y == 0)):
        raise NotComputed(f"every record of the {which} file has {response.one if y[0] == 1 else response.zero}: "
                          "a binomial model needs records of both outcomes")
    if family == "poisson" and np.all(y == 0):
        raise NotComputed(f"every record of the {which} file has {response.zero}: a poisson model needs "
                          "some positive counts")


def _check_range(y: np.ndarray, X: np.ndarray, w: np.ndarray, family: str, response: str, names: list[str]) -> None:
    """NotComputed when the response or a column is so large that the fit's sums of squares overflow
    (values near 1e300 are finite, their squares are not): checked before fitting, so no overflow happens.

    The columns are weighted as in the fit's first step: the prior weights (normalised to mean 1 for a GLM),
    times R's starting mean y + 0.1 for a poisson model (IRLS weights w·μ).
    """
    if family != "gaussian":
        w = w / w.mean()
    working = w * (y + 0.1) if family == "poisson" else w
    limit = np.log(FINITE_SUM_OF_SQUARES)
    beyond = [(response, y)] if _log_sum_of_squares(y, w) > limit else []
    beyond += [(name, X[:, j]) for j, name in enumerate(names) if _log_sum_of_squares(X[:, j], working) > limit]
    if beyond:
        top = max(float(np.abs(v).max()) for _, v in beyond)
        raise NotComputed(f"the values of {', '.join(name for name, _ in beyond)} are beyond the range where the "
                          f"fit is finite; rescale them, e.g. divide by 1e{int(np.floor(np.log10(top)))}")


def _log_sum_of_squares(v: np.ndarray, w: np.ndarray) -> float:
    """log Σ w·v², computed on v scaled to at most 1 in absolute value so that it cannot overflow."""
    top = float(np.abs(v).max(initial=0.0))
    if top == 0:
        return -np.inf
    return float(np.log(np.sum(w * (v / top) ** 2)) + 2 * np.log(top))


def _separated(y: np.ndarray, X: np.ndarray, family: str, res: FitResult, notes: list[str], which: str) -> set[int]:
    """Indices of coefficients whose maximum-likelihood estimate is infinite ((quasi-)complete separation)."""
    boundary = (y == 0) | (y == 1) if family == "binomial" else (y == 0)
    infinite = set()
    for j in range(X.shape[1]):
        col = X[:, j]
        if not np.isin(col, (0.0, 1.0)).all() or col.all():
            continue
        on = col == 1
        if on.any() and boundary[on].all() and (np.all(y[on] == y[on][0]) if family == "binomial" else True):
            infinite.add(j)
    suspicious = not res.converged or np.abs(res.eta).max(initial=0) > SEPARATION_ETA
    if suspicious:  # the 0/1 columns above may be only part of it (the intercept, a continuous slope)
        lp = _separation_lp(y, X, family)
        if lp is None:
            notes.append(f"the fit in the {which} file shows signs of separation (fitted values at 0 or 1) that "
                         "could not be checked exactly for this many distinct records; treat large coefficients "
                         "with caution")
        else:
            infinite |= lp
    if infinite:
        notes.append(f"(quasi-)complete separation in the {which} file: {len(infinite)} coefficient(s) are infinite")
    return infinite


def _separation_lp(y: np.ndarray, X: np.ndarray, family: str) -> set[int] | None:
    """Konis's linear program: a direction b ≠ 0 along which the likelihood never decreases."""
    from scipy.optimize import linprog

    rows = np.unique(np.column_stack([X, y]), axis=0)
    if rows.shape[0] > LP_MAX_ROWS:
        return None
    Xu, yu = rows[:, :-1], rows[:, -1]
    if family == "binomial":
        sign = np.where(yu == 1, 1.0, np.where(yu == 0, -1.0, 0.0))
        ineq = sign != 0
        A_ub, A_eq = -(sign[ineq, None] * Xu[ineq]), Xu[~ineq]
        objective = -(sign[ineq, None] * Xu[ineq]).sum(axis=0)
    else:
        zero = yu == 0
        A_ub, A_eq = Xu[zero], Xu[~zero]
        objective = Xu[zero].sum(axis=0)
    p = X.shape[1]
    result = linprog(objective, A_ub=A_ub if A_ub.size else None, b_ub=np.zeros(A_ub.shape[0]) if A_ub.size else None,
                     A_eq=A_eq if A_eq.size else None, b_eq=np.zeros(A_eq.shape[0]) if A_eq.size else None,
                     bounds=[(-1, 1)] * p, method="highs")
    if result.status != 0 or result.fun > -1e-8:
        return set()
    return {j for j in range(p) if abs(result.x[j]) > 1e-6}


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None
