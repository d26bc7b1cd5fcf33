"""Regressions of the analyses family against R's lm/glm (tests/data/reference_r) and statsmodels."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from infoloss.analyses.data import FileData
from infoloss.analyses import fitting
from infoloss.analyses.fitting import alias_factor, aliased_columns, glm_fit, linear_fit
from infoloss.analyses.regressions import fit_regressions
from infoloss.analyses.spec import parse_analyses
from infoloss.errors import InputError, NotComputed
from infoloss.pair import encode_pair
from infoloss.spec import spec_from_dict

DATA = Path(__file__).resolve().parent / "data"
REF = json.loads((DATA / "reference_r" / "analyses.json").read_text())["testdata_regressions"]
TD = {"urbrur": {"scale": "nominal"}, "sex": {"scale": "nominal"}, "water": {"scale": "nominal"},
      "relat": {"scale": "ordinal"}, "age": {"scale": "ordinal"}, "income": {"scale": "continuous"},
      "expend": {"scale": "continuous"}}
MINCER = "np.log(income) ~ age + I(age**2) + C(sex) + C(urbrur) + I(expend / 1e7)"
# patsy's coefficient names for R's, in R's order
MINCER_NAMES = ["Intercept", "age", "I(age ** 2)", "C(sex)[T.2]", "C(urbrur)[T.2]", "I(expend / 1e7)"]


@pytest.fixture(scope="module")
def testdata():
    return pd.read_csv(DATA / "testdata" / "original.csv")


def fits(orig, prot, regressions, weight="sampling_weight", variables=TD, level=0.95):
    variables = dict(variables, **({weight: {"role": "weight"}} if weight else {}))
    spec = spec_from_dict({"variables": variables, "analyses": {"regressions": regressions, "ci": {"level": level}}})
    pair = encode_pair(orig, prot, spec)
    analyses = parse_analyses(spec.analyses, spec)
    o = fit_regressions(FileData(pair, "orig"), analyses)
    p = fit_regressions(FileData(pair, "prot"), analyses, o)
    return [f.result for f in o], [f.result for f in p]


def by_name(result):
    return {c["name"]: c for c in result["coefficients"]}


def check_against_r(result, ref, names, rtol=1e-8):
    got = by_name(result)
    for field in ("estimate", "se", "lower", "upper"):
        assert [got[n][field] for n in names] == pytest.approx(ref[field], rel=rtol), field


def test_mincer_equation_matches_lm_on_both_files(testdata):
    prot = pd.read_csv(DATA / "testdata" / "recode_pram_noise50.csv")
    o, p = fits(testdata, prot, [{"name": "mincer", "formula": MINCER, "where": "income > 0"}])
    check_against_r(o[0], REF["mincer_original"], MINCER_NAMES)
    check_against_r(p[0], REF["mincer_recode_pram_noise50"], MINCER_NAMES)
    assert o[0]["r2"] == pytest.approx(REF["mincer_original"]["adj_r2"], rel=1e-8)
    assert p[0]["r2"] == pytest.approx(REF["mincer_recode_pram_noise50"]["adj_r2"], rel=1e-8)
    assert o[0]["r2_plain"] == pytest.approx(REF["mincer_original"]["r2"], rel=1e-8)
    assert p[0]["df_residual"] == REF["mincer_recode_pram_noise50"]["df_residual"]
    assert (p[0]["n_used"], p[0]["n_filtered_out"]) == (4327, 253)  # the noise made 253 incomes negative


def test_weighted_lm_with_categories_and_level(testdata):
    o, _ = fits(testdata, testdata, [{"name": "w", "formula": "np.log(income) ~ age + C(water) + I(expend / 1e7)"}],
                weight="household_weights", level=0.9)
    names = ["Intercept", "age"] + [f"C(water)[T.{k}]" for k in (2, 3, 4, 5, 6, 7, 9)] + ["I(expend / 1e7)"]
    check_against_r(o[0], REF["lm_household_weights"], names)
    assert o[0]["r2"] == pytest.approx(REF["lm_household_weights"]["adj_r2"], rel=1e-8)


@pytest.mark.parametrize("weight, key", [("household_weights", "logit_sex"), (None, "logit_sex_unweighted")])
def test_logit_matches_glm(testdata, weight, key):
    o, _ = fits(testdata, testdata, [{"name": "l", "family": "binomial",
                                     "formula": "I(sex == 2) ~ age + np.log(income) + urbrur"}], weight=weight)
    names = ["Intercept", "age", "np.log(income)", "urbrur[T.2]"]
    check_against_r(o[0], REF[key], names)
    assert o[0]["deviance"] == pytest.approx(REF[key]["deviance"], rel=1e-10)
    assert o[0]["null_deviance"] == pytest.approx(REF[key]["null_deviance"], rel=1e-10)
    if "cox_snell" in REF[key]:
        assert o[0]["r2"] == pytest.approx(REF[key]["cox_snell"], rel=1e-8)


def test_poisson_matches_glm(testdata):
    o, _ = fits(testdata, testdata, [{"name": "p", "family": "poisson", "formula": "relat ~ age + sex"}],
                weight="household_weights")
    check_against_r(o[0], REF["poisson_relat"], ["Intercept", "age", "sex[T.2]"])
    assert o[0]["deviance"] == pytest.approx(REF["poisson_relat"]["deviance"], rel=1e-10)


# ---------------------------------------------------------------------------
# the fitting module against statsmodels
# ---------------------------------------------------------------------------
def _design(n=800, seed=1):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.normal(size=n), rng.uniform(20, 80, n), rng.integers(0, 2, n)])
    X = np.column_stack([X, X[:, 2] ** 2])  # a nearly collinear square term, as in a Mincer equation
    w = rng.uniform(0.5, 4.0, n)
    return rng, X, w


def test_linear_fit_equals_statsmodels_wls():
    rng, X, w = _design()
    y = X @ [1.0, 0.5, 0.02, -0.3, -1e-4] + rng.normal(size=X.shape[0])
    mine = linear_fit(y, X, w, level=0.9)
    ref = sm.WLS(y, X, weights=w).fit()
    np.testing.assert_allclose(mine.params, ref.params, rtol=1e-9)
    np.testing.assert_allclose(mine.bse, ref.bse, rtol=1e-9)
    np.testing.assert_allclose(np.column_stack([mine.lower, mine.upper]), ref.conf_int(0.1), rtol=1e-9)
    np.testing.assert_allclose(mine.pvalues, ref.pvalues, rtol=1e-7)
    assert mine.r2_adj == pytest.approx(ref.rsquared_adj, rel=1e-9)
    assert mine.r2 == pytest.approx(ref.rsquared, rel=1e-9)


@pytest.mark.parametrize("family", ["binomial", "poisson"])
def test_glm_fit_equals_statsmodels_glm(family):
    rng, X, w = _design(seed=2)
    eta = X @ [-1.0, 0.4, 0.01, 0.5, -5e-5]
    y = (rng.random(X.shape[0]) < 1 / (1 + np.exp(-eta))).astype(float) if family == "binomial" else \
        rng.poisson(np.exp(eta)).astype(float)
    wn = w / w.mean()
    mine = glm_fit(y, X, wn, family, level=0.95)
    fam = sm.families.Binomial() if family == "binomial" else sm.families.Poisson()
    ref = sm.GLM(y, X, family=fam, var_weights=wn).fit(tol=1e-12)
    # R (and so infoloss) stops IRLS at a relative deviance change of 1e-8 and takes the covariance from the
    # last iteration's weights; statsmodels (tol 1e-12 here) goes on and evaluates it at its estimate: the
    # coefficients differ by far less than a standard error, the standard errors by up to ~1e-4 (relative)
    np.testing.assert_allclose(mine.params, ref.params, rtol=1e-6, atol=1e-6 * ref.bse.min())
    np.testing.assert_allclose(mine.bse, ref.bse, rtol=1e-4)
    for got, want, se in zip(np.column_stack([mine.lower, mine.upper]), ref.conf_int(0.05), ref.bse):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * se)
    assert mine.deviance == pytest.approx(ref.deviance, rel=1e-9)
    assert mine.null_deviance == pytest.approx(ref.null_deviance, rel=1e-9)
    assert mine.converged


def test_aliased_columns_follow_r_order():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 200)
    X = np.column_stack([np.ones(200), a == 1, a == 2, np.zeros(200), a == 0, rng.normal(size=200)]).astype(float)
    # the zero column and the third dummy (intercept − the others) are aliased, as lm gives NA for them
    assert aliased_columns(X, np.ones(200)).tolist() == [False, False, False, True, True, False]


def _r_rule(X, w, tol=1e-7):
    """R's rule column by column, with Gram-Schmidt twice against an orthonormal basis of the kept columns
    (accurate to rounding): the reference for the blocked Householder reflections."""
    A = X * np.sqrt(w)[:, None]
    Q = np.zeros((A.shape[0], 0))
    aliased = []
    for a in A.T:
        norm = np.linalg.norm(a)
        v = a / norm if norm > 0 else a
        for _ in range(2):
            v = v - Q @ (Q.T @ v)
        aliased.append(norm == 0 or np.linalg.norm(v) < tol or Q.shape[1] == A.shape[0])
        if not aliased[-1]:
            Q = np.column_stack([Q, v / np.linalg.norm(v)])
    return aliased


def _collinear_design(rng, n, p):
    """An intercept and columns of every kind: independent, a full set of dummies (the last is aliased with
    the intercept), scaled copies and exact combinations of earlier columns, zero columns, and columns
    within 1e-3 of an earlier one (collinear, but well above the tolerance: kept)."""
    cols = [np.ones(n)]
    while len(cols) < p:
        kind = rng.integers(7)
        if kind == 0:
            cols.append(rng.normal(size=n))
        elif kind == 1:
            a = rng.integers(0, 4, n)
            cols += [(a == k).astype(float) for k in range(4)]
        elif kind == 2:
            cols.append(cols[rng.integers(len(cols))] * rng.choice([-3.0, 0.5, 2.0]))
        elif kind == 3:
            i, j = rng.integers(len(cols), size=2)
            cols.append(2 * cols[i] - cols[j])
        elif kind == 4:
            cols.append(cols[rng.integers(len(cols))] + 1e-3 * rng.normal(size=n))
        elif kind == 5:
            cols.append(np.zeros(n))
        else:
            cols.append(rng.integers(0, 3, n) * cols[rng.integers(len(cols))])
    return np.column_stack(cols[:p])


@pytest.mark.parametrize("block", [fitting.ALIAS_BLOCK, 5])
def test_aliased_columns_are_those_that_add_nothing_to_the_rank(block, monkeypatch):
    # issue: a factorisation per column was O(p⁴) (2,000 levels of a factor: 114 s); small blocks cross
    # many block boundaries; p > n included (at most n columns are kept)
    monkeypatch.setattr(fitting, "ALIAS_BLOCK", block)
    for seed in range(150):
        rng = np.random.default_rng(seed)
        p = int(rng.integers(2, 80))
        n = int(rng.integers(10, 300))
        X = _collinear_design(rng, n, p)
        w = rng.uniform(0.2, 5.0, n) if seed % 2 else np.ones(n)
        aliased, factor = alias_factor(X, w)
        A = X * np.sqrt(w)[:, None]
        ranks = [0] + [np.linalg.matrix_rank(A[:, :j + 1]) for j in range(p)]
        assert aliased.tolist() == [ranks[j + 1] == ranks[j] for j in range(p)], seed
        assert aliased.tolist() == _r_rule(X, w), seed
        # the factor is the kept columns' equilibrated cross-products' Cholesky factor
        keep = A[:, ~aliased] * factor.scale
        np.testing.assert_allclose(np.tril(factor.lower) @ np.tril(factor.lower).T, keep.T @ keep, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_aliases_among_many_columns_are_aliased_as_by_r(weighted):
    # issue: from the cross-products alone, whose rounding exceeds tol² = 1e-14 with hundreds of columns, this
    # design of rank 248 kept 249-257 columns (depending on the BLAS's threads), with standard errors of 1e6
    import patsy

    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"a": rng.choice(list("abcd"), n), "b": rng.choice(list("xy"), n),
                       "c": rng.choice(list("pqrs"), n), "d": rng.integers(1, 6, n), "e": rng.integers(1, 6, n)})
    X = np.asarray(patsy.dmatrix("C(a)*C(b)*C(c)*C(d)*C(e)", df))
    w = rng.uniform(1, 20, n).round(2) if weighted else np.ones(n)
    aliased = aliased_columns(X, w)
    assert (~aliased).sum() == np.linalg.matrix_rank(X * np.sqrt(w)[:, None]) == 248
    assert aliased.tolist() == _r_rule(X, w)


def test_a_weighted_fit_with_more_columns_than_records_notes_the_aliased_terms():
    # issue: numpy's LinAlgError (exit 1) when a column only just kept made the kept block's next factorisation fail
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({"a": rng.choice(list("abcd"), n), "b": rng.choice(list("xy"), n),
                       "c": rng.choice(list("pqrs"), n), "d": rng.integers(1, 6, n), "e": rng.integers(1, 6, n),
                       "f": rng.integers(1, 6, n), "y": rng.normal(size=n), "w": rng.uniform(1, 20, n).round(2)})
    variables = {**{v: {"scale": "nominal"} for v in "acdef"}, "y": {"scale": "continuous"}}
    o, p = fits(df, df, [{"name": "m", "formula": "y ~ C(a)*C(c)*C(d)*C(e)*C(f)"}], weight="w", variables=variables)
    coefficients = o[0]["coefficients"]
    assert len(coefficients) == 2000 and o[0]["fitted"] and p[0]["fitted"]
    estimated = [c for c in coefficients if c["estimate"] is not None]
    assert 0 < len(estimated) < n
    notes = {c["note"] for c in coefficients if c["estimate"] is None}
    assert notes == {"not estimable: no record of the original file has this category",
                     "not estimable: collinear with earlier terms in the original file"}


def test_a_fit_whose_cross_products_cannot_be_factorised_is_not_computed():
    # a GLM's first step, or a linear fit without the alias check's factor: NotComputed, never LinAlgError
    rng = np.random.default_rng(1)
    x = rng.normal(size=50)
    y = (rng.random(50) < 0.5).astype(float)
    for X, why in [(np.column_stack([x, -x]), "too close to collinear"),
                   (np.column_stack([x, np.zeros(50)]), "is 0 in every record")]:
        with pytest.raises(NotComputed, match=why):
            glm_fit(y, X, np.ones(50), "binomial", level=0.95)
        with pytest.raises(NotComputed, match=why):
            linear_fit(y, X, np.ones(50), level=0.95)


# ---------------------------------------------------------------------------
# coefficients that cannot be estimated: notes, never numbers
# ---------------------------------------------------------------------------
def _frame(n=400, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "x": rng.normal(size=n)})
    df["y"] = 1.0 + 0.5 * df.x + (df.g == "b") * 0.3 + rng.normal(size=n)
    df["bin"] = (rng.random(n) < 1 / (1 + np.exp(-df.x))).astype(int)
    return df


VARS = {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}, "y": {"scale": "continuous"},
        "bin": {"scale": "ordinal"}}


def test_a_category_absent_from_the_protected_file():
    df = _frame()
    prot = df.copy()
    prot.loc[prot.g == "c", "g"] = "b"
    o, p = fits(df, prot, [{"name": "m", "formula": "y ~ x + g"}], weight=None, variables=VARS)
    coef = by_name(p[0])["g[T.c]"]
    assert coef["estimate"] is None and "no record of the protected file has this category" in coef["note"]
    assert by_name(o[0])["g[T.c]"]["estimate"] is not None
    assert by_name(p[0])["x"]["estimate"] is not None


def test_a_recoded_variable_is_coded_on_its_own_and_flagged():
    df = _frame()
    prot = df.copy()
    prot["g"] = np.where(prot.g == "a", "a", "b or c")
    o, p = fits(df, prot, [{"name": "m", "formula": "y ~ x + g"}], weight=None, variables=VARS)
    assert "recoded" in " ".join(p[0]["notes"])
    assert by_name(p[0])["g[T.b or c]"]["recoded"] is True
    assert "recoded" not in by_name(p[0])["x"]


def test_quasi_complete_separation_by_a_category():
    df = _frame()
    df.loc[df.g == "c", "bin"] = 1  # every record of category c has the outcome
    o, _ = fits(df, df, [{"name": "l", "family": "binomial", "formula": "bin ~ x + g"}], weight=None, variables=VARS)
    coef = by_name(o[0])["g[T.c]"]
    assert coef["estimate"] is None and "separation" in coef["note"]
    assert by_name(o[0])["x"]["estimate"] is not None


def test_complete_separation_by_a_continuous_variable():
    df = _frame()
    df["bin"] = (df.x > 0.2).astype(int)
    o, _ = fits(df, df, [{"name": "l", "family": "binomial", "formula": "bin ~ x"}], weight=None, variables=VARS)
    coefs = by_name(o[0])
    assert coefs["x"]["estimate"] is None and "separation" in coefs["x"]["note"]
    assert any("separation" in n for n in o[0]["notes"])


def test_separation_by_a_category_and_a_continuous_variable_together():
    # the category's column was found infinite first, and the linear program that finds x's was then skipped:
    # x's slope was reported as a finite (huge) estimate
    df = _frame()
    df["bin"] = (df.x > 0.2).astype(int)
    df.loc[df.g == "c", "bin"] = 1
    o, _ = fits(df, df, [{"name": "l", "family": "binomial", "formula": "bin ~ x + g"}], weight=None, variables=VARS)
    coefs = by_name(o[0])
    assert coefs["g[T.c]"]["estimate"] is None and coefs["x"]["estimate"] is None
    assert "separation" in coefs["x"]["note"]


@pytest.mark.parametrize("family,value", [("binomial", 1), ("binomial", 0), ("poisson", 0)])
def test_a_response_with_one_outcome_is_not_fitted(family, value):
    # every protected y = 1: the intercept grows without bound, and the slopes were reported as rounding noise
    df = _frame()
    prot = df.assign(bin=value)
    o, p = fits(df, prot, [{"name": "l", "family": family, "formula": "bin ~ x + g"}], weight=None, variables=VARS)
    assert o[0]["fitted"] and not p[0]["fitted"]
    assert f"every record of the protected file has bin = {value}" in p[0]["note"]


def test_listwise_deletion_and_where_follow_r():
    df = _frame()
    df.loc[:9, "x"] = np.nan
    df.loc[10:14, "g"] = None
    o, _ = fits(df, df, [{"name": "m", "formula": "y ~ x + g", "where": "g != 'a'"}], weight=None, variables=VARS)
    kept = df[(df.g != "a") & df.g.notna() & df.x.notna()]
    ref = sm.OLS.from_formula("y ~ x + g", kept).fit()
    assert o[0]["n_used"] == len(kept)
    assert by_name(o[0])["x"]["estimate"] == pytest.approx(ref.params["x"], rel=1e-10)
    assert o[0]["n_missing"] == int(((df.g != "a") & (df.x.isna() | df.g.isna())).sum())


def test_where_combines_comparisons_with_and_and_or_as_r_and_pandas_query_do(testdata):
    # Python alone reads "income > 0 & age >= 15" as income > (0 & age) >= 15; R and pandas' query do not
    for where in ("income > 0 & age >= 15", "(income > 0) & (age >= 15)", "income > 0 and age >= 15",
                  "age < 15 | income <= 0", "~(age < 15) & (income > 0) | expend < 0"):
        o, _ = fits(testdata, testdata, [{"name": "m", "formula": "income ~ expend", "where": where}], weight=None)
        kept = testdata.query(where.replace(" and ", " & ")).dropna(subset=["income", "expend", "age"])
        assert o[0]["n_used"] == len(kept), where
        ref = sm.OLS.from_formula("income ~ expend", kept).fit()
        assert by_name(o[0])["expend"]["estimate"] == pytest.approx(ref.params["expend"], rel=1e-10), where


def test_where_on_an_ordinal_variable_with_missing_values_leaves_those_records_out(testdata):
    # an order comparison with a missing category was an error (None >= 15), and the model was not fitted
    prot = testdata.copy()
    prot.loc[:99, "age"] = np.nan
    _, p = fits(testdata, prot, [{"name": "m", "formula": "income ~ expend", "where": "age >= 15"}], weight=None)
    kept = prot[prot.age >= 15].dropna(subset=["income", "expend"])  # NaN >= 15 is false: R's subset drops NA
    assert p[0]["fitted"] and p[0]["n_used"] == len(kept)
    ref = sm.OLS.from_formula("income ~ expend", kept).fit()
    assert by_name(p[0])["expend"]["estimate"] == pytest.approx(ref.params["expend"], rel=1e-10)


def test_missing_values_do_not_become_false_in_conditions():
    df = _frame()
    df.loc[:49, "g"] = None
    o, _ = fits(df, df, [{"name": "l", "family": "binomial", "formula": "I(g == 'b') ~ x"}], weight=None,
                variables=VARS)
    assert o[0]["n_used"] == len(df) - 50  # R drops NA == 'b'; numpy would have made it False


def test_response_errors_are_one_sentence():
    df = _frame()
    with pytest.raises(InputError, match="response .* is categorical"):
        fits(df, df, [{"name": "m", "formula": "g ~ x"}], weight=None, variables=VARS)
    with pytest.raises(InputError, match="outside 0..1"):
        fits(df, df, [{"name": "m", "formula": "y ~ x", "family": "binomial"}], weight=None, variables=VARS)
    with pytest.raises(InputError, match="cannot be"):
        fits(df, df, [{"name": "m", "formula": "np.log(g) ~ x"}], weight=None, variables=VARS)


def test_a_protected_file_that_cannot_be_fitted_gets_a_note():
    df = _frame()
    df["cnt"] = np.arange(len(df)) % 5
    prot = df.copy()
    prot["cnt"] = prot["cnt"] - 3  # negative counts after protection
    variables = dict(VARS, cnt={"scale": "ordinal"})
    o, p = fits(df, prot, [{"name": "c", "family": "poisson", "formula": "cnt ~ x"}], weight=None,
                variables=variables)
    assert o[0]["fitted"] and not p[0]["fitted"] and "negative" in p[0]["note"]


@pytest.mark.parametrize("family, formula", [("gaussian", "y ~ x + g"), ("binomial", "bin ~ x"),
                                             ("poisson", "cnt ~ x")])
def test_values_beyond_the_finite_range_are_a_note(family, formula):
    # values near 1e307 are in range, their squares are not: ValueError and overflow warnings, found by fuzzing
    import infoloss

    df = _frame(60)
    df["cnt"] = np.arange(len(df)) % 5
    huge = df.assign(x=df.x * 1e307 / df.x.abs().max(), y=df.y * 1e307 / df.y.abs().max())
    spec = {"variables": dict(VARS, cnt={"scale": "ordinal"}),
            "analyses": {"regressions": [{"name": "m", "family": family, "formula": formula}]}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scenario = infoloss.compare(huge, huge.copy(), spec, measures=["regression_ci_overlap", "r2_loss"],
                                    statistics=False, aggregates=False).scenarios[0]
        _, p = fits(df, huge, spec["analyses"]["regressions"], weight=None, variables=spec["variables"])
    beyond = "x" if family != "gaussian" else "y, x"
    note = (f"not fitted on the original file: the values of {beyond} are beyond the range where the fit is "
            "finite; rescale them, e.g. divide by 1e307")
    assert scenario.analyses["regressions"][0]["notes"][0] == note
    assert note in scenario.not_computed["regression_ci_overlap"]
    assert not p[0]["fitted"] and "beyond the range" in p[0]["note"]


def test_large_values_within_the_range_are_fitted():
    df = _frame(60)
    big = df.assign(x=df.x * 1e140, y=df.y * 1e140)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o, p = fits(df, big, [{"name": "m", "formula": "y ~ x"}], weight=None, variables=VARS)
    assert by_name(p[0])["x"]["estimate"] == pytest.approx(by_name(o[0])["x"]["estimate"], rel=1e-8)


# ---------------------------------------------------------------------------
# hostile input (audit, round 2): one sentence or a note, never a traceback
# ---------------------------------------------------------------------------
def test_a_formula_of_hundreds_of_terms_is_fitted():
    # issue: 500 terms raised RecursionError in patsy's formula evaluator
    rng = np.random.default_rng(0)
    names = [f"x{i}" for i in range(600)]
    df = pd.DataFrame(rng.normal(size=(800, 601)), columns=names + ["y"])
    o, _ = fits(df, df, [{"name": "m", "formula": "y ~ " + " + ".join(names)}], weight=None,
                variables={n: {"scale": "continuous"} for n in df.columns})
    assert o[0]["fitted"] and len(o[0]["coefficients"]) == 601


def test_a_where_of_thousands_of_conditions_is_evaluated():
    # issue: (age > 1) & (age > 1) & ... 20,000 times (5,000 here): "cannot be evaluated (maximum recursion depth exceeded)"
    df = _frame()
    where = " & ".join(["(x > -10)"] * 5000) + " & (y > 0)"
    o, _ = fits(df, df, [{"name": "m", "formula": "y ~ x", "where": where}], weight=None, variables=VARS)
    assert o[0]["n_filtered_out"] == int((df.y <= 0).sum()) > 0


@pytest.mark.parametrize("where, gives", [("x - 1", "numbers"), ("y", "numbers"), ("g", "values")])
def test_a_where_that_is_not_a_condition_is_refused(where, gives):
    # issue: 'age - 16' silently kept the records whose age is not 16 (the truth value of a number)
    df = _frame()
    with pytest.raises(InputError, match=rf"^the 'where' of regression 'm', '{where}', gives {gives} instead of true "
                                         r"or false for each record; write a condition"):
        fits(df, df, [{"name": "m", "formula": "y ~ x", "where": where}], weight=None, variables=VARS)


def test_a_constant_beyond_the_floats_is_an_input_error():
    # issue: OverflowError (exit 1) from I(10**300 * 10**300), which the spec's size guard lets through (600 digits)
    df = _frame()
    with pytest.raises(InputError, match=r"^regression 'm' cannot be evaluated on the original file: its formula "
                                         r"'y ~ x \+ I\(10\*\*300 \* 10\*\*300\)' gives a number too large for a "
                                         r"floating-point value"):
        fits(df, df, [{"name": "m", "formula": "y ~ x + I(10**300 * 10**300)"}], weight=None, variables=VARS)


@pytest.mark.parametrize("term, says", [
    ("I(10.0 ** 400)", "gives a number too large for a floating-point value (above 1.8e308); write smaller constants."),
    ("I(x + 10**400)", "gives a number too large for a floating-point value (above 1.8e308); write smaller constants."),
    ("I(1 // 0)", "divides a constant by zero (with /, // or %); write another divisor or remove that term."),
    ("I(x + 1 % 0)", "divides a constant by zero (with /, // or %); write another divisor or remove that term."),
])
def test_a_constant_that_overflows_or_divides_by_zero_is_named_with_its_formula(term, says):
    # issue: "cannot be built on the original file (Error evaluating factor: OverflowError: (34, 'Numerical result
    # out of range'))", "... int too large to convert to float", and a bare ZeroDivisionError (found by an audit)
    df = _frame()
    with pytest.raises(InputError) as info:
        fits(df, df, [{"name": "m", "formula": f"y ~ x + {term}"}], weight=None, variables=VARS)
    assert str(info.value) == (f"regression 'm' cannot be evaluated on the original file: its formula "
                               f"'y ~ x + {term}' {says}")


def test_a_condition_as_binomial_response_reads_true_and_false():
    # issue: "every record ... has I(x > -10)[False] = 1" when every record has it true, and
    # "success = not 'I(x > 0)[False]'"
    df = _frame()
    o, _ = fits(df, df, [{"name": "m", "family": "binomial", "formula": "I(x > -10) ~ y"},
                         {"name": "n", "family": "binomial", "formula": "I(x > 0) ~ y"},
                         {"name": "c", "family": "binomial", "formula": "g ~ y"}], weight=None, variables=VARS)
    assert o[0]["note"] == ("not fitted on the original file: every record of the original file has I(x > -10) true: "
                            "a binomial model needs records of both outcomes")
    assert o[1]["notes"] == ["success = I(x > 0) true"]
    assert o[2]["notes"] == ["categorical response: success = g other than 'a' (R's rule for factor responses)"]


def test_a_model_matrix_beyond_the_limits_is_not_fitted(monkeypatch):
    # issue: y ~ C(code) with 100,000 categories on 200,000 records: patsy's dense contrast matrix and model
    # matrix (56 GB and 160 GB); the limits are lowered here to keep the test small
    from infoloss.analyses import regressions

    rng = np.random.default_rng(2)
    df = pd.DataFrame({"code": rng.integers(0, 120, 1000).astype(str), "x": rng.normal(size=1000),
                       "y": rng.normal(size=1000)})
    variables = {"code": {"scale": "nominal"}, "x": {"scale": "continuous"}, "y": {"scale": "continuous"}}
    monkeypatch.setattr(regressions, "MAX_COLUMNS", 100)
    o, p = fits(df, df, [{"name": "m", "formula": "y ~ C(code) + x"},
                         {"name": "n", "formula": "y ~ C(x // 0.02) + x"},
                         {"name": "r", "family": "binomial", "formula": "code ~ x"}], weight=None, variables=variables)
    assert o[0]["note"] == p[0]["note"].replace("protected", "original") == (
        "not fitted on the original file: its model matrix would have at least 119 columns, more than the limit of "
        "100; group the categories of C(code) (120 categories) into fewer (a recode), or use fewer terms")
    k = int(pd.Series(df["x"] // 0.02).nunique())  # a factor computed in the formula: counted before it is coded
    assert o[1]["note"] == (f"not fitted on the original file: its model matrix would have at least {k - 1} columns, "
                            f"more than the limit of 100; group the categories of C(x // 0.02) ({k} categories) into "
                            "fewer (a recode), or use fewer terms")
    assert "at least 119 columns" in o[2]["note"] and "group the categories of code (120 categories)" in o[2]["note"]
    monkeypatch.setattr(regressions, "MAX_COLUMNS", 2000)
    monkeypatch.setattr(regressions, "MAX_CELLS", 5000)
    o, _ = fits(df, df, [{"name": "m", "formula": "y ~ x + I(x**2) + I(x**3) + I(x**4) + I(x**5)"}], weight=None,
                variables=variables)
    assert o[0]["note"] == ("not fitted on the original file: its model matrix would have 6 columns for 1,000 records "
                            "(6,000 cells, 46.9 KiB), more than the limit of 5,000 cells; use fewer terms")


def test_a_factor_computed_in_the_formula_is_counted_before_patsy_codes_it(monkeypatch):
    # C(income // 10) of 200,000 incomes has about 180,000 categories: patsy's contrast matrix alone would be
    # 260 GB, so the categories are counted first and the regression gets the size note; patsy is never asked
    import patsy.contrasts

    import infoloss
    from infoloss.analyses.regressions import MAX_COLUMNS

    def no_huge_contrasts(self, levels):
        assert len(levels) <= MAX_COLUMNS, f"patsy was asked to code {len(levels):,} categories"
        return original(self, levels)

    original = patsy.contrasts.Treatment.code_without_intercept
    monkeypatch.setattr(patsy.contrasts.Treatment, "code_without_intercept", no_huge_contrasts)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"y": rng.normal(size=6000), "income": rng.integers(0, 10**6, 6000).astype(float)})
    spec = {"variables": {"y": {"scale": "continuous"}, "income": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "r", "formula": "y ~ C(income // 10)"},
                                         {"name": "s", "formula": "y ~ C(income // 200000)"}]}}
    r, s = infoloss.compare(df, df.copy(), spec, measures=["regression_ci_overlap"]).to_dict()[
        "scenarios"][0]["analyses"]["regressions"]
    assert r["coefficients"] == [] and "C(income // 10)" in r["notes"][0] and "categories" in r["notes"][0]
    assert [c["name"] for c in s["coefficients"]][:2] == ["Intercept", "C(income // 200000)[T.1.0]"]


def test_a_linear_regression_of_a_response_with_one_value_is_not_fitted():
    # np.log(0) drops half the records and the rest have one response value: the slope was rounding noise (2.6e-20,
    # se 0, p 0) whose sign regression_sign_agreement compared, and R² was null without a note (analyses audit)
    import infoloss

    rng = np.random.default_rng(15)
    df = pd.DataFrame({"zero": np.where(np.arange(120) < 60, 0.0, 5.0), "age": rng.integers(18, 80, 120).astype(float)})
    prot = df.assign(age=rng.permutation(df["age"].to_numpy()))
    spec = {"variables": {"zero": {"scale": "continuous"}, "age": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "r", "formula": "np.log(zero) ~ age"},
                                         {"name": "p", "formula": "zero ~ age", "family": "poisson"}]}}
    scenario = infoloss.compare(df, prot, spec, measures=["regression_sign_agreement", "r2_loss"]).to_dict()[
        "scenarios"][0]
    r, p = scenario["analyses"]["regressions"]
    assert r["original"]["fitted"] is False and r["coefficients"] == []
    assert r["notes"][0] == ("not fitted on the original file: the response of regression 'r' has one value in all "
                             "60 records it uses, so there is nothing to explain")
    assert p["original"]["fitted"] is True  # a varying response; a poisson fit of a constant one is well defined
    assert "regression_sign_agreement" in scenario["measures"]


def test_records_of_weight_0_are_counted_apart_from_the_records_used():
    # n_used counted them, though the fit leaves them out (R's nobs() does not count them; found last session)
    import infoloss

    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(list("abc"), n), "w": rng.uniform(1, 5, n)})
    df["y"] = 1 + 2 * df["x"] + rng.normal(size=n)
    df.loc[:29, "w"] = 0.0
    prot = df.copy()
    prot.loc[:2, "w"], prot.loc[3:29, "w"] = 0.0, 1.0  # 3 records of weight 0: too few to show in safe mode
    variables = {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"},
                 "w": {"role": "weight"}}
    spec = {"variables": variables, "analyses": {"regressions": [{"name": "m", "formula": "y ~ x + C(g)"}]}}
    report = infoloss.compare(df, [prot], spec, measures="regression_ci_overlap")
    reg = report.to_dict()["scenarios"][0]["analyses"]["regressions"][0]
    o, p = reg["original"], reg["protected"]
    kept = df["w"] > 0
    X = sm.add_constant(pd.get_dummies(df.loc[kept, ["x", "g"]], drop_first=True, dtype=float))
    assert (o["n_zero_weight"], o["n_used"]) == (30, 370) and (p["n_zero_weight"], p["n_used"]) == (3, 397)
    assert o["df_residual"] == sm.WLS(df.loc[kept, "y"], X, weights=df.loc[kept, "w"]).fit().df_resid == 366
    for fit in (o, p):
        assert sum(fit[k] for k in ("n_filtered_out", "n_missing", "n_not_finite", "n_zero_weight", "n_used")) == n
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["regressions"][0]["protected"]
    assert safe["n_zero_weight"] is None and safe["n_used"] is None  # 3 would be the file's records less the others
    html = report.to_html()
    assert "left out (where / missing / not finite / weight 0)" in html
    unweighted = infoloss.compare(df, [prot], {**spec, "variables": {**variables, "w": {"scale": "continuous"}}},
                                  measures="regression_ci_overlap")
    fit = unweighted.to_dict()["scenarios"][0]["analyses"]["regressions"][0]["original"]
    assert "n_zero_weight" not in fit and fit["n_used"] == n
    assert "left out (where / missing / not finite)</th>" in unweighted.to_html()
