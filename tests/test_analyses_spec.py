"""The spec's analyses section: parsing, and one clear sentence for every mistake."""

from pathlib import Path

import re

import pytest

from infoloss.analyses.spec import formula_variables, model_desc, parse_analyses
from infoloss.errors import SpecError
from infoloss.spec import load_spec, spec_from_dict

VARIABLES = {"income": {"scale": "continuous"}, "money": {"scale": "continuous"}, "age": {"scale": "ordinal"},
             "sex": {"scale": "nominal"}, "region": {"scale": "nominal"}, "w": {"role": "weight"},
             "hid": {"role": "id"}, "q1": {"scale": "ordinal"}, "q2": {"scale": "ordinal"}}


def spec(analyses):
    return spec_from_dict({"variables": VARIABLES, "analyses": analyses})


def test_a_full_section_parses():
    s = spec({
        "estimates": [
            {"statistic": "mean", "variable": "income", "by": ["region"]},
            {"statistic": "quantile", "variable": "income", "p": [0.1, 0.9]},
            {"statistic": "median", "variable": "age", "by": "sex"},
            {"statistic": "arpr", "variable": "income"},
            {"statistic": "ratio", "variable": "money", "denominator": "income"},
            {"statistic": "proportion", "variable": "sex", "categories": [1]},
        ],
        "regressions": [{"name": "mincer", "formula": "np.log(income) ~ age + I(age**2) + C(sex)",
                         "where": "income > 0 & sex == 1", "family": "gaussian"}],
        "scales": [{"name": "s", "items": ["q1", "q2"]}],
        "ci": {"level": 0.9, "method": "bootstrap", "replicates": 500, "seed": 7},
    })
    a = parse_analyses(s.analyses, s)
    labels = [e.label for e in a.estimates]
    assert labels == ["mean(income)", "quantile(income, 0.1)", "quantile(income, 0.9)", "median(age)",
                      "arpr(income)", "ratio(money / income)", "proportion(sex)"]
    assert a.estimates[0].by == ("region",) and a.estimates[3].p == 0.5 and a.estimates[4].p == 0.6
    assert a.estimates[-1].categories == ("1",)
    assert a.regressions[0].variables == ("income", "age", "sex")
    assert (a.ci.level, a.ci.method, a.ci.replicates, a.ci.seed) == (0.9, "bootstrap", 500, 7)


def test_a_name_given_to_several_quantiles_names_each():
    # the name was dropped when p listed several probabilities
    s = spec({"estimates": [{"statistic": "quantile", "variable": "income", "p": [0.1, 0.9], "name": "deciles"},
                            {"statistic": "quantile", "variable": "income", "p": 0.5, "name": "middle"}]})
    labels = [e.label for e in parse_analyses(s.analyses, s).estimates]
    assert labels == ["deciles (p=0.1)", "deciles (p=0.9)", "middle"]


