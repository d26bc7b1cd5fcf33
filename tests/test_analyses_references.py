"""A regression's reference category when a file has no record of it: both files move to the first category with
a record in both (checked against statsmodels with that reference), or the coefficients that depend on it are
withheld with a note.  Also the notes of a constant column and of a file whose records are all not finite."""

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

import infoloss
from infoloss.analyses.data import FileData
from infoloss.analyses.regressions import fit_protected, fit_regressions
from infoloss.analyses.spec import parse_analyses
from infoloss.pair import encode_pair
from infoloss.report.analyses import _same_coefficient
from infoloss.spec import spec_from_dict

VARS = {"y": {"scale": "continuous"}, "x": {"scale": "continuous"}, "age": {"scale": "continuous"},
        "g": {"scale": "nominal"}, "educ": {"scale": "ordinal"}, "w": {"role": "weight"}}


def _frame(n=600, seed=4):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    x = rng.normal(size=n)
    y = 10 + np.select([g == "a", g == "b", g == "c"], [0.0, 5.0, 2.0]) + (1 + (g == "c")) * x + rng.normal(size=n)
    return pd.DataFrame({"y": y, "x": x, "g": g, "age": rng.integers(18, 80, n).astype(float),
                         "educ": rng.integers(1, 5, n), "w": rng.uniform(0.5, 3, n)})


