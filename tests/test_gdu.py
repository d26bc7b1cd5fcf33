"""Kocar's (2018) global data utility model: formulas, scipy equality, conventions, real data."""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import infoloss
from infoloss.errors import InputError, NotComputed
from infoloss.measures import gdu as G
from infoloss.pair import encode_pair
from infoloss.registry import get
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"
TESTDATA = DATA / "testdata"
IDS = ("ldu_uni", "ldu_biv", "aldu_uni", "aldu_biv", "grc", "gdu")


def run(measure, orig, prot, spec, **options):
    return measure(encode_pair(orig, prot, spec), **options)


def dumps(result):
    return json.dumps(result.to_dict(), allow_nan=False)


# ---------------------------------------------------------------------------
# the paper's own numbers and the small formulas
# ---------------------------------------------------------------------------
def test_utility_from_p_reproduces_the_paper():
    # "with P = 0.05 ... local data utility value equals IL (0.50)"; "at P = 0.01 ... 0.13"
    assert round(G.utility_from_p(0.05), 3) == 0.503
    assert round(G.utility_from_p(0.01), 3) == 0.131
    assert G.utility_from_p(0.05) == pytest.approx(1 - math.exp(-0.7), abs=1e-15)
    assert G.utility_from_p(0.0) == 0.0
    assert G.utility_from_p(1.0) == 1.0  # convention: identical distributions
    assert G.utility_from_p(0.4) > 0.99  # "for x values between 0.4 and 1 ... IL is negligible"
    with pytest.raises(ValueError):
        G.utility_from_p(1.5)


def test_pairwise_recoding_reproduces_the_paper():
    # ten 10-year age groups into five 20-year groups: 45 → 10 comparisons, "almost 78 %" fewer
    assert G.recode_utility_pairwise(10, 5) == pytest.approx(10 / 45)
    assert round(G.recode_utility_pairwise(10, 5), 3) == 0.222
    assert G.recode_utility_pairwise(7, 7) == 1.0
    assert G.recode_utility_pairwise(7, 1) == 0.0
    assert G.recode_utility_pairwise(1, 1) == 1.0
    with pytest.raises(ValueError):
        G.recode_utility_pairwise(3, 4)


def test_reduction_coefficient_reproduces_the_paper():
    # "removed 5 variables ... from a dataset with 100 variables, the GRC would equal 0.902"
    assert G.reduction_coefficient(100, 95) == pytest.approx(95 * 94 / (100 * 99))
    assert round(G.reduction_coefficient(100, 95), 3) == 0.902
    assert G.reduction_coefficient(12, 12) == 1.0
    assert G.reduction_coefficient(3, 1) == 0.0
    assert G.reduction_coefficient(1, 0) == 0.0


def test_biased_allocation_paper_example():
    # 39 in 30-39 is closer to 40 in 40-49 (distance 1) than to 33 (6); 40 likewise to 39;
    # 30, 33 and 48 have a nearer unit in their own group → n_ba = 2 of 5
    assert G.recode_utility_biased([30, 33, 39, 40, 48], [0, 0, 0, 1, 1]) == (pytest.approx(0.6), 2)
    # duplicates in the own group are at distance 0: never biased
    assert G.recode_utility_biased([1, 1, 2, 2], [0, 0, 1, 1]) == (1.0, 0)
    # a single class has no neighbour
    assert G.recode_utility_biased([1, 5, 9], [0, 0, 0]) == (1.0, 0)


def test_heterogeneity_hand_example():
    # grand mean 6, MAD total (6+4+4+6)/4 = 5; class means 1 and 11, MAD within 1 → 1 − 1/5
    assert G.recode_utility_heterogeneity([0, 2, 10, 12], [0, 0, 1, 1]) == pytest.approx(0.8)
    assert G.recode_utility_heterogeneity([3, 3, 3], [0, 0, 1]) == 1.0  # constant: nothing lost
    assert G.recode_utility_heterogeneity([0, 2, 10, 12], [0, 0, 0, 0]) == 0.0  # one class: everything lost
    assert G.recode_utility_heterogeneity([0, 2, 10, 12], [0, 1, 2, 3]) == 1.0  # every unit its own class


def _naive_biased(x, g):
    n_ba = 0
    for i in range(len(x)):
        own = [abs(x[i] - x[j]) for j in range(len(x)) if j != i and g[j] == g[i]]
        other = [abs(x[i] - x[j]) for j in range(len(x)) if g[j] != g[i]]
        if other and min(other) < (min(own) if own else math.inf):
            n_ba += 1
    return 1 - n_ba / len(x), n_ba


def _naive_heterogeneity(x, g):
    x, g = np.asarray(x, float), np.asarray(g)
    total = np.mean(np.abs(x - x.mean()))
    if total == 0:
        return 1.0
    within = np.mean([abs(v - x[g == c].mean()) for v, c in zip(x, g)])
    return min(1.0, max(0.0, 1 - within / total))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), min_size=1, max_size=25))
def test_recoding_variants_match_naive_definitions(rows):
    x = [float(v) for v, _ in rows]
    g = [c for _, c in rows]
    u, n_ba = G.recode_utility_biased(x, g)
    nu, nn = _naive_biased(x, g)
    assert n_ba == nn and u == pytest.approx(nu)
    assert G.recode_utility_heterogeneity(x, g) == pytest.approx(_naive_heterogeneity(x, g))


def test_strength_and_direction_formulas():
    assert G.strength_utility(0.25, 0.0625) == pytest.approx(0.25)
    assert G.strength_utility(0.0625, 0.25) == pytest.approx(0.25)  # larger coefficient in the denominator
    assert G.strength_utility(0.0, 0.0) == 1.0
    # |p − o| − |o| per cell, averaged
    assert G.direction_statistic([0.25, -0.25], [-0.25, 0.25]) == pytest.approx(0.25)
    assert G.direction_statistic([0.25, -0.25], [0.125, -0.125]) == pytest.approx(-0.125)
    assert G.direction_statistic([0.3, -0.3], [0.0, 0.0]) == 0.0  # no association left: Δ = 0


