"""Safe analyses beside the safe tables of the same JSON (infoloss/safe_analyses.py).

The hand-built file: region A (40 records: 20 f, 20 m), Y (30: 24 f, 6 m), X (12: 4 f, 8 m), D (2: 1 f,
1 m).  The safe one-way table of region merges D (2 records) and X, the next smallest, into "other"; its
two-way table with sex shows every cell (A, Y and "other" per sex, none below 5).  The analyses' own partner
of D in sex=m is Y, the smallest category there (6 records), whose cell the table shows: before, X | m was
shown, and D | m came back as 1 − A | m − X | m − Y | m, Y | m being 6/35 from the table.  Income is missing
in 24 of Y's records, so the analyses' smallest domain beside D is Y (6 values), not X, the one the table
merged D with: before, X's n was shown and D's came back as "other" (14) less X's 12.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss.safe_analyses import _line_partners

SPEC = {
    "variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"},
                  "income": {"scale": "continuous"}},
    "analyses": {"estimates": [{"statistic": "proportion", "variable": "region", "by": ["sex"]},
                               {"statistic": "proportion", "variable": "region"},
                               {"statistic": "mean", "variable": "income", "by": ["region"]}]},
}


@pytest.fixture(scope="module")
def safe():
    parts = [("A", "f", 20), ("A", "m", 20), ("Y", "f", 24), ("Y", "m", 6), ("X", "f", 4), ("X", "m", 8), ("D", "f", 1),
             ("D", "m", 1)]
    df = pd.DataFrame([(r, s) for r, s, k in parts for _ in range(k)], columns=["region", "sex"])
    df["income"] = np.random.default_rng(3).lognormal(10, 0.5, len(df)).round()
    df.loc[df.index[df.region == "Y"][:24], "income"] = np.nan
    report = infoloss.compare(df, df.copy(), SPEC, measures=["estimate_ci_overlap"])
    return report.to_dict(safe=True, min_cell=5)["scenarios"][0]


def _rows(scenario, estimate):
    return [r for r in scenario["analyses"]["estimates"] if r["estimate"] == estimate]


def test_the_fixture_is_what_the_docstring_says(safe):
    one_way = safe["tables"]["one_way"]["region"]
    assert one_way["categories"] == ["A", "Y", "other (categories merged, min. cell 5)"]
    assert one_way["original"]["count"] == [40, 30, 14]
    assert safe["tables"]["two_way"]["region|sex"]["original"]["count"] == [[20, 20], [24, 6], [5, 9]]


def test_no_proportion_of_a_category_the_tables_merge_is_shown(safe):
    for row in _rows(safe, "proportion(region)"):
        if row["category"] not in ("A", "Y"):  # X, and D under its placeholder
            assert row["original"]["value"] is None and row["protected"]["value"] is None, row["key"]


def test_no_proportion_of_a_cell_the_two_way_table_suppresses_is_shown(safe):
    table = safe["tables"]["two_way"]["region|sex"]
    for row in _rows(safe, "proportion(region)"):
        if row["domain"] == "all" or row["category"] not in table["rows"]:
            continue
        sex = row["domain"].split("=")[1]
        if table["original"]["count"][table["rows"].index(row["category"])][table["columns"].index(sex)] is None:
            assert row["original"]["value"] is None, row["key"]


def test_the_one_record_category_of_a_domain_does_not_come_back(safe):
    table = safe["tables"]["two_way"]["region|sex"]
    m_total = sum(row[1] for row in table["original"]["count"])
    rows = [r for r in _rows(safe, "proportion(region)") if r["domain"] == "sex=m"]
    shown = sum(r["original"]["value"] for r in rows if r["original"]["value"] is not None)
    # the withheld ones the table shows: their cell over the domain's records
    from_table = sum(table["original"]["count"][table["rows"].index(r["category"])][1] / m_total
                     for r in rows if r["original"]["value"] is None and r["category"] in table["rows"])
    rest = [r["category"] for r in rows if r["original"]["value"] is None and r["category"] not in table["rows"]]
    assert len(rest) >= 2, f"1 − {shown:.3f} − {from_table:.3f} would be the proportion of {rest}"


def test_a_withheld_domain_merged_in_the_tables_has_a_merged_partner(safe):
    rows = {r["domain"]: r for r in _rows(safe, "mean(income)")}
    assert rows["region=X"]["original"]["n"] is None  # D's n is 14 (the tables' "other") less X's
    assert rows["region=Y"]["original"]["n"] is not None or rows["region=A"]["original"]["n"] is not None


def test_line_partners_join_the_smallest_shown_parts_of_each_known_sum():
    units = {"a": 2, "b": 30, "c": 9, "d": 40, "e": 0}
    assert _line_partners(units, {"a"}, [["a", "b", "c"], ["c", "d"]], 5) == {"c", "d"}
    assert _line_partners(units, {"e"}, [["e", "b"]], 5) == set()  # an empty part withheld discloses nothing
    assert _line_partners(units, {"a", "c"}, [["a", "b", "c"]], 5) == set()
    assert _line_partners(units, {"a"}, [["a"]], 5) == set()  # nothing to join


def test_an_arpr_of_one_poor_record_is_withheld_like_the_proportion():
    rng = np.random.default_rng(1)
    income = rng.normal(1000, 50, 400)
    income[0] = 100.0  # the one record below 60 % of the median, in domain a
    df = pd.DataFrame({"inc": income, "g": np.where(np.arange(400) < 200, "a", "b")})
    spec = {"variables": {"inc": {"scale": "continuous"}, "g": {"scale": "nominal"}},
            "analyses": {"estimates": [{"statistic": "arpr", "variable": "inc", "by": "g"}],
                         "ci": {"replicates": 20, "seed": 1}}}
    report = infoloss.compare(df, df.copy(), spec, measures=["estimate_ci_overlap"])
    full = {r["domain"]: r for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    assert full["g=a"]["original"]["value"] == pytest.approx(0.5)  # 1 record of 200, in percent
    safe = {r["domain"]: r for r in report.to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]}
    assert safe["g=a"]["original"]["value"] is None and safe["g=a"]["original"]["lower"] is None
    assert safe["g=b"]["original"]["value"] == 0.0  # no poor record: nothing to hide


def test_a_gini_over_few_records_away_from_the_common_value_is_withheld():
    # an amount that is 0 but for 2 records: its Gini coefficient gives the two amounts' shares of their total
    amount = np.zeros(200)
    amount[[5, 17]] = [700.0, 1300.0]
    df = pd.DataFrame({"amount": amount, "income": np.random.default_rng(2).lognormal(10, 0.5, 200)})
    spec = {"variables": {"amount": {"scale": "continuous"}, "income": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": "gini", "variable": "amount"},
                                       {"statistic": "gini", "variable": "income"}],
                         "ci": {"replicates": 20, "seed": 1}}}
    report = infoloss.compare(df, df.copy(), spec, measures=["estimate_ci_overlap"])
    full = {r["estimate"]: r for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    assert full["gini(amount)"]["original"]["off_mode"] == 2
    # laeken's Gini in percent: 100 · (2 Σ i x_(i) / (n Σ x) − (n + 1)/n) over the sorted values
    x = np.sort(amount)
    expected = 100 * (2 * np.sum(np.arange(1, 201) * x) / (200 * x.sum()) - 201 / 200)
    assert full["gini(amount)"]["original"]["value"] == pytest.approx(expected)
    safe = {r["estimate"]: r for r in report.to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]}
    assert safe["gini(amount)"]["original"]["value"] is None
    assert safe["gini(income)"]["original"]["value"] is not None


def test_a_regression_of_a_response_that_is_constant_but_for_few_records_is_withheld():
    # bonus is 0 but for 2 records: bonus ~ C(region) gives their regions' means, i.e. their amounts
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"region": rng.choice(list("ABC"), 300), "x": rng.normal(size=300)})
    df["bonus"] = 0.0
    df.loc[[3, 7], "bonus"] = [500.0, 900.0]
    spec = {"variables": {"region": {"scale": "nominal"}, "x": {"scale": "continuous"},
                          "bonus": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "r", "formula": "bonus ~ C(region)"},
                                         {"name": "s", "formula": "x ~ C(region)"}]}}
    report = infoloss.compare(df, df.copy(), spec, measures=["regression_ci_overlap"])
    full = report.to_dict()["scenarios"][0]["analyses"]["regressions"]
    assert full[0]["original"]["off_mode"] == 2 and full[1]["original"]["off_mode"] == 299
    safe = report.to_dict(safe=True)["scenarios"][0]["analyses"]["regressions"]
    assert all(c["original"]["estimate"] is None and c["protected"]["estimate"] is None
               for c in safe[0]["coefficients"])
    assert safe[0]["original"]["r2"] is None and "off_mode" not in safe[0]["original"]
    assert all(c["original"]["estimate"] is not None for c in safe[1]["coefficients"])
    assert "off_mode" not in safe[1]["original"]


def test_contrasts_with_a_one_record_reference_keep_their_large_categories_names():
    rng = np.random.default_rng(5)
    # the reference, first in order, holds 1 record; the safe tables merge it with zookeeper, the next smallest
    occ = np.array(["astronaut"] + ["clerk"] * 150 + ["farmer"] * 139 + ["zookeeper"] * 10)
    df = pd.DataFrame({"occ": occ, "y": rng.normal(size=300)})
    spec = {"variables": {"occ": {"scale": "nominal", "role": "key"}, "y": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "r", "formula": "y ~ C(occ)"}]}}
    report = infoloss.compare(df, df.copy(), spec, measures=["regression_ci_overlap"])
    coefficients = report.to_dict(safe=True)["scenarios"][0]["analyses"]["regressions"][0]["coefficients"]
    names = [c["name"] for c in coefficients]
    # a category the tables name keeps its name; zookeeper, which they merge, is not named
    assert names == ["Intercept", "C(occ)[T.clerk]", "C(occ)[T.farmer]", "C(occ)[a category not named in safe mode, 1]"]
    assert all(c["original"]["estimate"] is None for c in coefficients)
    assert all("a contrast with C(occ)'s reference category, of fewer than 5 records; to publish them, write the "
               "factor with a larger reference category: C(occ, Treatment('<category>'))" in c["note"]
               for c in coefficients)
    # done so, the contrasts are published
    spec["analyses"]["regressions"][0]["formula"] = "y ~ C(occ, Treatment('clerk'))"
    report = infoloss.compare(df, df.copy(), spec, measures=["regression_ci_overlap"])
    coefficients = report.to_dict(safe=True)["scenarios"][0]["analyses"]["regressions"][0]["coefficients"]
    published = {c["name"]: c["original"]["estimate"] is not None for c in coefficients}
    assert published["Intercept"] and published["C(occ, Treatment('clerk'))[T.farmer]"]


def _region_sex_income(counts, seed=0):
    df = pd.DataFrame([k for k, n in counts.items() for _ in range(n)], columns=["region", "sex"])
    df["income"] = np.random.default_rng(seed).lognormal(10, .5, len(df)).round()
    return df


REGION_SEX = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"},
                            "income": {"scale": "continuous"}}}


def test_a_domain_the_tables_merge_for_a_few_suppressed_values_does_not_show_them_by_its_n():
    # region C lost 3 values to suppression (A lost 8): the tables merge C; its n 19 -> 16 gave the 3 back
    df = _region_sex_income({("A", "f"): 60, ("B", "m"): 40, ("C", "f"): 19, ("D", "m"): 30}, seed=1)
    prot = df.copy()
    prot.loc[df.index[df.region == "C"][:3], "region"] = np.nan
    prot.loc[df.index[df.region == "A"][:8], "region"] = np.nan
    spec = {**REGION_SEX, "analyses": {"estimates": [{"statistic": "mean", "variable": "income", "by": ["region"]}]}}
    s = infoloss.compare(df, prot, spec, measures=["estimate_ci_overlap"]).to_dict(safe=True)["scenarios"][0]
    assert "C" not in s["tables"]["one_way"]["region"]["categories"]
    for r in s["analyses"]["estimates"]:
        o, p = r["original"]["n"], r["protected"]["n"]
        assert o is None or p is None or not 0 < abs(o - p) < 5, r["domain"]


def test_a_merged_two_way_cell_less_the_domains_shown_gives_no_domain_back():
    counts = {("A", "f"): 6, ("A", "m"): 3, ("B", "f"): 6, ("B", "m"): 7, ("B", "x"): 2, ("C", "f"): 39,
              ("C", "m"): 38, ("C", "x"): 3, ("D", "f"): 3, ("D", "m"): 6, ("E", "f"): 8, ("E", "m"): 7,
              ("F", "f"): 17, ("F", "m"): 18, ("F", "x"): 5, ("G", "f"): 2, ("G", "m"): 1}
    df = _region_sex_income(counts)
    prot = df.copy()
    for (reg, sx), k in {("A", "f"): 1, ("B", "f"): 2, ("C", "f"): 4, ("C", "m"): 1, ("E", "f"): 1,
                         ("F", "f"): 2}.items():
        prot.loc[df.index[(df.region == reg) & (df.sex == sx)][:k], "region"] = np.nan
    spec = {**REGION_SEX, "analyses": {"estimates": [{"statistic": "mean", "variable": "income",
                                                       "by": ["region", "sex"]}]}}
    s = infoloss.compare(df, prot, spec, measures=["estimate_ci_overlap"]).to_dict(safe=True)["scenarios"][0]
    table = s["tables"]["two_way"]["region|sex"]
    merged = [c for c in "ABCDEFG" if c not in table["rows"]]
    other = next(i for i, r in enumerate(table["rows"]) if r.startswith("other"))
    for j, sex in enumerate(table["columns"]):
        cell = table["original"]["count"][other][j]
        rows = [r for r in s["analyses"]["estimates"] if r["domain"].endswith(f", sex={sex}")
                and (r["domain"][len("region="):].split(",")[0] in merged or r["domain"].startswith("region=("))]
        hidden = [r for r in rows if r["original"]["n"] is None]
        if cell is not None and hidden:
            assert len(hidden) >= 2 and cell - sum(r["original"]["n"] for r in rows if r not in hidden) >= 5


def test_a_numeric_term_at_0_on_a_few_records_withholds_the_intercept_their_mean():
    # np.where(big, 0, 1) is 0 on one record: the intercept is that record's y (its value 90,000 came back at 3
    # significant digits), and the term's coefficient its difference from the others' mean
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"y": rng.normal(1000, 50, 200).round(), "x": rng.normal(size=200)})
    df.loc[17, "y"] = 90_000.0
    spec = {"variables": {"y": {"scale": "continuous"}, "x": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "r", "formula": "y ~ np.where(y > 50000, 0, 1)"},
                                         {"name": "s", "formula": "y ~ np.where(y > 50000, 1, 0) + x"}]}}
    report = infoloss.compare(df, df.copy(), spec, measures=["regression_ci_overlap"])
    r, s = report.to_dict()["scenarios"][0]["analyses"]["regressions"]
    intercept, term = r["coefficients"]
    assert intercept["original"]["estimate"] == pytest.approx(90_000.0)  # the full JSON: that record's value
    assert intercept["original"]["n_records"] == 1 and term["original"]["n_records"] == 1
    # coded the usual way (1 on the record), the intercept is the other 199 records' mean: kept; x rests on all
    assert [c["original"]["n_records"] for c in s["coefficients"]] == [200, 1, 200]
    safe_r, safe_s = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["regressions"]
    assert all(c["original"]["estimate"] is None for c in safe_r["coefficients"])
    assert [c["original"]["estimate"] is None for c in safe_s["coefficients"]] == [False, True, False]


def test_a_category_absent_from_the_protected_file_is_not_called_rare():
    # region D has 30 original records and none in the protected file: its original coefficient is shown, named
    df = _region_sex_income({("A", "f"): 60, ("B", "m"): 40, ("D", "m"): 30}, seed=2)
    prot = df[df.region != "D"].reset_index(drop=True)
    spec = {**REGION_SEX, "pairing": "none",
            "analyses": {"regressions": [{"name": "r", "formula": "income ~ C(region)"}]}}
    report = infoloss.compare(df, prot, spec, measures=["regression_ci_overlap"])
    coefficients = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["regressions"][0]["coefficients"]
    d = next(c for c in coefficients if "D" in c["name"])
    assert d["name"] == "C(region)[T.D]"
    assert d["original"]["estimate"] is not None
    assert "fewer than" not in (d.get("note") or "")


def test_a_quintile_share_ratio_of_a_domain_whose_fifths_hold_few_records_is_withheld():
    # 12 records: each fifth holds 2.4 records (the top two values over the bottom two); 40 records: 8 per fifth
    df = _region_sex_income({("A", "f"): 40, ("B", "m"): 12, ("D", "m"): 60}, seed=4)
    spec = {**REGION_SEX, "analyses": {"estimates": [{"statistic": "qsr", "variable": "income", "by": ["region"]}]}}
    report = infoloss.compare(df, df.copy(), spec, measures=["estimate_ci_overlap"])
    full = {r["domain"]: r for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    safe = {r["domain"]: r for r in report.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["estimates"]}
    assert all(full[d]["original"]["value"] is not None for d in full)
    shown = {d: safe[d]["original"]["value"] is not None for d in safe}
    assert shown == {d: "B" not in d for d in safe}


def test_a_category_the_tables_name_keeps_its_name_in_small_domains():
    # D has 6 records, 3 per sex: every domain of the estimate holding it is small, but the safe tables list D
    df = _region_sex_income({("A", "f"): 40, ("A", "m"): 40, ("D", "f"): 3, ("D", "m"): 3}, seed=5)
    spec = {**REGION_SEX, "analyses": {"estimates": [{"statistic": "mean", "variable": "income",
                                                      "by": ["region", "sex"]}]}}
    report = infoloss.compare(df, df.copy(), spec, measures=["estimate_ci_overlap"])
    scenario = report.to_dict(safe=True, min_cell=5)["scenarios"][0]
    assert "D" in scenario["tables"]["one_way"]["region"]["categories"]
    rows = {r["domain"]: r for r in scenario["analyses"]["estimates"]}
    assert set(rows) == {"region=A, sex=f", "region=A, sex=m", "region=D, sex=f", "region=D, sex=m"}
    assert rows["region=D, sex=f"]["original"]["value"] is None and rows["region=D, sex=m"]["original"]["value"] is None


def test_a_regression_on_a_few_records_does_not_count_them_in_its_notes():
    # "the original file has 3 complete records for 3 coefficients" in the safe JSON's notes and not_computed, and
    # "fewer than 2 records" became "fewer than fewer than 5" (found by the safe-mode audit)
    import json

    from infoloss.report.safe import _small_counts

    rng = np.random.default_rng(8)
    n = 300
    df = pd.DataFrame({"income": rng.lognormal(10, 0.5, n), "hours": rng.normal(40, 5, n),
                       "sex": rng.choice(["f", "m"], n), "age": rng.integers(18, 76, n).astype(float)})
    df.loc[[10, 20, 30], "age"] = [85.0, 88.0, 90.0]
    spec = {"variables": {"income": {"scale": "continuous"}, "hours": {"scale": "continuous"},
                          "sex": {"scale": "nominal"}, "age": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "old", "formula": "np.log(income) ~ hours + C(sex) + age",
                                          "where": "age > 80"}]}}
    report = infoloss.compare(df, [df.copy()], spec, measures=["regression_ci_overlap"])
    assert "has 3 complete records" in " ".join(report.to_dict()["scenarios"][0]["analyses"]["regressions"][0]["notes"])
    text = report.to_json(safe=True, min_cell=5)
    assert "3 complete records" not in text and "fewer than 5 complete records" in text
    assert "3 complete records" not in report.to_html(safe=True)
    safe = json.loads(text)["scenarios"][0]
    assert "fewer than 5 complete records" in safe["not_computed"]["regression_ci_overlap"]
    assert _small_counts("fewer than 2 records have a value; it needs at least 3 values", 5) == \
        "fewer than 2 records have a value; it needs at least 3 values"


def test_a_weighted_quantile_that_is_the_minimum_is_withheld():
    # with one record of a large weight, the 2 % quantile was the file's minimum; min(p, 1 - p) * n said 6 records
    # lay beyond it (found by the safe-mode audit)
    rng = np.random.default_rng(9)
    n = 300
    df = pd.DataFrame({"income": rng.lognormal(9, 0.4, n).round(0) + 7000, "w": rng.uniform(50, 150, n)})
    low = int(df["income"].idxmin())
    df.loc[low, "w"] = 1500.0
    spec = {"variables": {"income": {"scale": "continuous"}, "w": {"role": "weight"}},
            "analyses": {"estimates": [{"statistic": "quantile", "variable": "income", "p": [0.02, 0.5]}],
                         "ci": {"replicates": 40}}}
    report = infoloss.compare(df, [df.copy()], spec, measures=["estimate_ci_overlap"])
    rows = {r["key"]: r for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    assert rows["quantile(income, 0.02) | all"]["original"]["value"] == df["income"].min()
    safe = {r["key"]: r for r in report.to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]}
    assert safe["quantile(income, 0.02) | all"]["original"]["value"] is None
    assert safe["quantile(income, 0.5) | all"]["original"]["value"] is not None
    assert "n_beyond" not in safe["quantile(income, 0.5) | all"]["original"]
