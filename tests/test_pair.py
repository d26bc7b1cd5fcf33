"""The encoded pair: shared codes, float arrays, weights, pairing and its errors."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infoloss.errors import InputError, NotComputed, SpecError
from infoloss.pair import ORIGINAL, PROTECTED, encode_pair
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"

SPEC = {
    "variables": {
        "g": {"scale": "nominal"},
        "o": {"scale": "ordinal"},
        "x": {"scale": "continuous"},
        "w": {"role": "weight"},
        "id": {"role": "id"},
    }
}


def frames():
    orig = pd.DataFrame(
        {"g": ["a", "b", "a", "c"], "o": [1, 2, 3, 2], "x": [1.0, 2.0, np.nan, 4.0], "w": [1.0, 2.0, 3.0, 4.0], "id": [10, 11, 12, 13]}
    )
    prot = pd.DataFrame(
        {"g": ["a", "d", None, "c"], "o": [1.0, 2.0, 3.0, 9.0], "x": [1.5, 2.0, 3.0, np.nan], "w": [1.0, 2.0, 3.0, 4.0], "id": [10, 11, 12, 13]}
    )
    return orig, prot


def test_shared_category_codes():
    pair = encode_pair(*frames(), SPEC)
    g = pair.categorical["g"]
    assert g.categories == ["a", "b", "c", "d"]  # "d" exists only in the protected file
    assert g.orig.tolist() == [0, 1, 0, 2]
    assert g.prot.tolist() == [0, 3, -1, 2]
    o = pair.categorical["o"]
    assert o.categories == ["1", "2", "3", "9"]  # 2 and 2.0 are one category, numeric order
    assert o.orig.tolist() == [0, 1, 2, 1] and o.prot.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(pair.continuous["x"].prot, [1.5, 2.0, 3.0, np.nan])
    assert pair.names() == ["g", "o", "x"] and pair.paired


def test_tables_count_missing_in_the_last_cell_and_use_weights():
    pair = encode_pair(*frames(), SPEC)
    assert pair.table("g", "prot").tolist() == [1, 0, 1, 1, 1]
    assert pair.table("g", "orig", weighted=True).tolist() == [4.0, 2.0, 4.0, 0.0, 0.0]
    two = pair.table(("g", "o"), "orig")
    assert two.shape == (5, 5) and two.sum() == 4 and two[0, 0] == 1 and two[0, 2] == 1


def test_ranks_are_average_ranks_with_nan_for_missing():
    pair = encode_pair(*frames(), SPEC)
    np.testing.assert_array_equal(pair.ranks("x", "orig"), [1.0, 2.0, np.nan, 3.0])
    np.testing.assert_array_equal(pair.ranks("o", "orig"), [1.0, 2.5, 4.0, 2.5])


def test_missing_codes_become_missing():
    orig = pd.DataFrame({"g": ["a", "-9", "b"], "x": [1.0, -99.0, 3.0]})
    prot = pd.DataFrame({"g": ["a", "b", "NA"], "x": [1.0, 2.0, -98.0]})
    spec = {"variables": {"g": {"scale": "nominal", "missing": ["-9"]}, "x": {"scale": "continuous", "missing": [-99, -98]}}}
    pair = encode_pair(orig, prot, spec)
    assert pair.categorical["g"].categories == ["a", "b"]
    assert pair.categorical["g"].orig.tolist() == [0, -1, 1]
    assert pair.categorical["g"].prot.tolist() == [0, 1, -1]  # "NA" is a global missing code
    assert np.isnan(pair.continuous["x"].orig[1]) and np.isnan(pair.continuous["x"].prot[2])


def test_pairing_by_id_reorders_the_protected_file():
    orig, prot = frames()
    spec = dict(SPEC, pairing={"by": "id"})
    shuffled = prot.iloc[[2, 0, 3, 1]].reset_index(drop=True)
    a, b = encode_pair(orig, prot, spec), encode_pair(orig, shuffled, spec)
    assert a.categorical["g"].prot.tolist() == b.categorical["g"].prot.tolist()
    np.testing.assert_array_equal(a.continuous["x"].prot, b.continuous["x"].prot)


@settings(max_examples=30, deadline=None)
@given(st.permutations(list(range(6))))
def test_row_order_does_not_matter_when_pairing_by_id(perm):
    from infoloss.measures import record  # noqa: F401  (registers the measures)
    from infoloss.registry import REGISTRY

    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"id": np.arange(6), "x": rng.normal(size=6), "g": list("aabbcc")})
    prot = pd.DataFrame({"id": np.arange(6), "x": orig.x + rng.normal(size=6), "g": list("abbbcc")})
    spec = {"variables": {"id": {"role": "id"}, "x": {"scale": "continuous"}, "g": {"scale": "nominal"}}, "pairing": {"by": "id"}}
    base = encode_pair(orig, prot, spec)
    moved = encode_pair(orig, prot.iloc[list(perm)].reset_index(drop=True), spec)
    for mid in ("il1s", "records_changed", "lambda", "categorical_distance"):
        f = REGISTRY[mid].func
        assert f(base).value == pytest.approx(f(moved).value, rel=1e-12)


def test_pairing_none_allows_different_sizes():
    orig, prot = frames()
    pair = encode_pair(orig, prot.iloc[:2], dict(SPEC, pairing="none"))
    assert not pair.paired and (pair.n_orig, pair.n_prot) == (4, 2)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda o, p: (o, p.iloc[:3]), "have 4 and 3 records, so they cannot be paired by row"),
        (lambda o, p: (o, p.drop(columns="g")), "'g' is not a column of the protected file; if it was removed"),
        (lambda o, p: (o.drop(columns="x"), p), "'x' of the spec is not a column of the original file"),
        (lambda o, p: (o, p.assign(x=["a", "b", "c", "d"])), "'x' is continuous in the spec but the protected file has the text value 'a'"),
        (lambda o, p: (o, p.assign(x=[1.0, "2,5", 3.0, 4.0])), "the protected file writes its numbers with a decimal comma"),
        (lambda o, p: (o.assign(x=["1", "b", "c", "d"]), p.assign(x=["1", "b", "c", "d"])), "'x' is continuous in the spec but the original file has the text value 'b'"),
        (lambda o, p: (o, p.assign(o=["a", "b", "c", "d"])), "'o' holds numbers in the original file but text in the protected file"),
        (lambda o, p: (o.assign(w=[1.0, -1.0, 1.0, 1.0]), p), "weight column 'w' of the original file has 1 negative value;"),
        (lambda o, p: (o.assign(w=[1.0, np.nan, 1.0, 1.0]), p), "weight column 'w' of the original file has 1 missing or non-numeric value;"),
        # weights whose sums of squares overflow or underflow (a ctbil of NaN, found by fuzzing)
        (lambda o, p: (o.assign(w=1e308), p), "weight column 'w' of the original file has weights from 1e\\+308 to 1e\\+308"),
        (lambda o, p: (o, p.assign(w=[1e-320, 1.0, 0.0, 1.0])), "weight column 'w' of the protected file has weights from 1e-320 to 1, more than 200 orders of magnitude apart"),
        # every weight 0 (or -0.0): nothing in the file counts (sklearn's ValueError, found by fuzzing)
        (lambda o, p: (o.assign(w=0.0), p.assign(w=0.0)), "weight column 'w' of the original file has no positive weight"),
        (lambda o, p: (o, p.assign(w=-0.0)), "weight column 'w' of the protected file has no positive weight"),
        (lambda o, p: (o.assign(x=np.nan), p), "'x' is missing in every record of the original file"),
        (lambda o, p: (o, p.iloc[:0]), "the protected file has no records"),
        (lambda o, p: (o.iloc[:0], p), "the original file has no records"),
    ],
)
def test_bad_input_is_a_clear_error(change, message):
    orig, prot = change(*frames())
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        encode_pair(orig, prot, SPEC)


def test_id_pairing_errors():
    orig, prot = frames()
    spec = dict(SPEC, pairing={"by": "id"})
    with pytest.raises(InputError, match=r"duplicate ids \(e.g. 10\)"):
        encode_pair(orig, prot.assign(id=[10, 10, 12, 13]), spec)
    with pytest.raises(InputError, match="1 original id is not in the protected file and 1 protected id is not"):
        encode_pair(orig, prot.assign(id=[10, 11, 12, 99]), spec)


def test_ordinal_order_must_cover_the_data():
    orig, prot = frames()
    spec = {"variables": {"o": {"scale": "ordinal", "order": [1, 2, 3]}}}
    with pytest.raises(SpecError, match="'order' of ordinal variable 'o' misses categories present in the data: '9'"):
        encode_pair(orig, prot, spec)
    spec["variables"]["o"]["order"] = [3, 2, 1, 9]
    pair = encode_pair(orig, prot, spec)
    assert pair.categorical["o"].orig.tolist() == [2, 1, 0, 1]


def test_removed_variable():
    orig, prot = frames()
    spec = {"variables": {"g": {"scale": "nominal", "removed": True}, "x": {"scale": "continuous"}}}
    pair = encode_pair(orig, prot.drop(columns="g"), spec)
    assert pair.names() == ["x"] and pair.removed == ["g"]
    assert pair.categorical["g"].prot is None


def test_recode_views():
    orig = pd.DataFrame({"age": [3, 15, 27, 44], "g": ["a", "b", "c", "a"]})
    prot = pd.DataFrame({"age": [0, 10, 20, 40], "g": ["ab", "ab", "c", "ab"]})
    spec = {
        "variables": {
            "age": {"scale": "continuous", "recode": {"breaks": [0, 10, 20, 30, 50]}},
            "g": {"scale": "nominal", "recode": {"map": {"a": "ab", "b": "ab", "c": "c"}}},
        }
    }
    pair = encode_pair(orig, prot, spec)
    age = pair.recoded("age")
    assert age.categories == ["[0, 10)", "[10, 20)", "[20, 30)", "[30, 50)"]
    assert age.orig.tolist() == [0, 1, 2, 3] and age.prot.tolist() == [0, 1, 2, 3]
    g = pair.recoded("g")
    assert g.categories == ["ab", "c"] and g.orig.tolist() == [0, 0, 1, 0] and g.prot.tolist() == [0, 0, 1, 0]
    spec["variables"]["g"]["recode"] = {"map": {"a": "ab", "b": "ab"}}
    spec["variables"]["age"]["recode"] = {"breaks": [0, 10, 20, 30]}
    pair = encode_pair(orig, prot, spec)
    g = pair.recoded("g")  # a category the map does not list stays as it is (the map merges a and b only)
    assert g.categories == ["ab", "c"] and g.orig.tolist() == [0, 0, 1, 0] and g.prot.tolist() == [0, 0, 1, 0]
    with pytest.raises(NotComputed, match="do not cover the original values"):
        pair.recoded("age")


def test_testdata_encodes_with_its_spec():
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    prot = pd.read_csv(DATA / "testdata" / "ls_k3.csv")
    pair = encode_pair(orig, prot, spec)
    # the README: new missing values per column roof 14, walls 4, water 40, electcon 6, relat 229
    newly_missing = {n: int(((c.orig >= 0) & (c.prot < 0)).sum()) for n, c in pair.categorical.items()}
    assert {n: v for n, v in newly_missing.items() if v} == {"roof": 14, "walls": 4, "water": 40, "electcon": 6, "relat": 229}
    np.testing.assert_array_equal(pair.weights_orig, orig["sampling_weight"].to_numpy(float))


def test_the_original_is_converted_once_for_several_scenarios():
    orig, prot = frames()
    cache: dict = {}
    a = encode_pair(orig, prot, SPEC, original_cache=cache)
    b = encode_pair(orig, prot.assign(g=["z", "a", "b", "c"]), SPEC, original_cache=cache)
    assert a.continuous["x"].orig is b.continuous["x"].orig
    # categories still follow each protected file: "z" exists only in the second scenario
    assert b.categorical["g"].categories == ["a", "b", "c", "z"] and b.categorical["g"].orig.tolist() == [0, 1, 0, 2]


def test_the_scenarios_of_one_compare_share_the_originals_codes_and_tables(monkeypatch):
    """The original's category codes and frequency tables are built once while the protected files give the
    same categories, again for a protected file that adds one; every result equals the scenario alone."""
    import infoloss
    from infoloss.pair import EncodedPair
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(700, n_continuous=2, n_categorical=3, seed=6)
    spec = make_spec(df)
    nominal = next(n for n, v in spec["variables"].items() if v.get("scale") == "nominal")
    same = [protect(df, noise=0.1, pram=0.1 * (k + 1), seed=2 + k) for k in range(2)]
    added = same[1].copy()
    added[nominal] = added[nominal].astype(object)
    added.loc[added.index[:5], nominal] = "a category the original lacks"
    built = []
    real = EncodedPair._table
    monkeypatch.setattr(EncodedPair, "_table", lambda self, names, which, w: built.append((names, which, w is not None))
                        or real(self, names, which, w))
    ids = ["ctbil", "cramers_v_il", "ebil"]
    prots = [*same, added]
    together = infoloss.compare(df, prots, spec, measures=ids)
    original = [b for b in built if b[1] == ORIGINAL]
    protected = [b for b in built if b[1] == PROTECTED]
    assert len(protected) == 3 * len(set(protected))
    # the third protected file adds a category: the original's tables with that variable are built again
    with_nominal = [b for b in set(original) if nominal in b[0]]
    assert with_nominal and len(original) == len(set(original)) + len(with_nominal)
    for scenario, prot in zip(together.scenarios, prots):
        alone = infoloss.compare(df, prot, spec, measures=ids).scenarios[0]
        for mid in ids:
            assert scenario.measures[mid].value == alone.measures[mid].value
            assert scenario.measures[mid].details == alone.measures[mid].details


@pytest.mark.parametrize(
    "col",
    [
        pd.Series(["1", "2", None, "2.0", " 3 "], dtype=object),
        pd.Series(["a", "1", None, "b"], dtype="str"),
        pd.Series(["-99", "-99.0", " -99 ", None]),  # only missing codes, written three ways
        pd.Series(["-99", "4", "5", "6"]),
        pd.Series(pd.Categorical(["x", None, "y"], categories=["x", "y", "z"])),
        pd.Series(pd.Categorical([1, 2, 2], categories=[1, 2, 3])),
        pd.Series([True, False, None], dtype=object),
        pd.Series([None, None], dtype=object),
    ],
)
def test_the_kind_of_a_column_from_its_factorisation_is_the_kind_from_its_values(col):
    from infoloss.pair import _factorize, _value_kind
    from infoloss.spec import VariableSpec

    missing = {"-99", "NA"}
    distinct = _factorize(VariableSpec("v", "nominal"), col, missing)[2]
    assert _value_kind(col, missing, distinct) == _value_kind(col, missing)


@pytest.mark.parametrize(
    "distinct",
    [["1", "2", "2.0", " 3 "], ["a", "1"], ["-99", "-99.0", " -99 "], ["*", "**", "4"], ["*"], [1, "2"],
     [True, "1"], [1.0, "x"], ["1e5", "inf"], ["nan", "1"], ["NA", "-99"]],
)
def test_the_remembered_kind_of_a_set_of_values_is_the_kind_found_from_them(distinct):
    # the kind of a few distinct values is remembered for the next column that has them (a survey's 3,000 questions
    # share their answers: 3.7 s of pandas calls); it must be what _text_kind finds, whatever the values' order
    from infoloss.pair import _memo_text_kind, _text_kind, _value_kind

    missing = {"-99", "NA"}
    col = pd.Series(distinct, dtype=object)
    _memo_text_kind.cache_clear()
    assert _value_kind(col, missing, distinct) == _text_kind(distinct, missing)
    assert _value_kind(col, missing, distinct[::-1]) == _text_kind(distinct, missing)
    assert _memo_text_kind.cache_info().hits == 1


def test_values_equal_as_keys_but_read_differently_are_remembered_apart():
    # 1, 1.0 and True are equal dictionary keys, but read as text they are "1", "1.0" and "True"
    from infoloss.pair import _memo_text_kind, _value_kind

    _memo_text_kind.cache_clear()
    assert _value_kind(pd.Series([1], dtype=object), set(), [1]) is True
    assert _value_kind(pd.Series([True], dtype=object), set(), [True]) is False


def test_columns_with_the_same_answers_find_their_kind_once(monkeypatch):
    import infoloss.pair as pair_module

    calls = []
    real = pair_module._text_kind
    monkeypatch.setattr(pair_module, "_text_kind", lambda d, m: calls.append(1) or real(d, m))
    pair_module._memo_text_kind.cache_clear()
    answers = ["yes", "no", "don't know"]
    o = pd.DataFrame({f"q{i}": [answers[(i + j) % 3] for j in range(9)] for i in range(40)})
    p = o.copy()
    p["q0"] = "yes"
    spec = {"variables": {name: {"scale": "nominal"} for name in o.columns}}
    pair = encode_pair(o, p, spec)
    assert len(calls) == 2  # all three answers (every column of the original, 39 of the protected), and q0's "yes"
    assert pair.categorical["q5"].categories == sorted(answers)


def test_dates_and_durations_are_days_and_nat_is_missing():
    # a missing date (NaT) was read as the number -9.2e18 (and never counted as missing)
    from infoloss.spec import spec_from_dict

    dates = pd.Series(pd.to_datetime(["1970-01-11", "2000-03-01", None]))
    o = pd.DataFrame({"d": dates, "t": pd.to_timedelta([12, 36, None], unit="h"),
                      "z": dates.dt.tz_localize("Europe/Paris")})
    spec = spec_from_dict({"variables": {v: {"scale": "continuous"} for v in ("d", "t", "z")}})
    pair = encode_pair(o, o.copy(), spec)
    np.testing.assert_array_equal(pair.continuous["d"].orig, [10.0, (pd.Timestamp("2000-03-01") - pd.Timestamp(0)).days,
                                                              np.nan])
    np.testing.assert_array_equal(pair.continuous["t"].orig, [0.5, 1.5, np.nan])
    np.testing.assert_allclose(pair.continuous["z"].orig[:1], [10.0 - 1 / 24])  # midnight in Paris is 23:00 UTC
    assert np.isnan(pair.continuous["z"].orig[2])


def test_a_decimal_comma_is_named_as_such():
    from infoloss.spec import spec_from_dict

    o = pd.DataFrame({"x": ["79,0", "80,5", "1.234,5"]})
    spec = spec_from_dict({"variables": {"x": {"scale": "continuous"}}})
    with pytest.raises(InputError, match="writes its numbers with a decimal comma \\('79,0'\\); write them with a "
                                         "decimal point"):
        encode_pair(o, o.copy(), spec)


def test_row_pairing_refuses_records_in_another_order_by_their_ids():
    # the spec infoloss infers (an id column, pairing by row) gave il1s 0.68 instead of 0.009 for a sorted copy
    from infoloss.spec import spec_from_dict

    rng = np.random.default_rng(0)
    o = pd.DataFrame({"id": [f"p{i}" for i in range(50)], "x": rng.normal(size=50)})
    spec = spec_from_dict({"variables": {"id": {"role": "id"}, "x": {"scale": "continuous"}}, "pairing": "row"})
    encode_pair(o, o.copy(), spec)  # same order: fine
    encode_pair(o, o.assign(id=[f"q{i}" for i in range(50)]), spec)  # other ids (recoded): no sign of an order
    with pytest.raises(InputError, match="shows the protected file's records in another order .* pair them by the id"):
        encode_pair(o, o.sample(frac=1, random_state=1), spec)


def test_an_ordinal_scale_with_mixed_labels_ranks_numbers_first_for_every_measure():
    # codes 1, 2, 10 and a label x: numeric order first, then the other labels (lexically 1 < 10 < 2 < x before);
    # GDU ranked them numbers-first on its own, so its Spearman test and the ECDF measures used two orders
    from scipy import stats

    import infoloss

    rng = np.random.default_rng(0)
    labels, k = np.array(["1", "2", "10", "x"]), rng.integers(0, 4, 200)
    orig = pd.DataFrame({"g": labels[k], "y": k + rng.normal(0, 1, 200)})
    prot = orig.assign(y=orig["y"] + rng.normal(0, 0.5, 200))
    spec = {"variables": {"g": {"scale": "ordinal"}, "y": {"scale": "continuous"}}}
    assert encode_pair(orig, prot, spec).categorical["g"].categories == ["1", "2", "10", "x"]
    pair_test = infoloss.ldu_biv(orig, prot, spec).details["pairs"]["g|y"]
    assert pair_test["statistic_orig"] == pytest.approx(stats.spearmanr(k, orig["y"])[0], rel=1e-12)
    nominal = {"variables": {"g": {"scale": "nominal"}, "y": {"scale": "continuous"}}}
    assert encode_pair(orig, prot, nominal).categorical["g"].categories == ["1", "10", "2", "x"]  # unordered


def test_encode_pair_loads_a_spec_given_as_a_path_and_refuses_other_types(tmp_path):
    (tmp_path / "spec.yaml").write_text("variables:\n  x: {scale: continuous}\n")
    orig, prot = pd.DataFrame({"x": [1.0, 2.0, 3.0]}), pd.DataFrame({"x": [1.5, 2.0, 3.0]})
    for spec in (tmp_path / "spec.yaml", str(tmp_path / "spec.yaml")):
        assert encode_pair(orig, prot, spec).continuous_names == ["x"]
    with pytest.raises(SpecError, match="must be a mapping .dict., a Spec or the path of a YAML file, got list"):
        encode_pair(orig, prot, ["x"])


def test_an_ordinal_categorical_keeps_a_chosen_order_but_not_pandas_lexical_default():
    spec = {"variables": {"g": {"scale": "ordinal"}}}
    codes = pd.Series(["1", "2", "10", "2", "1"])
    default = codes.astype("category")  # pandas sorts the categories as text: 1, 10, 2
    assert encode_pair(pd.DataFrame({"g": default}), pd.DataFrame({"g": default}), spec).categorical["g"].categories \
        == ["1", "2", "10"]
    chosen = pd.Categorical(codes, categories=["10", "2", "1"], ordered=True)
    labelled = pd.Categorical(codes, categories=["2", "1", "10"])  # value labels in code order (a .sav file)
    for cat, want in ((chosen, ["10", "2", "1"]), (labelled, ["2", "1", "10"])):
        df = pd.DataFrame({"g": cat})
        assert encode_pair(df, df, spec).categorical["g"].categories == want


@pytest.mark.parametrize("form", ["object", "tz-object", "date-object", "arrow-date", "arrow-timestamp-tz",
                                  "arrow-duration", "timedelta-object"])
def test_dates_and_durations_in_any_form_are_days(form):
    import datetime as dt

    d = pd.Series(pd.date_range("2020-01-01", periods=6, freq="D"))
    td = pd.Series(pd.to_timedelta(np.arange(6), unit="D"))

    def as_form(x):
        return {"object": lambda: x.astype(object), "tz-object": lambda: x.dt.tz_localize("Europe/Paris").astype(object),
                "date-object": lambda: pd.Series([dt.date(v.year, v.month, v.day) for v in x] + [None]),
                "arrow-date": lambda: x.dt.date.astype("date32[pyarrow]"),
                "arrow-timestamp-tz": lambda: x.dt.tz_localize("UTC").astype("timestamp[us, tz=UTC][pyarrow]"),
                "arrow-duration": lambda: (x - d[0]).astype("duration[ns][pyarrow]"),
                "timedelta-object": lambda: (x - d[0]).astype(object)}[form]()

    orig, prot = as_form(d), as_form(d + pd.Timedelta(days=1))
    spec = {"variables": {"c": {"scale": "continuous"}}}
    pair = encode_pair(pd.DataFrame({"c": orig}), pd.DataFrame({"c": prot}), spec)
    x, y = pair.continuous["c"].orig, pair.continuous["c"].prot
    ok = ~np.isnan(x)
    assert ok.sum() == 6 and np.allclose(y[ok] - x[ok], 1.0)
    if form in ("object", "arrow-date", "date-object"):
        assert x[0] == (pd.Timestamp("2020-01-01") - pd.Timestamp("1970-01-01")).days


def test_a_weight_column_of_dates_is_refused():
    d = pd.Series(pd.date_range("2020-01-01", periods=4, freq="D"))
    spec = {"variables": {"x": {"scale": "continuous"}, "w": {"role": "weight"}}}
    df = pd.DataFrame({"x": [1.0, 2, 3, 4], "w": d})
    with pytest.raises(InputError, match="weight column 'w' of the original file holds dates or durations"):
        encode_pair(df, df, spec)


def test_a_recode_breaks_variable_reads_its_classes_written_as_text():
    # '[30, 45)' in the protected file was read as missing: every record counted as a suppression
    import infoloss

    rng = np.random.default_rng(0)
    breaks = [0, 15, 30, 45, 65, 120]
    orig = pd.DataFrame({"AGE": rng.integers(16, 90, 300).astype(float)})
    classes = pd.cut(orig["AGE"], breaks, right=False)
    forms = {"[a, b)": lambda c: f"[{c.left}, {c.right})", "a-b": lambda c: f"{c.left}-{c.right - 1}",
             "number": lambda c: float(c.left)}
    spec = {"variables": {"AGE": {"scale": "continuous", "recode": {"breaks": breaks}}}}
    results = {}
    for name, form in forms.items():
        prot = pd.DataFrame({"AGE": [form(c) for c in classes]})
        r = infoloss.compare(orig, prot, spec, measures=["suppressions", "ldu_uni"])
        results[name] = (r.value("suppressions"), r.value("ldu_uni"))
    assert results["[a, b)"] == results["a-b"] == results["number"] and results["number"][0] == 0
    pair = encode_pair(orig, pd.DataFrame({"AGE": [forms["[a, b)"](c) for c in classes]}), spec)
    assert np.array_equal(pair.continuous["AGE"].prot, [(c.left + c.right) / 2 for c in classes])
    with pytest.raises(InputError, match=r"has the value 'old', which is neither a number nor one of its classes"):
        encode_pair(orig, pd.DataFrame({"AGE": ["old"] + [forms["[a, b)"](c) for c in classes[1:]]}), spec)


def test_text_in_a_top_coded_or_mapped_continuous_variable_is_refused_not_read_as_missing():
    # 'recode: top' with '80+' written for the top-coded ages made the whole protected column missing: exit 0,
    # every record a suppression, il1s not computed (found by the hostile-input audit)
    import infoloss

    orig = pd.DataFrame({"age": [10.0, 20, 30, 40, 50, 85, 90]})
    spec = {"variables": {"age": {"scale": "continuous", "recode": {"top": 80}}}}
    with pytest.raises(InputError, match=r"'recode: top' but the protected file has the text value '80\+'; write "
                                         r"each top-coded value as the number it was coded to \(80\)"):
        encode_pair(orig, pd.DataFrame({"age": ["10", "20", "30", "40", "50", "80+", "80+"]}), spec)
    mapped = {"variables": {"age": {"scale": "continuous", "recode": {"map": {"85": "80", "90": "80"}}}}}
    with pytest.raises(InputError, match="has the text value 'garbage'"):
        encode_pair(orig, pd.DataFrame({"age": ["10", "20", "30", "40", "50", "garbage", "80"]}), mapped)
    coded = pd.DataFrame({"age": [10.0, 20, 30, 40, 50, 80, 80]})
    r = infoloss.compare(orig, coded, spec, measures=["suppressions", "il1s"], aggregates=False)
    assert r.value("suppressions") == 0 and r.value("il1s") > 0


def test_ids_written_as_numbers_in_one_file_and_text_in_the_other_pair():
    orig = pd.DataFrame({"id": np.arange(6), "g": list("abcabc")})
    prot = pd.DataFrame({"id": [str(i) for i in (5, 4, 3, 2, 1, 0)], "g": list("cbacba")})
    spec = {"variables": {"g": {"scale": "nominal"}, "id": {"role": "id"}}, "pairing": {"by": "id"}}
    pair = encode_pair(orig, prot, spec)
    assert np.array_equal(pair.categorical["g"].orig, pair.categorical["g"].prot)


def test_dates_in_one_file_and_numbers_in_the_other_are_refused():
    # the dates were read as days since 1970, the numbers as they are (Stata day numbers count from 1960): every
    # value "changed" and il1s was 3158 (found by the hostile-input audit)
    dates = pd.Series(pd.to_datetime(["1990-12-22", "1991-01-05", "1992-03-04"]))
    o = pd.DataFrame({"d": dates, "x": [1.0, 2.0, 3.0]})
    p = pd.DataFrame({"d": (dates - pd.Timestamp("1960-01-01")).dt.days, "x": [1.0, 2.0, 3.5]})
    spec = {"variables": {"d": {"scale": "continuous"}, "x": {"scale": "continuous"}}}
    with pytest.raises(InputError, match="variable 'd' holds dates in the original file but numbers in the protected "
                                         "file; give both files the same kind of values"):
        encode_pair(o, p, spec)
    with pytest.raises(InputError, match="holds numbers in the original file but dates in the protected file"):
        encode_pair(p, o, spec)
    encode_pair(o, o.assign(x=[1.0, 2.0, 3.5]), spec)  # dates in both: fine


def test_dates_written_as_text_in_a_continuous_variable_are_named_as_dates():
    o = pd.DataFrame({"d": ["1990-12-22", "1991-01-05"], "x": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"variable 'd' holds dates written as text \(such as 1990-12-22\) in the "
                                         "original file"):
        encode_pair(o, o.copy(), {"variables": {"d": {"scale": "continuous"}, "x": {"scale": "continuous"}}})


def test_a_signalling_decimal_nan_is_one_sentence():
    # pandas' missing-value check raised decimal.InvalidOperation (found by the hostile-input audit)
    import decimal

    o = pd.DataFrame({"v": [decimal.Decimal(i) for i in range(6)], "g": list("ab") * 3})
    p = o.copy()
    p.loc[3, "v"] = decimal.Decimal("sNaN")
    with pytest.raises(InputError, match=r"variable 'v' holds a signalling NaN \(Decimal\('sNaN'\)\) in the "
                                         "protected file"):
        encode_pair(o, p, {"variables": {"v": {"scale": "continuous"}, "g": {"scale": "nominal"}}})


def test_numbers_against_true_false_values_are_named_so():
    # "holds numbers in the protected file but text in the original file", though the original held booleans
    # (found by the hostile-input audit)
    o = pd.DataFrame({"b": [True, False, True, False], "x": [1.0, 2.0, 3.0, 4.0]})
    spec = {"variables": {"b": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    with pytest.raises(InputError, match="holds numbers in the protected file but true/false values in the original"):
        encode_pair(o, o.assign(b=[1, 0, 1, 0]), spec)
    with pytest.raises(InputError, match="holds numbers in the original file but text in the protected file"):
        encode_pair(o.assign(b=[1, 0, 1, 0]), o.assign(b=list("abab")), spec)


def test_bytes_that_are_not_utf8_text_are_refused_naming_the_variable():
    # a binary Parquet or Feather column (or a frame of bytes) crashed with UnicodeDecodeError (exit 1)
    spec = {"variables": {"x": {"scale": "nominal"}, "y": {"scale": "continuous"}}}
    good = pd.DataFrame({"x": [b"a", b"b"] * 20, "y": np.arange(40.0)})
    assert len(encode_pair(good, good.copy(), spec).categorical["x"].categories) == 2  # UTF-8 bytes: two codes
    bad = good.assign(x=[b"\xff", b"a"] * 20)
    with pytest.raises(InputError, match=r"variable 'x' holds bytes that are not UTF-8 text \(a binary column\)"):
        encode_pair(bad, bad.copy(), spec)


def _unique_levels(x):
    """``sorted_levels`` by ``np.unique`` (the definition), -1 codes where missing."""
    ok = ~np.isnan(x)
    values, inverse, counts = np.unique(x[ok], return_inverse=True, return_counts=True)
    codes = np.full(x.shape[0], -1)
    codes[ok] = inverse
    return values, codes, counts


@pytest.mark.parametrize("case", ["ages", "negative", "large", "units", "one", "fraction late", "span = n", "zeros",
                                  "float limit", "infinite"])
def test_sorted_levels_of_whole_numbers_equal_np_unique(case):
    """Whole numbers in a range narrower than the file are counted (pair._whole_number_levels), not sorted:
    the levels, codes and counts are np.unique's, missing values -1; other values take the sort or hash path."""
    from infoloss.pair import _whole_number_levels, sorted_levels

    rng = np.random.default_rng(7)
    n = 30_000
    x = {"ages": rng.integers(16, 96, n).astype(float),
         "negative": rng.integers(-500, 500, n).astype(float),
         "large": 1e15 + rng.integers(0, 1000, n).astype(float),
         "units": rng.integers(0, n // 2, n).astype(float),
         "one": np.full(n, 3.0),
         "fraction late": rng.integers(0, 100, n).astype(float),
         "span = n": rng.integers(0, n + 1, n).astype(float),
         "zeros": np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(0, 3, n),
         "float limit": rng.choice([-1.7e308, 0.0, 1.7e308], n),  # an infinite span, without a warning
         "infinite": rng.choice([-np.inf, 1.0, 2.0, np.inf], n)}[case]
    if case == "fraction late":
        x[n - 3] = 41.5  # not in the sample looked at first
    if case == "span = n":
        x[:2] = [0.0, float(n)]  # n + 1 values: the sort or hash path
    x[::13] = np.nan
    lv = sorted_levels(x)
    values, codes, counts = _unique_levels(x)
    assert np.array_equal(lv.values, values) and np.array_equal(lv.codes, codes) and np.array_equal(lv.counts, counts)
    assert lv.codes.dtype == np.int32 and lv.counts.dtype == np.int32
    counted = _whole_number_levels(x[~np.isnan(x)]) is not None
    assert counted == (case not in ("fraction late", "span = n", "float limit", "infinite"))
