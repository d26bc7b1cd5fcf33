"""Measure options: declared in the registry, checked before anything runs, one-sentence errors."""

import inspect

import pandas as pd
import pytest

import infoloss
from infoloss.errors import InputError
from infoloss.registry import Option, registered

ORIG = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "g": list("aabbab")})
SPEC = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}


def test_every_keyword_of_every_measure_is_declared_with_its_default():
    for info in registered():
        params = list(inspect.signature(info.func.__wrapped__).parameters.values())[1:]
        assert {p.name: p.default for p in params} == {o.name: o.default for o in info.options}, info.id


def test_measure_functions_show_their_dataframe_signature():
    sig = inspect.signature(infoloss.pmse)
    assert list(sig.parameters)[:3] == ["original", "protected", "spec"]
    assert sig.parameters["model"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(
    "mid, name, value, fragment",
    [
        ("pmse", "model", "forest", "option 'model' of measure 'pmse' must be one of logit, cart"),
        ("cluster_utility", "G", 0, "'G' of measure 'cluster_utility' must be a whole number of at least 2"),
        ("cluster_utility", "G", "many", "got 'many'"),
        ("ks", "pvalue", "xyz", "one of auto, scipy"),
        ("pmse", "seed", "abc", "'seed' of measure 'pmse' must be a whole number"),
        ("ecdf_max", "max_records", -5, "at least 2, got -5"),
        ("hellinger", "weighted", "maybe", "true or false"),
        ("pmse", "max_records", 2.5, "whole number"),
        ("gdu", "threshold", 1.5, "greater than 0 and less than 1"),
        ("gdu", "weights", (0.2, 0.2), "sum to 1"),
        ("kl_divergence", "smoothing", float("nan"), "a number from 0 to 1000000"),
        # found by fuzzing: seeds beyond scikit-learn's 32-bit range failed inside it; huge constants overflowed
        ("pmse", "seed", 2**32, "'seed' of measure 'pmse' must be a whole number from 0 to 2147483647"),
        ("cluster_ari", "seed", 2**32, "from 0 to 2147483647, got 4294967296"),
        ("robust_eigen", "random_state", 2**31, "from 0 to 2147483647"),
        ("kl_divergence", "smoothing", 1e308, "from 0 to 1000000, got 1e\\+308"),
        ("interval_disclosure", "k", 1e308, "greater than 0 and at most 1000000"),
        ("l_diversity", "c", 1e308, "greater than 0 and at most 1000000"),
        ("lambda", "missing_rule", "other", "one of handbook, sdcmicro"),
        ("lambda", "missing_rule", None, "one of handbook, sdcmicro, got nothing."),  # an empty value: not "got None"
        ("il1s", "foo", 1, "takes no options"),
        ("ks", "pvaleu", 1, "has no option 'pvaleu'; its options are pvalue"),
    ],
)
def test_bad_option_values_are_input_errors_before_anything_runs(mid, name, value, fragment):
    func = infoloss.registry.get(mid).func
    with pytest.raises(InputError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        func(ORIG, ORIG.copy(), SPEC, **{name: value})
    with pytest.raises(InputError, match="must be|no option|takes no options"):
        infoloss.compare(ORIG, ORIG.copy(), SPEC, measures=[mid], options={mid: {name: value}})


@pytest.mark.parametrize("weights", ["0.3,0.7", " 0.3 , 0.7", [0.3, 0.7], (0.3, 0.7)])
def test_gdu_weights_are_accepted_as_shown_by_infoloss_measures(weights):
    # `infoloss measures` shows the default as 0.5,0.5: `--set gdu.weights=0.3,0.7` gives that text (it was refused)
    info = infoloss.registry.get("gdu")
    checked = info.check_options({"weights": weights})["weights"]
    result = infoloss.gdu(ORIG, ORIG.assign(x=ORIG.x[::-1].values), SPEC, weights=checked)
    assert result.details["weights"] == [0.3, 0.7]


@pytest.mark.parametrize("mid, name", [
    ("ldu_uni", "threshold"), ("aldu_uni", "threshold"), ("ldu_biv", "recode_variant"), ("aldu_biv", "recode_variant"),
    ("grc", "threshold"), ("grc", "weighted"), ("grc", "recode_variant"),
])
def test_options_a_measure_does_not_use_are_refused(mid, name):
    # they were listed by `infoloss measures`, accepted, and changed nothing
    with pytest.raises(InputError, match=f"has no option '{name}'|takes no options"):
        infoloss.registry.get(mid).check_options({name: 0.1})


def test_options_that_apply_under_another_setting_say_so():
    # chi2_distance's smoothing applies only to form=pearson, n_permutations only to CART's null distribution
    assert "smoothing=0.0 (a number of at least 0; only with form=pearson)" in infoloss.registry.get("chi2_distance").options_text
    for mid in ("pmse_ratio", "pmse_std"):
        option = infoloss.registry.get(mid).option("n_permutations")
        assert option.when == "model=cart" and option.to_dict()["when"] == "model=cart"
        assert "only with model=cart" in infoloss.registry.get(mid).options_text


def test_good_values_are_converted_to_the_declared_type():
    info = infoloss.registry.get("pmse")
    assert info.check_options({"seed": 3.0, "max_records": 100}) == {"seed": 3, "max_records": 100}
    assert isinstance(info.check_options({"seed": 3.0})["seed"], int)


def test_option_declarations_are_checked_when_registered():
    with pytest.raises(ValueError):
        Option("x", "choice", "a", "no choices")
    with pytest.raises(ValueError):
        Option("x", "any", None, "no check")


def test_unknown_measure_id_is_a_key_error():
    with pytest.raises(KeyError, match="nosuch"):
        infoloss.registry.get("nosuch")


def test_numbers_in_scientific_notation_are_numbers():
    # PyYAML (YAML 1.1) reads 1e-3 as text: --set kl_divergence.smoothing=1e-3 was "must be a number"
    from infoloss import registry

    registry.load(["kl_divergence"])
    option = next(o for o in registry.get("kl_divergence").options if o.name == "smoothing")
    assert option.validate("kl_divergence", "1e-3") == 0.001
    assert option.validate("kl_divergence", "2.5E-1") == 0.25
    with pytest.raises(Exception, match="must be a number"):
        option.validate("kl_divergence", "1e-3x")