@pytest.mark.parametrize("analyses, message", [
    ({"estimates": [{"statistic": "average", "variable": "income"}]}, "statistic 'average'; use one of mean"),
    ({"estimates": [{"statistic": "mean", "variable": "incme"}]}, "did you mean 'income'"),
    ({"estimates": [{"statistic": "mean", "variable": "sex"}]}, "needs a continuous or ordinal variable"),
    ({"estimates": [{"statistic": "proportion", "variable": "income"}]}, "needs a nominal or ordinal"),
    ({"estimates": [{"statistic": "mean", "variable": "income", "by": "regio"}]}, "not a variable of the spec"),
    ({"estimates": [{"statistic": "mean", "variable": "income", "by": "money"}]}, "needs a nominal or ordinal"),
    ({"estimates": [{"statistic": "mean", "variable": "w"}]}, "is the weight column"),
    ({"estimates": [{"statistic": "ratio", "variable": "income"}]}, "needs a 'denominator'"),
    ({"estimates": [{"statistic": "quantile", "variable": "income"}]}, "needs 'p'"),
    ({"estimates": [{"statistic": "quantile", "variable": "income", "p": 1.5}]}, "probability from 0 to 1"),
    ({"estimates": [{"statistic": "mean", "variable": "income", "colour": 1}]}, "unknown key 'colour'"),
    ({"regressions": [{"formula": "income ~ age"}]}, "needs a 'name'"),
    ({"regressions": [{"name": "r", "formula": "income ~ agee"}]}, "names 'agee', which is not a variable"),
    ({"regressions": [{"name": "r", "formula": "income ~ (age"}]}, "cannot be read"),
    ({"regressions": [{"name": "r", "formula": "income ~ age", "family": "gamma"}]}, "family 'gamma'"),
    ({"regressions": [{"name": "r", "formula": "income ~ age", "where": "incom > 0"}]}, "did you mean 'income'"),
    ({"regressions": [{"name": "r", "formula": "income ~ hid"}]}, "is the id column"),
    ({"regressions": [{"name": "r", "formula": "income ~ age"}, {"name": "r", "formula": "money ~ age"}]},
     "two regressions are named 'r'"),
    ({"scales": [{"name": "s", "items": ["q1"]}]}, "at least two variables"),
    ({"scales": [{"name": "s", "items": ["q1", "sex"]}]}, "ordinal or continuous items"),
    ({"ci": {"level": 95}}, "between 0 and 1"),
    ({"ci": {"method": "jackknife"}}, "one of auto, bootstrap"),
    ({"ci": {"replicates": 5}}, "from 20 to 100000"),
    ({"tables": []}, "unknown key 'tables'"),
    # the spec loader's own check named three of the four keys (no 'scales')
    (["estimates"], "must be a mapping with 'estimates', 'regressions', 'scales' and/or 'ci'."),
])
def test_mistakes_are_one_sentence(analyses, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(")) as info:
        spec(analyses)
    text = str(info.value)
    assert text.endswith(".") and "\n" not in text


@pytest.mark.parametrize("formula", [
    "income ~ __import__('os').system('true')",
    "income ~ age.__class__",
    "income ~ [x for x in age]",
    "income ~ open('f')",
    "income ~ np.__dict__",
    # numpy reads and writes files, and np.load(allow_pickle=True) of a file np.savetxt wrote runs code
    "income ~ np.loadtxt('/etc/passwd')",
    "income ~ np.add(np.savetxt('p.pkl', [0], header='x', comments=''), np.load('p.pkl', allow_pickle=True))",
    "income ~ np.memmap('f', mode='w+', shape=1)",
    "income ~ np.fromfile('/etc/passwd')",
    "income ~ np.linalg.inv(age)",
    "income ~ np.add(age, 1, out=age)",  # would change the data in place
    "income ~ np.nan_to_num(age, copy=False)",
    # sizes that hang or exhaust memory when computed: a power of a power, a list or text repeated 10**9 times
    "income ~ I(age > 10**10**8)",
    "income ~ np.isin(age, [1] * 10**9)",
    "income ~ np.isin(age, 'a' * 10**9)",
    # a shift by a large or computed amount (1 << 10**10 took 1.3 GB), a product of large powers, a power of one
    "income ~ I(age > 1 << 100000000)",
    "income ~ I(age > 1 << 10**10)",
    "income ~ I(age ** (1 << 10000000000))",
    "income ~ I(age > 10**999 * 10**999 * 10**999 * 10**999)",
    "income ~ I(age > (10**999)**999)",
])
def test_formulas_cannot_run_arbitrary_code(formula):
    with pytest.raises(SpecError):
        spec({"regressions": [{"name": "r", "formula": formula}]})
    where = formula.split("~", 1)[1].strip() + " > 0"
    with pytest.raises(SpecError):
        spec({"regressions": [{"name": "r", "formula": "income ~ age", "where": where}]})


def test_numpys_arithmetic_and_mathematical_functions_stay_allowed():
    for formula in ("np.log(income) ~ age + np.sqrt(age) + np.where(age > 40, 1, 0) + np.clip(age, 20, 60)",
                    "income ~ np.power(age, 2) + np.exp(age / np.pi)",
                    "income ~ I(age ** (1/2)) + I(age ** -1) + np.isin(age, [1, 2] * 3) + I(age > 10**300)"):
        spec({"regressions": [{"name": "r", "formula": formula, "where": "np.isfinite(income) & (age > 0)"}]})


@pytest.mark.parametrize("where,advice", [("not income > 0", "write ~(...)"),
                                          ("region in ['north']", "write np.isin(x, [...])"),
                                          ("0 < income < 1e5", "write (0 < x) & (x < 10)")])
def test_whole_column_python_in_a_filter_says_what_to_write(where, advice):
    # numpy's "truth value of an array ... is ambiguous" came out at evaluation
    with pytest.raises(SpecError, match=re.escape(advice)):
        spec({"regressions": [{"name": "r", "formula": "income ~ age", "where": where}]})


def test_two_estimates_with_one_label_are_a_spec_error():
    # the later one's rows replaced the earlier one's (one key), silently
    with pytest.raises(SpecError, match="two estimates are labelled 'x'; give each its own name"):
        spec({"estimates": [{"statistic": "mean", "variable": "income", "name": "x"},
                            {"statistic": "median", "variable": "income", "name": "x"}]})
    spec({"estimates": [{"statistic": "mean", "variable": "income"},
                        {"statistic": "mean", "variable": "income", "by": "region"}]})  # other domains: fine


def test_the_section_survives_a_yaml_round_trip(tmp_path):
    s = spec({"estimates": [{"statistic": "gini", "variable": "income", "by": "region"}],
              "regressions": [{"name": "m", "formula": "income ~ age + C(sex)"}]})
    path = tmp_path / "spec.yaml"
    path.write_text(s.to_yaml())
    again = load_spec(path)
    assert parse_analyses(again.analyses, again) == parse_analyses(s.analyses, s)


@pytest.mark.parametrize("folder", ["testdata", "free1", "EIA", "francdat"])
def test_the_starter_block_of_infoloss_spec_is_valid_once_uncommented(folder, tmp_path):
    from typer.testing import CliRunner

    from infoloss.cli import app

    data = Path(__file__).resolve().parent / "data" / folder / "original.csv"
    out = tmp_path / "spec.yaml"
    result = CliRunner().invoke(app, ["spec", str(data), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    block = text[text.index("# analyses:"):]
    assert all(line.startswith("#") for line in block.splitlines())
    assert load_spec(out).analyses is None  # commented out: nothing runs until the user edits it
    uncommented = text[: text.index("# analyses:")] + "\n".join(line[2:] for line in block.splitlines()) + "\n"
    out.write_text(uncommented)
    spec = load_spec(out)
    analyses = parse_analyses(spec.analyses, spec)
    assert analyses.estimates and analyses.ci.replicates == 200
    import infoloss

    ids = ["estimate_ci_overlap", "regression_ci_overlap", "r2_loss"]
    report = infoloss.compare(data, data, out, measures=ids, statistics=False, aggregates=False)
    scenario = report.scenarios[0]
    assert scenario.measures["estimate_ci_overlap"].value == 1.0
    assert set(scenario.measures) | set(scenario.not_computed) == set(ids)


def test_a_formula_of_thousands_of_terms_is_read():
    # issue: patsy's evaluator recursed once per '+': 500 terms raised RecursionError (exit 1)
    import patsy

    names = [f"x{i}" for i in range(3000)]
    variables = {n: None for n in names + ["y"]}
    assert formula_variables("y ~ " + " + ".join(names), variables, "m") == ("y", *names)
    for formula in ("y ~ a + b - 1", "y ~ 0 + a", "y ~ a*b + c:d - a", "y ~ (a + b)**2", "y ~ a/b",
                    "y ~ a + 0 + b", "y ~ 1 + a - 0", "y ~ a - 1 + 1 + b", "y ~ -1 + a", "~ a", "y ~ a:b:c + 1"):
        mine, patsys = model_desc(formula), patsy.ModelDesc.from_formula(formula)
        assert (mine.lhs_termlist, mine.rhs_termlist) == (patsys.lhs_termlist, patsys.rhs_termlist), formula


@pytest.mark.parametrize("formula, where", [
    ("income ~ I(" + "-" * 100_000 + "age)", None),  # Python's parser: MemoryError ("ran out of memory")
    ("income ~ age", "-" * 100_000 + "age > 0"),
    ("income ~ I(" + "~" * 5000 + "age)", None),  # RecursionError
    ("income ~ I(" + " + ".join(["age"] * 3000) + ")", None),
    ("income ~ age", "~" * 5000 + "(age > 0)"),
    ("income ~ I(" + "(" * 201 + "age" + ")" * 201 + ")", None),  # Python's parser: "too many nested parentheses"
    ("income ~ age", "(" * 201 + "age > 0" + ")" * 201),  # (said "is not a valid expression"; docs audit)
], ids=["minus-formula", "minus-where", "tilde-formula", "chain-formula", "tilde-where", "brackets-formula",
        "brackets-where"])
def test_an_expression_nested_too_deeply_is_one_sentence(formula, where):
    regression = {"name": "r", "formula": formula, **({"where": where} if where else {})}
    with pytest.raises(SpecError, match="is nested too deeply .* simplify it.$"):
        spec({"regressions": [regression]})


def test_numpy_numbers_are_numbers_and_bools_are_not():
    # a notebook's numbers: np.int64(50) was refused with "must be a whole number ..., got np.int64(50)"
    import numpy as np

    s = spec({"estimates": [{"statistic": "quantile", "variable": "income", "p": [np.float32(0.25), 0.5]},
                            {"statistic": "arpr", "variable": "income", "p": np.float64(0.5)},
                            {"statistic": "proportion", "variable": "sex", "categories": np.int64(1)}],
              "ci": {"level": np.float32(0.9), "replicates": np.int64(50), "seed": np.uint8(3)}})
    a = parse_analyses(s.analyses, s)
    assert (a.ci.level, a.ci.replicates, a.ci.seed) == (0.9, 50, 3)
    assert type(a.ci.replicates) is int and type(a.ci.level) is float
    assert [e.p for e in a.estimates][:3] == [0.25, 0.5, 0.5] and a.estimates[-1].categories == ("1",)
    for bad in (True, np.bool_(True)):
        with pytest.raises(SpecError, match="replicates' must be a whole number"):
            spec({"estimates": [{"statistic": "median", "variable": "income"}], "ci": {"replicates": bad}})


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_estimate_name_is_a_spec_error(name):
    with pytest.raises(SpecError, match=r"^'name' of estimate 1 \(mean\) of 'analyses' is empty; give the estimate a "
                                        r"label, or leave 'name' out"):
        spec({"estimates": [{"statistic": "mean", "variable": "income", "name": name}]})
