"""Record by record against sdcMicro 5.8.1's own output (tests/data/risk_reference, see its README).

The frequency measures are run with ``missing_keys="sdcmicro"`` (sdcMicro's freqCalc rules for records whose
keys are all missing); their default, the published wildcard, differs from sdcMicro on such records.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from infoloss.measures.risk import global_risk, household_risk, k_anonymity_violations, suda_dis
from infoloss.measures.risk_distance import interval_disclosure
from infoloss.pair import PROTECTED, encode_pair
from infoloss.risk.files import file_l_diversity, file_risk, file_suda
from infoloss.risk.freq import frequencies, household_risk as hh_kernel, individual_risk
from infoloss.risk.suda import suda2
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"
REF = DATA / "risk_reference"

CASES = [
    ("testdata", f, None, "ori_hid", ["hhcivil"])
    for f in ("original", "ls_k3", "recode_pram_noise50", "recode_mdav3_ls_k3")
] + [
    ("francdat", f, None, None, []) for f in ("original", "ls_k2", "noise_additive50")
] + [
    ("free1", f, None, None, ["ETNI", "REGION"]) for f in ("original", "recode_ls_k3", "pram_mdav3")
] + [
    ("EIA", f, None, None, ["YEAR"]) for f in ("original", "mdav5_ls_k3")
]


def pair_for(dataset, file, household, sensitive):
    spec = load_spec(DATA / dataset / "spec.yaml")
    if household:
        spec.variables[household].role = "household"
    for name in sensitive:
        spec.variables[name].role = "sensitive"
    orig = pd.read_csv(DATA / dataset / "original.csv")
    prot = pd.read_csv(DATA / dataset / f"{file}.csv")
    return encode_pair(orig, prot, spec)


def reference(dataset, file):
    rows = pd.read_csv(REF / f"{dataset}_{file}.csv")
    glob = pd.read_csv(REF / f"{dataset}_{file}_global.csv").set_index("name")["value"]
    return rows, glob


@pytest.mark.parametrize("dataset,file,_,household,sensitive", CASES)
def test_per_record_values_match_sdcmicro(dataset, file, _, household, sensitive):
    pair = pair_for(dataset, file, household, sensitive)
    rows, glob = reference(dataset, file)
    risk = file_risk(pair, PROTECTED, missing_keys="sdcmicro")
    np.testing.assert_array_equal(risk.fk, rows["fk"])
    np.testing.assert_allclose(risk.Fk, rows["Fk"], rtol=1e-12)
    np.testing.assert_allclose(risk.risk, rows["risk"], rtol=1e-12, atol=1e-15)
    if household:
        np.testing.assert_allclose(risk.household, rows["hier_risk"], rtol=1e-12, atol=1e-15)
    suda = file_suda(pair, PROTECTED)
    np.testing.assert_array_equal(suda.score, rows["suda_score"])
    np.testing.assert_allclose(suda.dis, rows["dis_score"], rtol=0, atol=1e-9)
    for name in sensitive:
        ld = file_l_diversity(pair, name, PROTECTED)
        for kind in ("distinct", "entropy", "recursive"):
            np.testing.assert_allclose(ld[kind], rows[f"ldiv_{name}_{kind}"], rtol=1e-12, err_msg=f"{name} {kind}")


@pytest.mark.parametrize("dataset,file,_,household,sensitive", CASES)
def test_global_values_match_sdcmicro(dataset, file, _, household, sensitive):
    pair = pair_for(dataset, file, household, sensitive)
    _rows, glob = reference(dataset, file)
    g = global_risk(pair, missing_keys="sdcmicro")
    assert g.value == pytest.approx(glob["global_risk"], rel=1e-12)
    assert g.details["expected_reidentifications"] == pytest.approx(glob["global_risk_ER"], rel=1e-12)
    k = k_anonymity_violations(pair, missing_keys="sdcmicro")
    assert k.details["by_k"]["2"]["unweighted"] == glob["n1"]  # sdcMicro: "obs. violate 2-anonymity"
    assert k.details["by_k"]["3"]["unweighted"] == glob["n1"] + glob["n2"]  # "obs. violate 3-anonymity"
    if household:
        h = household_risk(pair, missing_keys="sdcmicro")
        assert h.value == pytest.approx(glob["hier_risk"], rel=1e-12)
        assert h.details["expected_reidentifications"] == pytest.approx(glob["hier_risk_ER"], rel=1e-12)
    if "dRisk" in glob and pair.paired:
        assert interval_disclosure(pair).value == pytest.approx(glob["dRisk"], abs=1e-15)
    contributions = suda_dis(pair).details["contribution_percent"]
    for name, value in contributions.items():
        ref = glob.get(f"suda_contribution_{name}")
        if ref is not None and np.isfinite(ref):
            assert value == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("number", range(12))
def test_generated_files_with_many_missing_keys_match_sdcmicro(number):
    data = pd.read_csv(REF / "random" / f"random{number:02d}.csv")
    ref = pd.read_csv(REF / "random" / f"random{number:02d}_sdcmicro.csv")
    names = [c for c in data if c.startswith("k")]
    keys = data[names].fillna(-1).to_numpy(dtype=np.int64)
    fk, Fk = frequencies(keys, data["w"].to_numpy(), missing_keys="sdcmicro")
    np.testing.assert_array_equal(fk, ref["fk"])
    np.testing.assert_allclose(Fk, ref["Fk"], rtol=1e-12)
    risk = individual_risk(fk, Fk, weighted=True)
    np.testing.assert_allclose(risk, ref["risk"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hh_kernel(risk, data["hh"].to_numpy()), ref["hier_risk"], rtol=1e-12, atol=1e-15)
    if "suda_score" in ref:
        res = suda2(keys, hash_values=data[names].fillna(-999).to_numpy(dtype=np.int64))
        np.testing.assert_array_equal(res.score, ref["suda_score"])
        np.testing.assert_allclose(res.dis, ref["dis_score"], rtol=0, atol=1e-9, equal_nan=True)