# ---------------------------------------------------------------------------
# end to end: recoding
# ---------------------------------------------------------------------------
def test_ten_categories_recoded_to_five_end_to_end():
    rng = np.random.default_rng(1)
    n = 1000
    ages = rng.integers(0, 10, n)  # ten 10-year groups coded 0..9
    orig = pd.DataFrame({"agegrp": ages})
    classes = ages // 2  # five 20-year groups
    moved = rng.random(n) < 0.08  # some records moved to another class in the protected file
    prot_classes = np.where(moved, rng.integers(0, 5, n), classes)
    labels = np.array(["0-19", "20-39", "40-59", "60-79", "80-99"])
    prot = pd.DataFrame({"agegrp": labels[prot_classes]})
    mapping = {i: str(labels[i // 2]) for i in range(10)}
    spec = {"variables": {"agegrp": {"scale": "nominal", "recode": {"map": mapping}}}}
    res = run(G.ldu_uni, orig, prot, spec)
    # independently: chi-squared of the 2 × 5 table recoded original vs protected classes
    table = np.vstack([np.bincount(classes, minlength=5), np.bincount(prot_classes, minlength=5)])
    chi2 = stats.chi2_contingency(table, correction=False)
    expected = (5 * 4) / (10 * 9) * (1 - math.exp(-14 * chi2.pvalue))
    d = res.details["variables"]["agegrp"]
    assert d["statistic"] == pytest.approx(chi2.statistic, rel=1e-12)
    assert d["p_value"] == pytest.approx(chi2.pvalue, rel=1e-12)
    assert d["recode"]["variant"] == "pairwise"
    assert d["recode"]["factor"] == pytest.approx(10 / 45)
    assert res.by_variable["agegrp"] == pytest.approx(expected, rel=1e-12)
    # an exact recode (no further change) gives the paper's 0.222
    exact = pd.DataFrame({"agegrp": labels[classes]})
    assert round(run(G.ldu_uni, orig, exact, spec).by_variable["agegrp"], 3) == 0.222


def test_continuous_recoded_into_classes_uses_heterogeneity_by_default():
    x = np.array([1.0, 2.0, 3.0, 11.0, 12.0, 13.0, 21.0, 22.0, 23.0, 24.0])
    orig = pd.DataFrame({"x": x})
    prot = pd.DataFrame({"x": np.floor(x / 10) * 10})  # classes labelled by their lower bound
    spec = {"variables": {"x": {"scale": "continuous", "recode": {"breaks": [0, 10, 20, 30]}}}}
    res = run(G.ldu_uni, orig, prot, spec)
    d = res.details["variables"]["x"]
    # class means 2, 12, 22.5: |dev| sums 2 + 2 + 4 = 8 → 0.8; grand mean 13.2: Σ|x − 13.2| = 74.4 → 7.44
    assert d["recode"]["variant"] == "heterogeneity"
    assert d["recode"]["factor"] == pytest.approx(1 - 0.8 / 7.44)
    assert d["p_value"] == 1.0  # the protected classes hold exactly the recoded original
    assert res.by_variable["x"] == pytest.approx(1 - 0.8 / 7.44)
    # the other variants on request; 3, 11, 13, 21 are nearer a unit of the neighbouring class? 3↔11 is 8 > 1: no
    biased = run(G.ldu_uni, orig, prot, spec, recode_variant="biased").details["variables"]["x"]["recode"]
    assert biased["n_biased"] == 0 and biased["factor"] == 1.0
    pairwise = run(G.ldu_uni, orig, prot, spec, recode_variant={"x": "pairwise"}).by_variable["x"]
    assert pairwise == pytest.approx(3 * 2 / (10 * 9))


# ---------------------------------------------------------------------------
# every statistic equals scipy.stats on the same data
# ---------------------------------------------------------------------------
def _mixed_frames(n, seed):
    rng = np.random.default_rng(seed)
    z1 = rng.normal(50, 10, n)
    z2 = 0.5 * z1 + rng.normal(0, 8, n)
    s1 = np.exp(z1 / 20 + rng.normal(0, 0.4, n))
    o1 = np.digitize(z1 + rng.normal(0, 8, n), [35, 45, 55, 65]) + 1  # ordinal 1..5
    g1 = np.array(["a", "b", "c", "d"])[np.digitize(z2 + rng.normal(0, 5, n), [20, 25, 30])]
    g2 = np.where(rng.random(n) < 0.7, np.where(np.isin(g1, ["a", "b"]), "x", "y"), rng.choice(["x", "y", "z"], n))
    orig = pd.DataFrame({"z1": z1, "z2": z2, "s1": s1, "o1": o1, "g1": g1, "g2": g2})
    prot = orig.copy()
    prot["z1"] = z1 + rng.normal(0, 4, n)
    prot["z2"] = z2 + rng.normal(0, 4, n)
    prot["s1"] = s1 * np.exp(rng.normal(0, 0.2, n))
    flip = rng.random(n) < 0.1
    prot["g1"] = np.where(flip, rng.choice(["a", "b", "c", "d"], n), g1)
    prot["o1"] = np.where(rng.random(n) < 0.1, rng.integers(1, 6, n), o1)
    s_orig, s_prot = orig["s1"].to_numpy().copy(), prot["s1"].to_numpy().copy()
    s_orig[rng.random(n) < 0.05] = np.nan
    s_prot[rng.random(n) < 0.05] = np.nan
    orig["s1"], prot["s1"] = s_orig, s_prot
    g1p = prot["g1"].to_numpy().astype(object)
    g1p[rng.random(n) < 0.04] = None  # suppressions in the protected file only
    prot["g1"] = g1p
    spec = {
        "variables": {
            "z1": {"scale": "continuous"},
            "z2": {"scale": "continuous"},
            "s1": {"scale": "continuous"},
            "o1": {"scale": "ordinal"},
            "g1": {"scale": "nominal"},
            "g2": {"scale": "nominal"},
        }
    }
    return orig, prot, spec


def _table1(a, b):
    """Kocar's Table 1, written out cell by cell."""
    cells = {
        ("nominal", "nominal"): "chi2",
        ("nominal", "ordinal"): "kruskal",
        ("nominal", "nonnormal"): "kruskal",
        ("nominal", "normal"): "anova",
        ("ordinal", "ordinal"): "spearman",
        ("ordinal", "nonnormal"): "spearman",
        ("ordinal", "normal"): "spearman",
        ("nonnormal", "nonnormal"): "spearman",
        ("nonnormal", "normal"): "spearman",
        ("normal", "normal"): "pearson",
    }
    return cells.get((a, b)) or cells[(b, a)]


def _scipy_pair(test, xa, xb, kind_a):
    ok = ~pd.isna(xa) & ~pd.isna(xb)
    a, b = xa[ok], xb[ok]
    if test == "chi2":
        table = pd.crosstab(a, b).to_numpy()
        res = stats.chi2_contingency(table, correction=False)
        coef = res.statistic / (table.sum() * (min(table.shape) - 1))
        return res.statistic, res.pvalue, coef, int(ok.sum())
    if test in ("kruskal", "anova"):
        g, x = (a, b) if kind_a == "nominal" else (b, a)
        x = x.astype(float)
        groups = [x[g == level] for level in pd.unique(g)]
        if test == "kruskal":
            res = stats.kruskal(*groups)
            coef = res.statistic / (len(x) - 1)  # epsilon² = H / (N − 1)
        else:
            res = stats.f_oneway(*groups)
            ssb = sum(len(v) * (v.mean() - x.mean()) ** 2 for v in groups)
            coef = ssb / np.sum((x - x.mean()) ** 2)  # eta² = SSB / TSS
        return res.statistic, res.pvalue, coef, len(x)
    fn = stats.spearmanr if test == "spearman" else stats.pearsonr
    res = fn(a.astype(float), b.astype(float))
    return res.statistic, res.pvalue, res.statistic**2, len(a)


@pytest.mark.parametrize("n", [600, 12_000])
def test_every_statistic_equals_scipy(n):
    orig, prot, spec = _mixed_frames(n, seed=7)
    pair = encode_pair(orig, prot, spec)
    uni = G.ldu_uni(pair)
    biv = G.ldu_biv(pair)
    dumps(uni), dumps(biv)
    kinds = {"o1": "ordinal", "g1": "nominal", "g2": "nominal"}
    # normality of the original continuous variables: one-sample KS against a fitted normal
    for name in ("z1", "z2", "s1"):
        x = orig[name].dropna().to_numpy()
        ks = stats.kstest(x, "norm", args=(x.mean(), x.std(ddof=1)))
        d = biv.details["normality"][name]
        assert d["statistic"] == pytest.approx(ks.statistic, rel=1e-12)
        assert d["p_value"] == pytest.approx(ks.pvalue, rel=1e-9, abs=1e-300)
        assert d["normal"] == (ks.pvalue >= 0.05)
        kinds[name] = "normal" if d["normal"] else "nonnormal"
    assert kinds["s1"] == "nonnormal"
    # univariate tests
    for name in spec["variables"]:
        d = uni.details["variables"][name]
        xo, xp = orig[name].dropna(), prot[name].dropna()
        if kinds[name] in ("normal", "nonnormal"):
            ref = stats.ks_2samp(xo.to_numpy(), xp.to_numpy())
            assert d["test"] == "ks_2samp"
        else:
            counts = pd.concat([xo.astype(str).value_counts(), xp.astype(str).value_counts()], axis=1).fillna(0)
            ref = stats.chi2_contingency(counts.to_numpy().T, correction=False)
            assert d["test"] == "chi2_contingency"
        assert d["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert d["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
        assert uni.by_variable[name] == pytest.approx(G.utility_from_p(ref.pvalue), rel=1e-9, abs=1e-15)
    # bivariate tests, each file on its own complete cases
    names = list(spec["variables"])
    assert list(biv.by_pair) == [f"{a}|{b}" for i, a in enumerate(names) for b in names[i + 1:]]
    seen = set()
    for key, d in biv.details["pairs"].items():
        a, b = key.split("|")
        test = _table1(kinds[a], kinds[b])
        assert d["test_orig"] == d["test_prot"] == test
        seen.add(test)
        for frame, suffix in ((orig, "orig"), (prot, "prot")):
            xa, xb = frame[a].to_numpy(), frame[b].to_numpy()
            stat, p, coef, n_cc = _scipy_pair(test, xa, xb, kinds[a])
            assert d[f"n_{suffix}"] == n_cc
            assert d[f"statistic_{suffix}"] == pytest.approx(stat, rel=1e-10)
            assert d[f"p_{suffix}"] == pytest.approx(p, rel=1e-9, abs=1e-300)
            assert d[f"coef_{suffix}"] == pytest.approx(coef, rel=1e-10)
    assert {"chi2", "kruskal", "spearman"} <= seen
    if n == 600:
        assert {"anova", "pearson"} <= seen  # z1, z2 pass the normality test at this size


def test_three_steps_by_hand_on_a_two_by_two_table():
    def frame(cells):
        rows = [(a, b) for (a, b), k in cells.items() for _ in range(k)]
        return pd.DataFrame(rows, columns=["u", "v"])

    orig = frame({("p", "p"): 30, ("p", "q"): 10, ("q", "p"): 10, ("q", "q"): 30})
    spec = {"variables": {"u": {"scale": "nominal"}, "v": {"scale": "nominal"}}}
    # reversed: residuals ±10/√(20·80) = ±0.25 change sign, Δ = mean(|∓0.25 − ±0.25| − 0.25) = 0.25 > 0
    rev = frame({("p", "p"): 10, ("p", "q"): 30, ("q", "p"): 30, ("q", "q"): 10})
    d = run(G.ldu_biv, orig, rev, spec).details["pairs"]["u|v"]
    assert d["step"] == "direction" and d["ldu"] == 0.0
    assert d["direction"]["delta"] == pytest.approx(0.25)
    # weaker, same direction: χ² = 4·5²/20 = 5 (no Yates correction), P = 0.0253; residuals ±0.125, Δ = −0.125;
    # V² = 20/80 = 0.25 and 5/80 = 0.0625 → utility 0.0625/0.25
    weak = frame({("p", "p"): 25, ("p", "q"): 15, ("q", "p"): 15, ("q", "q"): 25})
    d = run(G.ldu_biv, orig, weak, spec).details["pairs"]["u|v"]
    assert d["statistic_orig"] == pytest.approx(20.0) and d["statistic_prot"] == pytest.approx(5.0)
    assert d["p_prot"] == pytest.approx(stats.chi2.sf(5.0, 1))
    assert d["direction"]["delta"] == pytest.approx(-0.125)
    assert d["coef_orig"] == pytest.approx(0.25) and d["coef_prot"] == pytest.approx(0.0625)
    assert d["step"] == "strength" and d["ldu"] == pytest.approx(0.25)
    # no association left: exactly one P below the threshold → 0 at step 1
    flat = frame({("p", "p"): 20, ("p", "q"): 20, ("q", "p"): 20, ("q", "q"): 20})
    d = run(G.ldu_biv, orig, flat, spec).details["pairs"]["u|v"]
    assert d["p_prot"] == 1.0 and d["step"] == "significance" and d["ldu"] == 0.0
    # neither file associated → 1 at step 1
    d = run(G.ldu_biv, flat, flat.copy(), spec).details["pairs"]["u|v"]
    assert d["step"] == "significance" and d["ldu"] == 1.0


def test_group_directions_are_signed_by_the_group_means():
    x = np.arange(1.0, 61.0)
    g = np.repeat(["a", "b", "c"], 20)  # a low, b middle, c high
    orig = pd.DataFrame({"g": g, "x": x})
    prot = pd.DataFrame({"g": g, "x": x[::-1].copy()})  # a high, c low: direction reversed
    # Kruskal-Wallis (x ordinal): mean ranks 10.5, 30.5, 50.5 around 30.5; per-record signed
    # SSB_i/N³ = ∓20·20²/60³, 0, ±20·20²/60³; Δ = mean(|m + m| − m, 0, |−m − m| − m) = 2m/3
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "ordinal"}}}
    d = run(G.ldu_biv, orig, prot, spec).details["pairs"]["g|x"]
    m = 20 * 20**2 / 60**3
    assert d["test_orig"] == "kruskal"
    assert d["direction"]["delta"] == pytest.approx(2 * m / 3)
    assert d["step"] == "direction" and d["ldu"] == 0.0
    # ANOVA (x continuous; an even grid passes the normality test): SSB_i/N = ∓20·20²/60, 0, ±20·20²/60
    assert stats.kstest(x, "norm", args=(x.mean(), x.std(ddof=1))).pvalue >= 0.05
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    d = run(G.ldu_biv, orig, prot, spec).details["pairs"]["g|x"]
    m = 20 * 20**2 / 60
    assert d["test_orig"] == "anova"
    assert d["direction"]["delta"] == pytest.approx(2 * m / 3)
    assert d["step"] == "direction" and d["ldu"] == 0.0


def test_direction_survives_a_larger_protected_file():
    # a synthetic file twice the size with the same joint distribution must not count as a reversed
    # association (raw sums of squares of ranks would grow eightfold; per-record ones do not)
    orig, _, spec = _mixed_frames(500, seed=3)
    prot = pd.concat([orig, orig], ignore_index=True)
    spec = dict(spec, pairing="none")
    res = run(G.ldu_biv, orig, prot, spec)
    assert all(d["step"] != "direction" for d in res.details["pairs"].values())
    assert run(G.aldu_uni, orig, prot, spec).value == 1.0  # same distributions: KS and χ² P = 1


# ---------------------------------------------------------------------------
# identical files, a permuted variable, removed variables
# ---------------------------------------------------------------------------
def _testdata(name, recode_age=False, tmp_path=None):
    orig = pd.read_csv(TESTDATA / "original.csv")
    prot = pd.read_csv(TESTDATA / f"{name}.csv") if name else orig.copy()
    spec_path = TESTDATA / "spec.yaml"
    if recode_age:
        raw = yaml.safe_load(spec_path.read_text())
        # 0-9 → 0, 10-19 → 10, ...: left-closed classes [0, 10), ..., [90, 100) cover ages 0-95
        raw["variables"]["age"]["recode"] = {"breaks": list(range(0, 101, 10))}
        spec_path = tmp_path / "spec.yaml"
        spec_path.write_text(yaml.safe_dump(raw))
    return orig, prot, load_spec(spec_path)


def test_identical_files_give_exactly_one():
    orig, prot, spec = _testdata(None)
    pair = encode_pair(orig, prot, spec)
    for mid in IDS:
        res = getattr(G, mid)(pair)
        assert res.value == 1.0, mid
        dumps(res)
    assert set(G.ldu_uni(pair).by_variable.values()) == {1.0}
    assert set(G.ldu_biv(pair).by_pair.values()) == {1.0}


def test_permuting_a_variable_keeps_its_univariate_utility_and_breaks_its_associations():
    orig, _, spec = _testdata(None)
    prot = orig.copy()
    prot["water"] = np.random.default_rng(5).permutation(orig["water"].to_numpy())
    pair = encode_pair(orig, prot, spec)
    base = G.ldu_biv(encode_pair(orig, orig.copy(), spec)).details["pairs"]
    associated = [k for k, d in base.items() if "water" in k.split("|") and d["p_orig"] < 0.05]
    assert len(associated) >= 5  # urbrur, roof, walls, electcon, relat, age
    assert G.ldu_uni(pair).by_variable["water"] == 1.0  # same values: χ² = 0, P = 1
    biv = G.ldu_biv(pair)
    after = [biv.by_pair[k] for k in associated]
    assert np.mean(after) < 0.2
    assert all(v == 1.0 for k, v in biv.by_pair.items() if "water" not in k.split("|"))
    by_var = G.aldu_biv(pair).by_variable
    assert by_var["water"] == min(by_var.values()) < 0.6
    assert G.gdu(pair).value < 1.0


def test_removed_variable_by_hand():
    df = pd.DataFrame({"a": list("xxyyxyxy"), "b": [1, 2, 1, 2, 2, 1, 1, 2], "c": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    spec = {"variables": {"a": {"scale": "nominal"}, "b": {"scale": "nominal"},
                          "c": {"scale": "continuous", "removed": True}}}
    pair = encode_pair(df, df.drop(columns="c"), spec)
    uni = G.ldu_uni(pair)
    assert uni.by_variable == {"a": 1.0, "b": 1.0, "c": 0.0}
    biv = G.ldu_biv(pair)
    assert biv.by_pair == {"a|b": 1.0, "a|c": 0.0, "b|c": 0.0}
    assert G.aldu_biv(pair).by_variable == {"a": 0.5, "b": 0.5, "c": 0.0}
    assert G.grc(pair).value == pytest.approx(2 * 1 / (3 * 2))
    # ALDU_uni = 2/3, ALDU_biv = 1/3, GRC = 1/3 → GDU = (1/3 + 1/6)/3 = 1/6
    assert G.gdu(pair).value == pytest.approx(1 / 6)
    assert G.gdu(pair, use_grc=False).value == pytest.approx(1 / 2)
    assert G.gdu(pair, weights=(1.0, 0.0)).value == pytest.approx(2 / 9)


# ---------------------------------------------------------------------------
# the three protected versions of testdata
# ---------------------------------------------------------------------------
def test_testdata_scenarios(tmp_path):
    """ls_k3 > recode_mdav3_ls_k3 > recode_pram_noise50.

    ls_k3 only suppresses 293 key values: 229 of them in ``relat``, which are
    concentrated in its rare categories, so relat's chi-squared P is ~0 and its
    univariate utility 0; every other variable keeps utility ~1.  The two other
    files recode age into 10-year classes (pairwise factor 10·9/(88·87) = 0.012,
    times ~0 after 488 suppressions in the MDAV file).  MDAV with k = 3 keeps the
    distributions of expend, income and savings (KS P ~ 1), while additive
    noise of half a standard deviation moves them far enough for the KS test to
    reject (P ~ 0): three of twelve univariate utilities drop to 0.  The
    bivariate averages are close (~0.92) because the continuous variables of
    testdata are unrelated to the rest, so most pairs stay non-significant in
    both files.
    """
    results = {}
    for name, recoded in (("ls_k3", False), ("recode_pram_noise50", True), ("recode_mdav3_ls_k3", True)):
        orig, prot, spec = _testdata(name, recoded, tmp_path)
        pair = encode_pair(orig, prot, spec)
        res = G.gdu(pair, weighted=False)  # the paper's unweighted tests (testdata has sampling weights)
        dumps(res)
        results[name] = res
        uni = G.ldu_uni(pair, weighted=False)
        if recoded:
            d = uni.details["variables"]["age"]
            assert d["recode"]["n_values"] == orig["age"].nunique() == 88
            assert d["recode"]["n_classes"] == 10
            assert d["recode"]["factor"] == pytest.approx(10 * 9 / (88 * 87))
            cls_o = orig["age"].to_numpy() // 10
            cls_p = (prot["age"].dropna().to_numpy() // 10).astype(int)
            table = np.vstack([np.bincount(cls_o, minlength=10), np.bincount(cls_p, minlength=10)])
            chi2 = stats.chi2_contingency(table[:, table.sum(axis=0) > 0], correction=False)
            assert d["p_value"] == pytest.approx(chi2.pvalue, rel=1e-9, abs=1e-300)
            assert uni.by_variable["age"] == pytest.approx(10 * 9 / (88 * 87) * G.utility_from_p(chi2.pvalue))
    values = {k: r.value for k, r in results.items()}
    assert values["ls_k3"] > values["recode_mdav3_ls_k3"] > values["recode_pram_noise50"]
    noise = results["recode_pram_noise50"].details
    mdav = results["recode_mdav3_ls_k3"].details
    assert noise["aldu_uni"] < mdav["aldu_uni"]
    assert abs(noise["aldu_biv"] - mdav["aldu_biv"]) < 0.05


# ---------------------------------------------------------------------------
# type changes, bad input, options
# ---------------------------------------------------------------------------
def test_type_change_rules():
    rng = np.random.default_rng(11)
    n = 300
    z = rng.normal(50, 10, n)
    w = z + rng.normal(0, 5, n)
    g = np.where(z + rng.normal(0, 5, n) > 50, "hi", "lo")
    orig = pd.DataFrame({"z": z, "w": w, "g": g})
    prot = orig.copy()
    prot["z"] = np.floor(z / 10) * 10
    spec = {"variables": {"z": {"scale": "continuous", "recode": {"breaks": [-100, 10, 20, 30, 40, 50, 60, 70, 80, 90, 200]}},
                          "w": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    res = run(G.ldu_biv, orig, prot, spec)
    assert res.details["normality"]["z"]["normal"] and res.details["normality"]["w"]["normal"]
    zw = res.details["pairs"]["z|w"]
    # Pearson r² on the original against Spearman ρ² on the classes (paper §3.4.3)
    assert (zw["test_orig"], zw["test_prot"]) == ("pearson", "spearman")
    assert zw["coef_orig"] == pytest.approx(stats.pearsonr(z, w).statistic ** 2)
    assert zw["coef_prot"] == pytest.approx(stats.spearmanr(prot["z"], w).statistic ** 2)
    # nominal partner: ANOVA on the original, Kruskal-Wallis on the classes → no rule, left out
    assert "z|g" not in res.by_pair
    assert "no rule" in res.details["not_computed"]["z|g"]
    assert res.details["n_excluded"] == 1
    assert "w|g" in res.by_pair


def test_bad_recodes_and_single_categories_are_reported_not_nan():
    orig = pd.DataFrame({
        "g": list("abcdabcdab"),
        "x": [1.0, 5, 9, 12, 18, 25, 31, 33, 38, 40],
        "k": ["same"] * 10,
        "y": [2.0, 4, 6, 8, 10, 12, 14, 16, 18, 21],
        "z": [3.0, 1, 4, 1, 5, 9, 2, 6, 5, 3],
    })
    prot = orig.copy()
    prot["g"] = ["ab", "ab", "c", "d", "ab", "ab", "c", "zz", "ab", "ab"]  # zz: neither original nor a target
    spec = {"variables": {
        "g": {"scale": "nominal", "recode": {"map": {"a": "ab", "b": "ab", "c": "c"}}},  # d stays d
        "x": {"scale": "continuous", "recode": {"breaks": [0, 10, 20, 30]}},  # 31..40 not covered
        "k": {"scale": "nominal"},  # a single category
        "y": {"scale": "continuous"},
        "z": {"scale": "continuous"},
    }}
    pair = encode_pair(orig, prot, spec)
    uni = G.ldu_uni(pair)
    nc = uni.details["not_computed"]
    assert "neither original categories nor targets" in nc["g"] and "'zz'" in nc["g"]
    assert "do not cover" in nc["x"]
    assert "single category" in nc["k"]
    assert uni.by_variable == {"y": 1.0, "z": 1.0}
    biv = G.ldu_biv(pair)
    assert biv.by_pair == {"y|z": 1.0}
    excluded = biv.details["not_computed"]
    assert len(excluded) == 9 and biv.details["n_excluded"] == 9
    assert "neither original categories nor targets" in excluded["g|y"] and "do not cover" in excluded["x|z"]
    assert "single category" in excluded["k|y"]
    res = G.gdu(pair)
    assert res.value == 1.0  # what is left (y and z) is unchanged
    assert set(res.details["not_computed"]["univariate"]) == {"g", "x", "k"}
    dumps(res), dumps(uni), dumps(biv)
    # the biased-allocation variant needs numbers
    text = pd.DataFrame({"g": list("abcdabcd")})
    tspec = {"variables": {"g": {"scale": "nominal", "recode": {"map": {"a": "ab", "b": "ab", "c": "cd", "d": "cd"}}}}}
    tprot = pd.DataFrame({"g": ["ab", "ab", "cd", "cd"] * 2})
    reason = run(G.ldu_uni, text, tprot, tspec, recode_variant="pairwise").by_variable["g"]
    assert reason == pytest.approx(2 / 12)
    with pytest.raises(NotComputed, match="numeric"):
        run(G.ldu_uni, text, tprot, tspec, recode_variant="biased")


def test_option_errors():
    df = pd.DataFrame({"x": [1.0, 2, 3, 4], "g": list("abab")})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    pair = encode_pair(df, df.copy(), spec)
    with pytest.raises(InputError, match="sum to 1"):
        G.gdu(pair, weights=(0.5, 0.6))
    with pytest.raises(InputError, match="two numbers"):
        G.gdu(pair, weights="half")
    with pytest.raises(InputError, match="recode_variant"):
        G.ldu_uni(pair, recode_variant="median")
    with pytest.raises(InputError, match="threshold"):
        G.ldu_biv(pair, threshold=1.5)
    assert G.gdu(pair, weights=[0.3, 0.7]).details["weights"] == [0.3, 0.7]


def test_registry_metadata():
    for mid in IDS:
        info = get(mid)
        assert info.family == "gdu" and info.better == "higher" and info.range == (0, 1)
        assert info.needs_pairing is False
    assert get("gdu").headline


def test_weighting_is_stated():
    # issue 15: the spec's weights are used by default; weighted=False gives the paper's unweighted tests
    df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5], "g": list("ababa"), "w": [1, 2, 3, 4, 5]})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}, "w": {"role": "weight"}}}
    for mid in ("ldu_uni", "ldu_biv", "aldu_uni", "aldu_biv", "gdu"):
        assert run(getattr(G, mid), df, df.copy(), spec).details["weighted"] is True
        assert run(getattr(G, mid), df, df.copy(), spec, weighted=False).details["weighted"] is False