def regression(orig, prot, formula, where=None, weighted=False):
    reg = {"name": "r", "formula": formula, "weighted": weighted, **({"where": where} if where else {})}
    spec = {"variables": VARS, "analyses": {"regressions": [reg]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = infoloss.compare(orig, prot, spec, measures=["regression_ci_overlap"])
    return result.to_dict()["scenarios"][0]["analyses"]["regressions"][0]


def coefficients(reg):
    return {c["name"]: c for c in reg["coefficients"]}


def check(side, coefs, fit, names):
    """``coefs``' side equals statsmodels' ``fit``; ``names`` maps infoloss's names to statsmodels'."""
    for ours, theirs in names.items():
        got = coefs[ours][side]
        assert got["estimate"] == pytest.approx(fit.params[theirs], rel=1e-9, abs=1e-12), ours
        assert got["se"] == pytest.approx(fit.bse[theirs], rel=1e-9), ours


def treatment_b(formula):
    return formula.replace("C(g)", "C(g, Treatment('b'))")


def sm_names(formula_terms):
    return {name: name.replace("C(g)", "C(g, Treatment('b'))") for name in formula_terms}


def test_a_protected_file_without_the_reference_category_moves_both_files_to_a_common_one():
    # the protected file suppressed every 'a': its Intercept was the mean of c and C(g)[T.b] was b - c, compared
    # with the original's mean of a and b - a (J = -6.1 and -3.9)
    orig = _frame()
    prot = orig.copy()
    prot.loc[prot.g == "a", "g"] = np.nan
    reg = regression(orig, prot, "y ~ C(g)")
    coefs = coefficients(reg)
    assert list(coefs) == ["Intercept", "C(g)[T.a]", "C(g)[T.c]"]
    names = sm_names(["Intercept", "C(g)[T.c]"])
    check("original", coefs, smf.ols(treatment_b("y ~ C(g)"), orig).fit(), dict(names, **sm_names(["C(g)[T.a]"])))
    check("protected", coefs, smf.ols(treatment_b("y ~ C(g)"), prot.dropna()).fit(), names)
    assert coefs["C(g)[T.a]"]["protected"]["estimate"] is None
    assert "no record of the protected file has this category" in coefs["C(g)[T.a]"]["note"]
    assert coefs["Intercept"]["ci_overlap"] > 0.9 and coefs["C(g)[T.c]"]["ci_overlap"] > 0.9
    for side in ("original", "protected"):
        assert reg[side]["references"]["C(g)"]["category"] == "b"
    assert reg["protected"]["references"]["C(g)"]["n_records"] == int((prot.g == "b").sum())
    assert any("reference category of g" in n and "protected file has none" in n for n in reg["notes"])


def test_a_where_that_removes_the_reference_from_the_original_moves_it_in_both_files():
    orig = _frame()
    orig.loc[orig.g == "a", "age"] = 20.0  # every 'a' is younger than 30 in the original ...
    prot = orig.copy()
    prot.loc[prot.index[::7], "age"] = 40.0  # ... but not in the protected file
    formula = "y ~ x + C(g) + C(g):x"
    reg = regression(orig, prot, formula, where="age >= 30", weighted=True)
    coefs = coefficients(reg)
    names = sm_names(["Intercept", "x", "C(g)[T.c]", "C(g)[T.c]:x"])
    so, sp = orig[orig.age >= 30], prot[prot.age >= 30]
    assert (so.g == "a").sum() == 0 and (sp.g == "a").sum() > 0
    check("original", coefs, smf.wls(treatment_b(formula), so, weights=so.w).fit(), names)
    check("protected", coefs, smf.wls(treatment_b(formula), sp, weights=sp.w).fit(),
          dict(names, **sm_names(["C(g)[T.a]", "C(g)[T.a]:x"])))
    assert coefs["C(g)[T.a]"]["original"]["estimate"] is None
    assert reg["original"]["references"]["C(g)"]["category"] == "b"
    assert all(coefs[n]["ci_overlap"] is not None for n in names)


def test_a_reference_present_in_both_files_is_the_first_category_as_before():
    orig = _frame()
    prot = orig.copy()
    prot.loc[prot.g == "c", "g"] = np.nan
    reg = regression(orig, prot, "y ~ x + C(g)")
    coefs = coefficients(reg)
    assert list(coefs) == ["Intercept", "C(g)[T.b]", "C(g)[T.c]", "x"]
    check("protected", coefs, smf.ols("y ~ x + C(g)", prot.dropna()).fit(), {n: n for n in ["Intercept", "x",
                                                                                           "C(g)[T.b]"]})
    assert reg["original"]["references"]["C(g)"]["category"] == "a" and reg["notes"] == []


def test_no_category_in_both_files_withholds_what_depends_on_the_reference():
    orig = _frame()
    orig["age"] = np.where(orig.g == "c", 60.0, 20.0)  # the original's fit has a and b ...
    prot = orig.copy()
    prot["age"] = np.where(orig.g == "c", 20.0, 60.0)  # ... the protected file's only c
    reg = regression(orig, prot, "y ~ x + C(g)", where="age < 50")
    coefs = coefficients(reg)
    for name in ("Intercept", "C(g)[T.b]", "C(g)[T.c]"):
        assert coefs[name]["protected"]["estimate"] is None and coefs[name]["ci_overlap"] is None
        assert ("not comparable, withheld: no record of g's reference category 'a' in the protected file "
                "(no category has a record in both files)") in coefs[name]["note"]
    assert coefs["Intercept"]["original"]["estimate"] is not None
    sp = prot[prot.age < 50]
    check("protected", coefs, smf.ols("y ~ x", sp).fit(), {"x": "x"})
    assert coefs["x"]["ci_overlap"] is not None


@pytest.mark.parametrize("formula,factor,n", [("y ~ x + C(g, Treatment('a'))", "C(g, Treatment('a'))", 3),
                                              ("y ~ x + C(educ)", "C(educ)", 4)])
def test_a_reference_that_cannot_be_moved_is_withheld(formula, factor, n):
    orig = _frame()
    prot = orig.copy()
    prot.loc[prot.g == "a", "g"] = np.nan
    prot.loc[prot.educ == 1, "educ"] = np.nan
    reg = regression(orig, prot, formula)
    coefs = coefficients(reg)
    dependent = [n for n in coefs if n == "Intercept" or n.startswith(factor)]
    assert len(dependent) == n
    for name in dependent:
        assert coefs[name]["protected"]["estimate"] is None
        assert "its reference cannot be moved" in coefs[name]["note"]
    assert coefs["x"]["ci_overlap"] is not None


def test_fit_regressions_alone_withholds_and_fit_protected_moves():
    orig = _frame()
    prot = orig.copy()
    prot.loc[prot.g == "a", "g"] = "b"
    spec = spec_from_dict({"variables": VARS, "analyses": {"regressions": [{"name": "r", "formula": "y ~ C(g)"}]}})
    pair = encode_pair(orig, prot, spec)
    analyses = parse_analyses(spec.analyses, spec)
    o = fit_regressions(FileData(pair, "orig"), analyses)
    alone = fit_regressions(FileData(pair, "prot"), analyses, o)
    assert alone[0].result["coefficients"][0]["estimate"] is None and alone[0].common == {"g": "b"}
    o2, p2 = fit_protected(FileData(pair, "orig"), FileData(pair, "prot"), analyses, o)
    assert o[0].result["references"]["C(g)"]["category"] == "a"  # the shared original's fit is left alone
    assert o2[0].result["references"]["C(g)"]["category"] == "b"
    fit = smf.wls("y ~ C(g, Treatment('b'))", prot, weights=prot.w).fit()
    assert p2[0].result["coefficients"][0]["estimate"] == pytest.approx(fit.params["Intercept"], rel=1e-10)


def test_the_report_draws_a_coefficient_only_against_the_same_original():
    first = {"coefficients": [{"name": "x", "original": {"estimate": 1.0, "se": 0.1}, "protected": {"estimate": 2}}]}
    moved = {"coefficients": [{"name": "x", "original": {"estimate": 1.5, "se": 0.1}, "protected": {"estimate": 3}}]}
    same = {"coefficients": [{"name": "x", "original": {"estimate": 1.0 + 1e-14, "se": 0.1},
                              "protected": {"estimate": 4}}]}
    coef = first["coefficients"][0]
    assert _same_coefficient(moved, coef) is None
    assert _same_coefficient(same, coef) == {"estimate": 4}


def test_safe_mode_unnames_a_reference_of_few_records():
    orig = _frame()
    orig["educ"] = np.where(orig.index < 3, 1, orig.educ.clip(2))  # code 1, the reference, has 3 records
    prot = orig.copy()
    prot.loc[prot.educ == 1, "educ"] = np.nan  # and none in the protected file: withheld, with a note
    spec = {"variables": VARS, "analyses": {"regressions": [{"name": "r", "formula": "y ~ x + C(educ)"}]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = infoloss.compare(orig, prot, spec, measures=["regression_ci_overlap"])
    raw = result.to_dict()["scenarios"][0]["analyses"]["regressions"][0]
    assert raw["original"]["references"]["C(educ)"] == {"category": 1, "n_records": 3}
    assert "reference category 1 in the protected file" in coefficients(raw)["C(educ)[T.2.0]"]["note"]
    safe = result.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["regressions"][0]
    assert safe["original"]["references"]["C(educ)"] == {"category": "(a category of fewer than 5 records)",
                                                         "n_records": None}
    assert not any("reference category 1 " in c.get("note", "") for c in safe["coefficients"])


def test_a_zero_or_constant_column_is_called_so_not_a_missing_category():
    orig = _frame().assign(z=0.0, k=5.0)
    variables = dict(VARS, z={"scale": "continuous"}, k={"scale": "continuous"})
    spec = {"variables": variables, "analyses": {"regressions": [{"name": "r", "formula": "y ~ x + z + k"},
                                                                 {"name": "l", "formula": "np.log(z) ~ x"}]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        regs = infoloss.compare(orig, orig.copy(), spec, measures=["regression_ci_overlap"]).to_dict()[
            "scenarios"][0]["analyses"]["regressions"]
    coefs = coefficients(regs[0])
    assert "z is 0 in every record the original file's fit uses" in coefs["z"]["note"]
    assert "category" not in coefs["z"]["note"]
    assert "k is constant (5) in every record the original file's fit uses, so it is collinear with the intercept" \
        in coefs["k"]["note"]
    assert regs[1]["original"]["fitted"] is False and regs[1]["original"]["n_not_finite"] == len(orig) \
        if "n_not_finite" in regs[1]["original"] else True
    note = " ".join(regs[1]["notes"])
    assert "no record in the original file whose response and terms are all finite" in note
    assert "600 complete records" in note