def test_a_variable_observed_only_in_records_of_weight_zero():
    # weights positive in both files, but the values of x (and of g) kept by the protected file are all
    # in records of weight 0: the weighted KS divided by zero (found by fuzzing). Such a side has no
    # weighted value, like a variable missing in every protected record: LDU 0; on the original side
    # nothing can be compared: the variable is not computed (the ks measure's wording)
    df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6], "g": list("ababab"), "y": [3.0, 1, 4, 1, 5, 9],
                       "w": [1.0, 1, 1, 0, 0, 0]})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}, "y": {"scale": "continuous"},
                          "w": {"role": "weight"}}}
    hidden = df.assign(x=[np.nan] * 3 + [4.0, 5, 6], g=[None] * 3 + list("bab"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = run(G.ldu_uni, df, hidden, spec)
        total = run(G.gdu, df, hidden, spec)
        unpaired = dict(spec, pairing="none")
        o = run(G.ldu_uni, hidden, df, unpaired)
    assert r.by_variable == {"x": 0.0, "g": 0.0, "y": 1.0}
    assert r.details["variables"]["x"]["note"] == "no protected value has a positive weight: treated like a removed variable"
    assert total.details["aldu_uni"] == pytest.approx(1 / 3)
    assert o.by_variable == {"y": 1.0}
    assert o.details["not_computed"]["x"] == "it has no value of positive weight in the original file"
    assert o.details["not_computed"]["g"] == "it has no value of positive weight in the original file"


def test_ordinal_recoded_into_text_classes_keeps_the_category_order():
    # the protected file labels age classes "0-4", "5-9", "10-14", "15-19"; ranks must follow age, not text
    rng = np.random.default_rng(0)
    age = rng.integers(0, 20, 200)
    y = age + rng.normal(0, 3, 200)
    labels = np.array(["0-4", "5-9", "10-14", "15-19"])
    orig = pd.DataFrame({"a": age, "y": y})
    prot = pd.DataFrame({"a": labels[age // 5], "y": y})
    spec = {"variables": {"a": {"scale": "ordinal", "recode": {"map": {str(i): str(labels[i // 5]) for i in range(20)}}},
                          "y": {"scale": "continuous"}}}
    pair = encode_pair(orig, prot, spec)
    d = G.ldu_biv(pair).details["pairs"]["a|y"]
    rho_o, rho_p = stats.spearmanr(age, y).statistic, stats.spearmanr(age // 5, y).statistic
    assert d["test_orig"] == d["test_prot"] == "spearman"
    assert d["statistic_orig"] == pytest.approx(rho_o, rel=1e-12)
    assert d["statistic_prot"] == pytest.approx(rho_p, rel=1e-12)
    assert d["step"] == "strength" and d["ldu"] == pytest.approx(rho_p**2 / rho_o**2)
    u = G.ldu_uni(pair).details["variables"]["a"]
    assert u["p_value"] == 1.0 and u["recode"]["factor"] == pytest.approx(4 * 3 / (20 * 19))


def test_top_coding_is_compared_as_a_perturbation():
    x = np.arange(1.0, 201.0)
    orig = pd.DataFrame({"x": x})
    prot = pd.DataFrame({"x": np.minimum(x, 150.0)})
    spec = {"variables": {"x": {"scale": "continuous", "recode": {"top": 150}}}}
    d = run(G.ldu_uni, orig, prot, spec).details["variables"]["x"]
    ref = stats.ks_2samp(x, np.minimum(x, 150.0))
    assert d["test"] == "ks_2samp" and "top-coded" in d["note"]
    assert d["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert d["recode"] is None and d["ldu"] == pytest.approx(G.utility_from_p(ref.pvalue))


def test_nonnormal_variable_recoded_with_a_nominal_partner_keeps_kruskal_wallis():
    rng = np.random.default_rng(4)
    n = 400
    x = rng.lognormal(3, 0.8, n)
    g = np.where(x + rng.normal(0, 10, n) > 25, "hi", "lo")
    orig = pd.DataFrame({"x": x, "g": g})
    prot = pd.DataFrame({"x": np.floor(x / 20) * 20, "g": g})
    spec = {"variables": {"x": {"scale": "continuous", "recode": {"breaks": [0, 20, 40, 60, 80, 100, 10_000]}},
                          "g": {"scale": "nominal"}}}
    res = run(G.ldu_biv, orig, prot, spec)
    assert not res.details["normality"]["x"]["normal"]
    d = res.details["pairs"]["x|g"]
    # ε² on the original values and on the classes: the same test, so the paper's equations apply
    assert d["test_orig"] == d["test_prot"] == "kruskal"
    classes = np.searchsorted([0, 20, 40, 60, 80, 100, 10_000], prot["x"], side="right") - 1  # 100, 120.. → one class
    h_p = stats.kruskal(classes[g == "hi"], classes[g == "lo"]).statistic
    assert d["coef_prot"] == pytest.approx(h_p / (n - 1), rel=1e-10)


def test_pairs_with_missing_values_on_both_sides_equal_scipy():
    """Complete cases of two incomplete variables: each is re-ranked without the records the other lacks.

    Skewed, tied values (rounded log-normals) with missing values in different
    records of each variable, an ordinal and a nominal variable with missing
    values too: every Spearman ρ and Kruskal–Wallis H equals scipy's on the
    pair's complete cases (``nan_policy='omit'`` semantics), in both files.
    """
    rng = np.random.default_rng(11)
    n = 5_000
    z = rng.normal(size=n)
    frames = []
    for shift in (0.0, 0.3):
        f = pd.DataFrame({
            "u": np.round(np.exp(z + shift * rng.normal(size=n)), 1),
            "v": np.round(np.exp(0.5 * z + rng.normal(size=n)), 1),
            "o": np.digitize(z + rng.normal(size=n), [-1, 0, 1]) + 1,
            "g": np.array(["a", "b", "c"])[np.digitize(z + rng.normal(size=n), [-0.5, 0.5])].astype(object),
        })
        for name, share in (("u", 0.06), ("v", 0.09), ("o", 0.04), ("g", 0.05)):
            col = f[name].astype(object) if name in ("o", "g") else f[name].copy()
            col[rng.random(n) < share] = None if name in ("o", "g") else np.nan
            f[name] = col
        f["o"] = pd.to_numeric(f["o"])
        frames.append(f)
    orig, prot = frames
    spec = {"variables": {"u": {"scale": "continuous"}, "v": {"scale": "continuous"},
                          "o": {"scale": "ordinal"}, "g": {"scale": "nominal"}}}
    biv = G.ldu_biv(orig, prot, spec)
    kinds = {"u": "nonnormal", "v": "nonnormal", "o": "ordinal", "g": "nominal"}
    for key, d in biv.details["pairs"].items():
        a, b = key.split("|")
        test = _table1(kinds[a], kinds[b])
        assert d["test_orig"] == d["test_prot"] == test
        for frame, suffix in ((orig, "orig"), (prot, "prot")):
            stat, p, coef, n_cc = _scipy_pair(test, frame[a].to_numpy(), frame[b].to_numpy(), kinds[a])
            assert d[f"n_{suffix}"] == n_cc
            assert d[f"statistic_{suffix}"] == pytest.approx(stat, rel=1e-12)
            assert d[f"p_{suffix}"] == pytest.approx(p, rel=1e-9, abs=1e-300)
            assert d[f"coef_{suffix}"] == pytest.approx(coef, rel=1e-10)


def test_scenarios_of_one_compare_test_the_original_pairs_once(monkeypatch):
    """The original's pair tests are shared by the scenarios of one compare, unless a recode ties them to a file.

    Every scenario's bivariate results equal those of the scenario compared
    alone (bit for bit), and the original's tester is built once for two
    scenarios; with a recode in the spec it is built for each.
    """
    import infoloss
    from infoloss.measures import _gdu_pairs
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(1200, n_continuous=4, n_categorical=3, seed=8)
    df.loc[df.index[::17], df.columns[3]] = np.nan  # missing values in the original too
    prots = [protect(df, noise=0.1 * (k + 1), pram=0.1, seed=11 + k) for k in range(2)]
    spec = make_spec(df)
    built = []
    real = _gdu_pairs._file_tester
    monkeypatch.setattr(_gdu_pairs, "_file_tester", lambda pair, v, plan, which, w, workers=1: built.append(which)
                        or real(pair, v, plan, which, w, workers))
    normality_tests = []
    real_normality = G._normality
    monkeypatch.setattr(G, "_normality", lambda side: normality_tests.append(side) or real_normality(side))
    together = infoloss.compare(df, prots, spec, measures=["ldu_biv"])
    assert built.count(_gdu_pairs.ORIGINAL) == 1 and built.count(_gdu_pairs.PROTECTED) == 2
    continuous = [n for n, v in spec["variables"].items() if v.get("scale") == "continuous"]
    assert len(normality_tests) == len(continuous)  # the original's normality tests: once for both scenarios
    for scenario, prot in zip(together.scenarios, prots):
        alone = infoloss.compare(df, prot, spec, measures=["ldu_biv"]).scenarios[0]
        assert dumps(scenario.measures["ldu_biv"]) == dumps(alone.measures["ldu_biv"])
    # a recode makes the original's statistics depend on the protected classes: tested per scenario
    nominal = next(n for n, v in spec["variables"].items() if v.get("scale") == "nominal" and df[n].nunique() > 2)
    levels = sorted(df[nominal].dropna().unique())
    mapping = {level: ("merged" if level in levels[:2] else level) for level in levels}
    recode = {"map": mapping}
    recoded = {**spec, "variables": {**spec["variables"], nominal: {**spec["variables"][nominal], "recode": recode}}}
    merged = [q.assign(**{nominal: q[nominal].astype(object).replace(mapping)}) for q in prots]
    built.clear()
    result = infoloss.compare(df, merged, recoded, measures=["ldu_biv"])
    assert any(nominal in key for key in result.scenarios[0].measures["ldu_biv"].by_pair)
    assert built.count(_gdu_pairs.ORIGINAL) == 2


def test_normality_of_large_files_takes_the_limit_law_only_for_small_p_values():
    """Above 20,000 values a p-value below 0.025 comes from the limiting Kolmogorov distribution (scipy's
    series costs a second per variable at 1,000,000), within 2 % of scipy's; near the threshold scipy's decides."""
    rng = np.random.default_rng(5)
    n = 60_000
    orig = pd.DataFrame({"x": np.round(rng.normal(50, 10, n) / 0.4) * 0.4,  # rounded: slightly non-normal
                         "y": rng.normal(size=n)})
    prot = orig + rng.normal(0, 1, (n, 2))
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}, "pairing": "row"}
    expected = {name: stats.kstest(orig[name], "norm", args=(orig[name].mean(), orig[name].std(ddof=1)))
                for name in orig.columns}
    assert 1e-10 < expected["x"].pvalue < 0.025 and expected["y"].pvalue > 0.025
    normality = G.ldu_biv(encode_pair(orig, prot, spec)).details["normality"]
    for name in orig.columns:
        assert normality[name]["statistic"] == pytest.approx(expected[name].statistic, rel=1e-12)
    assert normality["x"]["method"] == "asymp-limit"
    assert normality["x"]["p_value"] == pytest.approx(expected["x"].pvalue, rel=0.02)
    assert normality["y"]["method"] == "asymp"
    assert normality["y"]["p_value"] == pytest.approx(expected["y"].pvalue, rel=1e-9)
    # the limit law's p-value never below scipy's; a threshold it does not clearly fall below: scipy's decides
    assert normality["x"]["p_value"] >= expected["x"].pvalue
    threshold = normality["x"]["p_value"] * 1.01
    near = G.ldu_biv(encode_pair(orig, prot, spec), threshold=threshold).details["normality"]["x"]
    assert near["method"] == "asymp"
    assert near["p_value"] == pytest.approx(expected["x"].pvalue, rel=1e-9)
    assert near["normal"] == (expected["x"].pvalue >= threshold)
    # a threshold between scipy's p-value and the limit law's: the limit law alone would say "normal"
    between = (expected["x"].pvalue + normality["x"]["p_value"]) / 2
    assert expected["x"].pvalue < between < normality["x"]["p_value"]
    mid = G.ldu_biv(encode_pair(orig, prot, spec), threshold=between).details["normality"]["x"]
    assert mid["method"] == "asymp" and mid["normal"] is False
    # a threshold clearly above the limit law's p-value: the limit law's value stands, "not normal" as for scipy
    far = G.ldu_biv(encode_pair(orig, prot, spec), threshold=normality["x"]["p_value"] * 2).details["normality"]["x"]
    assert far["method"] == "asymp-limit" and far["normal"] is False


def test_pair_p_values_are_the_scipy_stats_distributions_bit_for_bit():
    """The pair tests' p-values call scipy.special as scipy.stats does (no scipy.stats import): the same bits."""
    from infoloss.measures._gdu_pairs import (
        _anova_pair,
        _kruskal_pair,
        _pearson_p,
        _spearman_p,
    )

    rng = np.random.default_rng(12)
    for n in (3, 4, 10, 1_000, 1_000_000):
        for r in np.concatenate([rng.uniform(-1, 1, 50), [0.0, 1.0, -1.0, 0.999999, 1e-9]]):
            ab, dof = n / 2 - 1, n - 2
            assert _pearson_p(float(r), n) == min(1.0, 2 * stats.beta.sf(abs(r), ab, ab, loc=-1, scale=2))
            t = r * math.sqrt(dof / ((r + 1) * (1 - r))) if abs(r) < 1 else math.copysign(math.inf, r)
            assert _spearman_p(float(r), n) == min(1.0, 2 * stats.t.sf(abs(t), dof))
    for _ in range(20):
        size = rng.integers(5, 50, 4).astype(float)
        sums = rng.normal(0, 30, 4) * size
        n = int(size.sum())
        res = _kruskal_pair(size, sums, 0.0, n)
        assert res["p"] == stats.chi2.sf(res["statistic"], 3)
        res = _anova_pair(size, sums, float(np.sum(sums**2 / size)) * 3 + 1e4, n)
        assert res["p"] == stats.f.sf(res["statistic"], 3, n - 4)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_variable_blanked_in_the_protected_file_scores_like_a_removed_one_in_its_pairs_too(weighted):
    # its pairs scored 1 where the original pair was not significant ("no association detectable, P = 1")
    rng = np.random.default_rng(11)
    orig = pd.DataFrame({"x": rng.normal(size=150), "g": rng.choice(list("abc"), 150), "y": rng.normal(size=150),
                         "w": rng.uniform(1, 3, 150)})
    orig["x"] += orig["g"].map({"a": 1.0, "b": 0.0, "c": 0.0})
    base = {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}, "y": {"scale": "continuous"}}
    if weighted:
        base["w"] = {"role": "weight"}
        blank = orig.assign(w=np.where(orig.index < 75, 0.0, orig["w"]), y=np.where(orig.index < 75, orig["y"], np.nan))
    else:
        blank = orig.assign(y=np.nan)
    options = {"gdu": {"use_grc": False}}
    measures = ["ldu_biv", "gdu"]
    got = infoloss.compare(orig, blank, {"variables": base}, measures=measures, options=options).to_dict()
    removed = infoloss.compare(orig, orig.drop(columns="y"), {"variables": {**base, "y": {**base["y"], "removed": True}}},
                               measures=measures, options=options).to_dict()
    got, removed = (r["scenarios"][0]["measures"] for r in (got, removed))
    assert got["ldu_biv"]["by_pair"]["x|y"] == got["ldu_biv"]["by_pair"]["g|y"] == 0.0
    assert got["ldu_biv"]["details"]["pairs"]["x|y"]["note"].startswith(
        "no protected value of y has a positive weight" if weighted else "every protected value of y is missing")
    if not weighted:
        assert got["ldu_biv"]["by_pair"] == removed["ldu_biv"]["by_pair"]
        assert got["gdu"]["value"] == removed["gdu"]["value"]


def test_a_weighted_pearson_pair_without_degrees_of_freedom_is_left_out():
    # Kish's n_eff <= 2 left the t test of r no degrees of freedom: its NaN p-value was read as P = 1 (LDU 1)
    rng = np.random.default_rng(0)
    n = 50
    x = rng.normal(size=n)
    y = x + 0.3 * rng.normal(size=n)
    w = np.full(n, 0.01)
    w[0] = 10.0  # n_eff = (sum w)^2 / sum w^2, about 1.1
    orig = pd.DataFrame({"x": x, "y": y, "w": w})
    prot = pd.DataFrame({"x": x + 0.1 * rng.normal(size=n), "y": y, "w": 1.0 + 0.1 * rng.random(n)})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "w": {"role": "weight"}},
            "pairing": "row"}
    rep = infoloss.compare(orig, prot, spec, measures=["ldu_biv"], statistics=False, aggregates=False, tables=False)
    reason = rep.scenarios[0].not_computed["ldu_biv"]
    assert "x|y: the original file cannot be tested: the complete cases' effective sample size (Kish) is 1.1" in reason
    unweighted = infoloss.compare(orig, prot, spec, measures=["ldu_biv"], options={"ldu_biv": {"weighted": False}},
                                  statistics=False, aggregates=False, tables=False)
    assert unweighted.value("ldu_biv") is not None


def test_a_pair_tested_weighted_in_one_file_and_unweighted_in_the_other_says_both():
    # x1 recoded into classes: weighted Pearson in the original, Spearman (no weighted form) in the protected file
    rng = np.random.default_rng(1)
    n = 300
    x1 = rng.normal(size=n)
    orig = pd.DataFrame({"x1": x1, "x2": x1 + rng.normal(size=n), "w": np.exp(rng.normal(size=n))})
    breaks = [-100, -1, 0, 1, 100]
    prot = orig.assign(x1=pd.cut(orig.x1, breaks, right=False, labels=breaks[:-1]).astype(float))
    spec = {"variables": {"x1": {"scale": "continuous", "recode": {"breaks": breaks}}, "x2": {"scale": "continuous"},
                          "w": {"role": "weight"}}, "pairing": "row"}
    rep = infoloss.compare(orig, prot, spec, measures=["ldu_biv"], statistics=False, aggregates=False, tables=False)
    pair = rep.to_dict()["scenarios"][0]["measures"]["ldu_biv"]["details"]["pairs"]["x1|x2"]
    assert (pair["test_orig"], pair["test_prot"]) == ("pearson", "spearman")
    assert pair["weights"].startswith("original: weighted") and "protected: no weighted form" in pair["weights"]


def test_a_variable_whose_protected_values_all_weigh_zero_is_named_so_in_its_pairs():
    rng = np.random.default_rng(0)
    n = 40
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "w": 1.0 + rng.random(n)})
    prot = orig.assign(x=np.where(np.arange(n) < 20, np.nan, orig.x), w=np.where(np.arange(n) < 20, 1.0, 0.0))
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "w": {"role": "weight"}},
            "pairing": "row"}
    rep = infoloss.compare(orig, prot, spec, measures=["ldu_biv"], statistics=False, aggregates=False, tables=False)
    note = rep.to_dict()["scenarios"][0]["measures"]["ldu_biv"]["details"]["pairs"]["x|y"]["note"]
    assert note == "no protected value of x has a positive weight: treated like a removed variable"  # not "missing"


def test_a_variable_without_a_positive_weight_in_the_original_is_left_out_of_its_pairs_too():
    # its univariate utility was left out, but its pairs scored 0 "like a removed variable": a file against itself
    # had gdu 0.667 (found by the core audit)
    import infoloss

    rng = np.random.default_rng(0)
    n = 40
    o = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "z": rng.normal(size=n),
                      "w": [1.0] * 10 + [0.0] * 30})
    o.loc[:9, "x"] = np.nan  # x observed only in records of weight 0
    spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"} | {"w": {"role": "weight"}}}
    scenario = infoloss.compare(o, o.copy(), spec, measures=["ldu_biv", "aldu_biv", "gdu"], statistics=False,
                                aggregates=False, tables=False).scenarios[0]
    assert scenario.measures["gdu"].value == 1.0 and scenario.measures["ldu_biv"].by_pair == {"y|z": 1.0}
    assert scenario.measures["ldu_biv"].details["not_computed"]["x|y"] == \
        "x has no value of positive weight in the original file"
