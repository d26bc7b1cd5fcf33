"""The bad-input catalogue: hostile inputs through the real command line, and fuzzing of the readers.

Every case runs ``infoloss compare`` and checks the exit status (2 for input
that cannot be used, 0 where the input is legitimately fine), a fragment of
the one-sentence message, that no traceback was printed, that no input file
changed (sha256 of every file in the work folder before and after) and that no
output file, complete or partial, was left by a failed run.  Most cases run
in-process through typer's CliRunner (an unexpected exception there is a
bug); the cases marked ``subprocess`` run ``python -m infoloss.cli`` in a real
process to prove the exit status and the clean standard error end to end.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from infoloss.cli import app
from infoloss.errors import InputError, SpecError
from infoloss.io import read_table
from infoloss.spec import ROLES, SCALES, TOP_KEYS, VARIABLE_KEYS, spec_from_dict

ROOT = Path(__file__).resolve().parents[1]
HTML_NAME = "<b>&\"x'"


# ---------------------------------------------------------------------------
# the work folder: a small good pair and every hostile file
# ---------------------------------------------------------------------------
def _good_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(8)
    n = 40
    orig = pd.DataFrame(
        {
            "id": np.arange(n),
            "region": rng.choice(["north", "south", "east"], n),
            "educ": rng.integers(0, 4, n),
            "income": rng.lognormal(10, 1, n).round(2),
            "w": rng.uniform(1, 3, n).round(3),
        }
    )
    prot = orig.copy()
    prot["income"] = (prot["income"] * rng.normal(1, 0.05, n)).round(2)
    prot.loc[[2, 5], "region"] = None
    return orig, prot


SPEC = {
    "variables": {
        "id": {"role": "id"},
        "region": {"scale": "nominal", "role": "key"},
        "educ": {"scale": "ordinal"},
        "income": {"scale": "continuous"},
        "w": {"role": "weight"},
    },
    "pairing": "row",
}


def _spec_with(**changes) -> dict:
    spec = json.loads(json.dumps(SPEC))
    for key, value in changes.items():
        if key in spec["variables"] or key.startswith("var_"):
            spec["variables"][key.removeprefix("var_")] = value
        else:
            spec[key] = value
    return spec


def _damaged_feather(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as a Feather file whose column region has one string offset far beyond its text (as a flipped
    byte makes it): Arrow reads it without an error, and pandas then crashed the process (segmentation fault)."""
    import pyarrow as pa
    import pyarrow.feather as feather

    region = pa.array(frame["region"], pa.string(), from_pandas=True)
    validity, offsets, text = region.buffers()
    damaged = np.frombuffer(offsets, dtype=np.int32).copy()
    damaged[10] = 1_000_000  # the last offset is right, so Arrow's quick check passes
    region = pa.Array.from_buffers(pa.string(), len(region), [validity, pa.py_buffer(damaged.tobytes()), text])
    table = pa.Table.from_pandas(frame.drop(columns="region"), preserve_index=False).append_column("region", region)
    feather.write_feather(table, path, compression="uncompressed")


def _write_files(d: Path) -> None:
    orig, prot = _good_frames()
    csv = lambda df, name, **kw: df.to_csv(d / name, index=False, **kw)  # noqa: E731
    text = lambda name, body, enc="utf-8": (d / name).write_text(body, encoding=enc)  # noqa: E731
    spec = lambda name, raw: text(name, yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))  # noqa: E731

    csv(orig, "orig.csv")
    csv(prot, "prot.csv")
    spec("spec.yaml", SPEC)
    (d / "folder.csv").mkdir()
    (d / "empty.csv").write_bytes(b"")
    text("header_only.csv", "id,region,educ,income,w\n")
    (d / "binary.csv").write_bytes(bytes(np.random.default_rng(1).integers(0, 256, 4000, dtype=np.uint8)))
    (d / "gzip.csv").write_bytes(gzip.compress((d / "prot.csv").read_bytes()))
    (d / "nul.csv").write_bytes(b"id,region\x00,educ\n1,\x00\x00,2\n")
    (d / "csv.parquet").write_bytes((d / "prot.csv").read_bytes())
    orig.assign(region=[[r, r] for r in orig["region"]]).to_parquet(d / "nested.parquet")
    (d / "csv.feather").write_bytes((d / "prot.csv").read_bytes())
    _damaged_feather(prot, d / "damaged.feather")
    (d / "csv.dta").write_bytes((d / "prot.csv").read_bytes())
    (d / "csv.sav").write_bytes((d / "prot.csv").read_bytes())
    (d / "text.xlsx").write_bytes((d / "prot.csv").read_bytes())
    (d / "old.xls").write_bytes(b"\xd0\xcf\x11\xe0" + b"\0" * 100)
    (d / "packed.gz").write_bytes(gzip.compress(b"x"))
    (d / "noending").write_bytes((d / "prot.csv").read_bytes())
    text("ragged.csv", "id,region,educ,income,w\n1,north,2,3.5,1\n2,south,1\n")
    text("dupcols.csv", "id,region,region,income,w\n1,north,south,3.5,1\n")
    csv(prot.iloc[:30], "short.csv")
    csv(prot.assign(id=0), "dup_id.csv")
    csv(prot.assign(id=prot["id"].astype(float).where(prot.index > 0)), "nan_id.csv")
    csv(prot.assign(id=prot["id"] + 100), "other_ids.csv")
    csv(prot.drop(columns="id"), "no_id.csv")
    csv(prot.assign(income="high"), "text_income.csv")
    csv(orig.assign(income=["high"] + list(orig["income"][1:])), "orig_text_income.csv")
    csv(prot.assign(region=np.nan, educ=np.nan), "suppressed.csv")
    csv(prot.assign(income=np.nan), "suppressed_income.csv")
    csv(orig.assign(region=np.nan), "orig_no_region.csv")
    csv(orig.assign(w=-orig["w"]), "neg_w.csv")
    csv(orig.assign(w="heavy"), "text_w.csv")
    csv(prot.assign(region=".", educ="."), "dot_missing.csv")
    spec("spec_dot_missing.yaml", {**SPEC, "missing": ["", "NA", "."]})
    csv(orig, "semicolon.csv", sep=";")
    csv(prot.assign(educ=prot["educ"] + 10), "new_educ.csv")
    spec("spec_order.yaml", _spec_with(educ={"scale": "ordinal", "order": [0, 1, 2, 3]}))
    # specs
    text("bad_yaml.yaml", "variables:\n  region: {scale: nominal\n  educ: [\n")
    text("tabs.yaml", "variables:\n\tregion: {scale: nominal}\n")
    text("list.yaml", "- region\n- educ\n")
    text("empty.yaml", "")
    (d / "binary.yaml").write_bytes(b"\xff\xfe\x00\x81variables")
    text("csv_as_spec.yaml", (d / "orig.csv").read_text())
    spec("unknown_top.yaml", _spec_with(colour="red"))
    spec("unknown_var_key.yaml", _spec_with(region={"scale": "nominal", "colour": "red"}))
    spec("bad_scale.yaml", _spec_with(region={"scale": "categorical"}))
    spec("bad_role.yaml", _spec_with(region={"scale": "nominal", "role": "quasi"}))
    spec("no_scale.yaml", _spec_with(region={"role": "key"}))
    spec("misnamed.yaml", _spec_with(var_REGION={"scale": "nominal"}))
    spec("vars_list.yaml", {"variables": ["region", "educ"]})
    spec("bad_pairing.yaml", _spec_with(pairing="sideways"))
    spec("bad_separator.yaml", _spec_with(separator=";;"))
    spec("semicolon_spec.yaml", _spec_with(separator=";"))
    spec("comma_spec.yaml", _spec_with(separator=","))
    spec("pram_missing.yaml", _spec_with(region={"scale": "nominal", "pram": "matrices/region.csv"}))
    spec("pair_by_id.yaml", _spec_with(pairing={"by": "id"}))
    spec("order_list_twice.yaml", _spec_with(educ={"scale": "ordinal", "order": [0, 1, 1, 2, 3]}))
    spec("all_but_spec.yaml", {"variables": {"region": {"scale": "nominal"}}})
    # column names
    names = {"region": "Région", "educ": "教育", "income": "income 💶", "w": "poids"}
    csv(orig.rename(columns=names), "unicode_orig.csv")
    csv(prot.rename(columns=names), "unicode_prot.csv")
    spec("unicode_spec.yaml", {"variables": {"id": {"role": "id"}, "Région": {"scale": "nominal"},
                                             "教育": {"scale": "ordinal"}, "income 💶": {"scale": "continuous"},
                                             "poids": {"role": "weight"}}})
    csv(orig.rename(columns={"region": HTML_NAME}), "html_orig.csv")
    csv(prot.rename(columns={"region": HTML_NAME}), "html_prot.csv")
    spec("html_spec.yaml", {"variables": {HTML_NAME: {"scale": "nominal"}, "educ": {"scale": "ordinal"},
                                          "income": {"scale": "continuous"}, "w": {"role": "weight"}}})
    multi = orig.assign(region=orig["region"].map({"north": "north\nby \"west\"", "south": "south", "east": "east, far"}))
    csv(multi, "newlines_orig.csv")
    csv(multi, "newlines_prot.csv")
    latin = orig.assign(region=orig["region"].map({"north": "Nørd", "south": "Süd", "east": "Estè"}))
    csv(latin.rename(columns={"region": "Région"}), "latin1_orig.csv", encoding="latin-1")
    csv(latin.rename(columns={"region": "Région"}), "latin1_prot.csv", encoding="latin-1")
    spec("latin1_spec.yaml", {"variables": {"Région": {"scale": "nominal"}, "income": {"scale": "continuous"}}})
    csv(orig.rename(columns={"income": "revenu_médian"}), "latin1_names_orig.csv", encoding="latin-1")
    csv(prot.rename(columns={"income": "revenu_médian"}), "latin1_names_prot.csv", encoding="latin-1")
    csv(orig, "bom_orig.csv", encoding="utf-8-sig")
    csv(prot, "bom_prot.csv", encoding="utf-8-sig")
    (d / "out").mkdir()
    (d / "out" / "folder.json").mkdir()
    os.symlink(d / "orig.csv", d / "link_to_orig.json")


@dataclass(frozen=True)
class Case:
    """One hostile input: command-line arguments (``{d}`` is the work folder), expected status and message."""

    name: str
    args: tuple[str, ...]
    code: int
    message: str | tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()  # files a successful run writes (relative to the work folder)
    absent: str = ""  # a fragment the message must NOT contain
    subprocess: bool = False


def _c(name, args, code, message=(), outputs=(), absent="", sub=False) -> Case:
    return Case(name, tuple(args.split()), code, message, tuple(outputs), absent, sub)


S = "--spec {d}/spec.yaml"
M = "--measures suppressions,il1s"
CASES = [
    # --- missing, empty, binary and mislabelled files ---
    _c("original missing", f"{{d}}/nope.csv {{d}}/prot.csv {S}", 2, "original file {d}/nope.csv does not exist", sub=True),
    _c("protected missing", f"{{d}}/orig.csv {{d}}/nope.csv {S}", 2, "protected file {d}/nope.csv does not exist"),
    _c("original is a folder", f"{{d}}/folder.csv {{d}}/prot.csv {S}", 2, "is a folder, not a file"),
    _c("empty protected file", f"{{d}}/orig.csv {{d}}/empty.csv {S}", 2, "is empty (0 bytes)", sub=True),
    _c("header only", f"{{d}}/orig.csv {{d}}/header_only.csv {S}", 2, "the protected file {d}/header_only.csv has no records"),
    _c("random bytes as csv", f"{{d}}/orig.csv {{d}}/binary.csv {S}", 2, "binary.csv", sub=True),
    _c("gzip as csv", f"{{d}}/orig.csv {{d}}/gzip.csv {S}", 2, ("gzip.csv", "compressed")),
    _c("NUL bytes in csv", f"{{d}}/orig.csv {{d}}/nul.csv {S}", 2, "nul.csv"),
    _c("csv named parquet", f"{{d}}/orig.csv {{d}}/csv.parquet {S}", 2, "is not a valid Parquet file", sub=True),
    _c("csv named feather", f"{{d}}/orig.csv {{d}}/csv.feather {S}", 2, "is not a valid Feather/Arrow file"),
    _c("damaged string offset in feather", f"{{d}}/orig.csv {{d}}/damaged.feather {S}", 2,
       "the protected file {d}/damaged.feather is not a valid Feather/Arrow file", sub=True),  # was a segfault
    _c("csv named dta", f"{{d}}/orig.csv {{d}}/csv.dta {S}", 2, "is not a valid Stata (.dta) file"),
    _c("csv named sav", f"{{d}}/orig.csv {{d}}/csv.sav {S}", 2, "is not a valid SPSS (.sav) file"),
    _c("text named xlsx", f"{{d}}/orig.csv {{d}}/text.xlsx {S}", 2, "is not a valid Excel (.xlsx) file"),
    _c("old excel", f"{{d}}/orig.csv {{d}}/old.xls {S}", 2, "save it as .xlsx"),
    _c("gz ending", f"{{d}}/orig.csv {{d}}/packed.gz {S}", 2, "unpack it first"),
    _c("no ending", f"{{d}}/orig.csv {{d}}/noending {S}", 2, "has no file ending"),
    # a column no spec can compare: left out of an inferred spec with a warning, refused when a spec lists it
    _c("nested parquet column, inferred spec", f"{{d}}/nested.parquet {{d}}/nested.parquet {M}", 0,
       "infoloss: warning: column 'region' is left out of the inferred spec: it holds lists or mappings"),
    _c("nested parquet column in the spec", f"{{d}}/nested.parquet {{d}}/nested.parquet {S}", 2,
       "variable 'region' holds values that are not single numbers or text"),
    _c("ragged csv", f"{{d}}/orig.csv {{d}}/ragged.csv {S}", 2, "line 3 has 3 fields but the header has 5"),
    _c("duplicate column names", f"{{d}}/orig.csv {{d}}/dupcols.csv {S}", 2, "has the column name 'region' twice"),
    # --- row counts and ids ---
    _c("row counts differ", f"{{d}}/orig.csv {{d}}/short.csv {S}", 2, "have 40 and 30 records, so they cannot be paired by row", sub=True),
    _c("duplicate ids", f"{{d}}/orig.csv {{d}}/dup_id.csv {S} --pairing id", 2, "duplicate ids (e.g. 0)"),
    _c("missing ids", f"{{d}}/orig.csv {{d}}/nan_id.csv {S} --pairing id", 2, "'id' of the protected file has missing values"),
    _c("ids do not match", f"{{d}}/orig.csv {{d}}/other_ids.csv {S} --pairing id", 2, "40 original ids are not in the protected file"),
    _c("pairing column not in the file", f"{{d}}/orig.csv {{d}}/prot.csv {S} --pairing nosuchcol", 2,
       "the pairing id column 'nosuchcol' is not a column of the original file", absent="of the spec", sub=True),
    _c("pairing id missing in protected", f"{{d}}/orig.csv {{d}}/no_id.csv --spec {{d}}/pair_by_id.yaml", 2,
       "the pairing id column 'id' is not a column of the protected file", absent="removed: true"),
    _c("unknown --weight column", f"{{d}}/orig.csv {{d}}/prot.csv {S} --weight wgt", 2,
       "'wgt', given on the command line (--weight), is not a column of the original file", absent="of the spec"),
    # --- types ---
    # named like the original's, with a missing code as the remedy (it said "holds numbers in the original file but
    # text in the protected file ... or describe the recoding with 'recode:'", no value named)
    _c("text in a continuous protected column", f"{{d}}/orig.csv {{d}}/text_income.csv {S}", 2,
       "'income' is continuous in the spec but the protected file has the text value 'high' in it; declare it nominal "
       "or ordinal, or list 'high' as a missing code", absent="recode"),
    _c("text in a continuous original column", f"{{d}}/orig_text_income.csv {{d}}/prot.csv {S}", 2,
       "'income' is continuous in the spec but the original file has the text value 'high'"),
    _c("categorical column suppressed in every record", f"{{d}}/orig.csv {{d}}/suppressed.csv {S} --json {{d}}/out/supp.json",
       0, (), outputs=("out/supp.json",)),
    _c("continuous column suppressed in every record", f"{{d}}/orig.csv {{d}}/suppressed_income.csv {S} --json {{d}}/out/suppinc.json",
       0, (), outputs=("out/suppinc.json",)),
    _c("fully suppressed by missing codes", f"{{d}}/orig.csv {{d}}/dot_missing.csv --spec {{d}}/spec_dot_missing.yaml {M} --json {{d}}/out/dot.json",
       0, (), outputs=("out/dot.json",)),
    _c("original column missing everywhere", f"{{d}}/orig_no_region.csv {{d}}/prot.csv {S}", 2,
       "'region' is missing in every record of the original file"),
    _c("negative weights", f"{{d}}/neg_w.csv {{d}}/prot.csv {S}", 2, "weight column 'w' of the original file has 40 negative values"),
    _c("text weights", f"{{d}}/text_w.csv {{d}}/prot.csv {S}", 2, "weight column 'w' of the original file has 40 missing or non-numeric values"),
    _c("ordinal order misses a category", f"{{d}}/orig.csv {{d}}/new_educ.csv --spec {{d}}/spec_order.yaml", 2,
       "the 'order' of ordinal variable 'educ' misses categories present in the data: '10'"),
    # --- specs ---
    _c("spec file missing", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/nope.yaml", 2, "cannot read the spec file"),
    _c("invalid YAML", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/bad_yaml.yaml", 2, "is not valid YAML at line", sub=True),
    _c("YAML with tabs", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/tabs.yaml", 2, "is not valid YAML at line 2"),
    _c("spec is a list", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/list.yaml", 2, "the spec must be a mapping"),
    _c("empty spec", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/empty.yaml", 2, "the spec lists no variable to analyse"),
    _c("binary spec", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/binary.yaml", 2, "is not a UTF-8 text file"),
    _c("a CSV given as the spec", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/csv_as_spec.yaml", 2, "the spec must be a mapping"),
    _c("unknown top-level key", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/unknown_top.yaml", 2, "unknown key 'colour' at the top of the spec"),
    _c("unknown variable key", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/unknown_var_key.yaml", 2, "unknown key 'colour' for variable 'region'"),
    _c("unknown scale", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/bad_scale.yaml", 2, "variable 'region' has scale 'categorical'"),
    _c("unknown role", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/bad_role.yaml", 2, "variable 'region' has role 'quasi'"),
    _c("no scale", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/no_scale.yaml", 2, "variable 'region' has no scale"),
    _c("variable not in the file", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/misnamed.yaml", 2,
       "variable 'REGION' of the spec is not a column of the original file (did you mean 'region'?)"),
    _c("variables as a list", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/vars_list.yaml", 2, "'variables' in the spec must map"),
    _c("bad pairing", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/bad_pairing.yaml", 2, "'pairing' must be row, none, nearest, {by: ID_COLUMN}"),
    _c("bad separator", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/bad_separator.yaml", 2, "'separator' must be a single character"),
    _c("order lists a category twice", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/order_list_twice.yaml", 2, "lists a category twice"),
    _c("pram file missing", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/pram_missing.yaml", 2,
       ("the 'pram' file of variable 'region'", "matrices/region.csv", "does not exist")),
    _c("spec says ; but the file uses commas", f"{{d}}/orig.csv {{d}}/prot.csv --spec {{d}}/semicolon_spec.yaml", 2,
       "the original file {d}/orig.csv looks comma-separated (5 columns in its header) but the spec says separator ';'", sub=True),
    _c("spec says , but the file uses semicolons", f"{{d}}/semicolon.csv {{d}}/prot.csv --spec {{d}}/comma_spec.yaml", 2,
       "looks semicolon-separated (5 columns in its header) but the spec says separator ','"),
    # --- options ---
    _c("unknown measure", f"{{d}}/orig.csv {{d}}/prot.csv {S} --measures il1", 2, "unknown measure 'il1' (did you mean 'il1s'?)"),
    _c("empty measure list", f"{{d}}/orig.csv {{d}}/prot.csv {S} --measures ,", 2, "--measures was given an empty value"),
    _c("bad option value", f"{{d}}/orig.csv {{d}}/prot.csv {S} --measures pmse --set pmse.model=forest", 2,
       "option 'model' of measure 'pmse' must be one of logit, cart, got 'forest'", sub=True),
    _c("bad option type", f"{{d}}/orig.csv {{d}}/prot.csv {S} --measures pmse --set pmse.seed=abc", 2, "option 'seed' of measure 'pmse' must be a whole number"),
    _c("unknown option", f"{{d}}/orig.csv {{d}}/prot.csv {S} --measures pmse --set pmse.colour=red", 2, "measure 'pmse' has no option 'colour'"),
    _c("option for a measure not run", f"{{d}}/orig.csv {{d}}/prot.csv {S} --measures il1s --set pmse.seed=1", 2, "names the measure 'pmse', which is not among the measures run"),
    _c("malformed --set", f"{{d}}/orig.csv {{d}}/prot.csv {S} --set pmse", 2, "must look like MEASURE.OPTION=VALUE"),
    _c("bad --gdu-weights", f"{{d}}/orig.csv {{d}}/prot.csv {S} --gdu-weights half", 2, "--gdu-weights 'half' must be two numbers"),
    _c("too many names", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --name a --name b", 2, "2 names were given for 1 protected file;"),
    _c("min-cell zero", f"{{d}}/orig.csv {{d}}/prot.csv {S} --min-cell 0", 2, "Invalid value for '--min-cell'"),
    # --- output paths ---
    _c("output folder missing", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --json {{d}}/nofolder/r.json", 2, "the folder {d}/nofolder does not exist"),
    _c("json over the original", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --json {{d}}/orig.csv", 2, "is one of the input files", sub=True),
    _c("html over the spec", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --html {{d}}/spec.yaml", 2, "is one of the input files"),
    _c("json over the original through a symlink", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --json {{d}}/link_to_orig.json", 2, "is one of the input files"),
    _c("json and html the same file", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --json {{d}}/out/same.txt --html {{d}}/out/same.txt", 2,
       "--json and --html both name", sub=True),
    _c("json is a folder", f"{{d}}/orig.csv {{d}}/prot.csv {S} {M} --json {{d}}/out/folder.json", 2, "it is a folder"),
    _c("spec -o over the original", "", 2, "is one of the input files"),  # replaced below: a different command
    # --- names and encodings that are fine ---
    _c("unicode column names", f"{{d}}/unicode_orig.csv {{d}}/unicode_prot.csv --spec {{d}}/unicode_spec.yaml --json {{d}}/out/uni.json --html {{d}}/out/uni.html",
       0, (), outputs=("out/uni.json", "out/uni.html")),
    _c("HTML-special column name", f"{{d}}/html_orig.csv {{d}}/html_prot.csv --spec {{d}}/html_spec.yaml --json {{d}}/out/h.json --html {{d}}/out/h.html",
       0, (), outputs=("out/h.json", "out/h.html")),
    _c("quoted newlines in fields", f"{{d}}/newlines_orig.csv {{d}}/newlines_prot.csv {S} {M} --json {{d}}/out/nl.json",
       0, (), outputs=("out/nl.json",)),
    _c("latin-1 encoded files", f"{{d}}/latin1_orig.csv {{d}}/latin1_prot.csv --spec {{d}}/latin1_spec.yaml {M} --json {{d}}/out/latin.json",
       0, (), outputs=("out/latin.json",)),
    _c("latin-1 column names, numbers only", f"{{d}}/latin1_names_orig.csv {{d}}/latin1_names_prot.csv --continuous revenu_médian --json {{d}}/out/latin_names.json",
       0, (), outputs=("out/latin_names.json",)),
    _c("UTF-8 byte order mark", f"{{d}}/bom_orig.csv {{d}}/bom_prot.csv {S} {M} --json {{d}}/out/bom.json",
       0, (), outputs=("out/bom.json",), sub=True),
    _c("duplicate column with --all", f"{{d}}/orig.csv {{d}}/dupcols.csv --spec {{d}}/all_but_spec.yaml --all", 2, "twice"),
]
CASES[[c.name for c in CASES].index("spec -o over the original")] = Case(
    "spec -o over the original", ("spec", "{d}/orig.csv", "-o", "{d}/orig.csv"), 2, "is one of the input files"
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hostile")
    _write_files(d)
    return d


def _snapshot(d: Path) -> dict[str, str]:
    """sha256 of every file under ``d`` (symlinks by their target's content), keyed by relative path."""
    return {
        str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(d.rglob("*"))
        if p.is_file()
    }


def _argv(case: Case, d: Path) -> list[str]:
    args = [a.replace("{d}", str(d)) for a in case.args]
    return args if case.args and case.args[0] == "spec" else ["compare", *args]


def _run_inprocess(argv: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {type(result.exception).__name__}: {result.exception}") from result.exception
    return result.exit_code, result.stdout, result.stderr


def _run_subprocess(argv: list[str], d: Path) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "infoloss.cli", *argv], capture_output=True, text=True, cwd=d,
                          env=env, timeout=300)
    return done.returncode, done.stdout, done.stderr


def _check(case: Case, d: Path, status: int, stdout: str, stderr: str, before: dict, after: dict) -> None:
    where = f"[{case.name}] exit {status}\n{stderr}"
    assert status == case.code, where
    assert "Traceback" not in stdout + stderr, where
    flat = " ".join(stderr.split())
    for fragment in (case.message,) if isinstance(case.message, str) else case.message:
        assert " ".join(fragment.replace("{d}", str(d)).split()) in flat, where
    if case.absent:
        assert case.absent not in flat, where
    if case.code == 2:
        assert flat.startswith(("infoloss: error: ", "Usage:")), where
    # inputs unchanged, and nothing new except the outputs of a successful run (no temp or partial files)
    changed = [k for k in before if after.get(k) != before[k]]
    assert not changed, f"{where}\nchanged: {changed}"
    new = sorted(set(after) - set(before))
    expected = sorted(case.outputs) if case.code == 0 else []
    assert new == [o for o in expected if o not in before], f"{where}\nnew files: {new}"


def test_the_catalogue_is_large():
    assert len(CASES) >= 40
    assert sum(c.subprocess for c in CASES) >= 10
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [c for c in CASES if not c.subprocess], ids=lambda c: c.name)
def test_hostile_input_in_process(case, workdir):
    before = _snapshot(workdir)
    status, stdout, stderr = _run_inprocess(_argv(case, workdir))
    _check(case, workdir, status, stdout, stderr, before, _snapshot(workdir))
    _check_outputs(case, workdir)


def test_hostile_input_in_a_real_process(workdir):
    """The subprocess cases, two at a time (each starts a Python).

    They run concurrently, so the folder is compared once, before and after
    all of them: no input changed, and the only new files are the outputs of
    the cases that succeed (each writes its own).
    """
    cases = [c for c in CASES if c.subprocess]
    before = _snapshot(workdir)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: _run_subprocess(_argv(c, workdir), workdir), cases))
    after = _snapshot(workdir)
    outputs = {o for c in cases if c.code == 0 for o in c.outputs}
    for case, (status, stdout, stderr) in zip(cases, results):
        _check(case, workdir, status, stdout, stderr, before, {k: v for k, v in after.items()
                                                               if k not in outputs - set(case.outputs)})
        _check_outputs(case, workdir)


def _check_outputs(case: Case, d: Path) -> None:
    """What the successful runs wrote is right: the suppressed columns, the names, the escaping."""
    for name in case.outputs:
        path = d / name
        if name.endswith(".json"):
            doc = json.loads(path.read_text(encoding="utf-8"))
            _check_json(case, doc)
        else:
            page = path.read_text(encoding="utf-8")
            assert page.startswith("<!DOCTYPE html>") or page.lstrip().lower().startswith("<!doctype html>")
            if "h.html" in name:
                assert HTML_NAME not in page  # every occurrence escaped
                assert "&lt;b&gt;&amp;" in page


def _check_json(case: Case, doc: dict) -> None:
    (scenario,) = doc["scenarios"]
    measures = scenario["measures"]
    if case.name == "categorical column suppressed in every record":
        assert measures["suppressions"]["by_variable"] == {"region": 40.0, "educ": 40.0, "income": 0.0}
        assert set(measures) | set(scenario["not_computed"]) == {m["id"] for m in _registry()}
    elif case.name == "continuous column suppressed in every record":
        assert measures["suppressions"]["by_variable"]["income"] == 40.0
    elif case.name == "fully suppressed by missing codes":
        assert measures["suppressions"]["by_variable"] == {"region": 40.0, "educ": 40.0, "income": 0.0}
    elif case.name == "unicode column names":
        assert list(doc["original"]["variables"]) == ["Région", "教育", "income 💶"]
    elif case.name == "HTML-special column name":
        assert HTML_NAME in doc["original"]["variables"]
    elif case.name == "quoted newlines in fields":
        assert measures["suppressions"]["value"] == 0.0 and doc["original"]["n_records"] == 40
    elif case.name == "latin-1 encoded files":
        assert list(doc["original"]["variables"]) == ["Région", "income"]
        assert measures["suppressions"]["value"] == 0.0
    elif case.name == "latin-1 column names, numbers only":
        assert doc["original"]["variables"]["revenu_médian"] == "continuous"
    elif case.name == "UTF-8 byte order mark":
        assert "region" in doc["original"]["variables"]  # the first column's name has no BOM left
        assert measures["suppressions"]["value"] == 2.0


def _registry():
    from infoloss.registry import registered

    return [m.to_dict() for m in registered()]


# ---------------------------------------------------------------------------
# fuzzing: the spec loader and the CSV reader
# ---------------------------------------------------------------------------
_WORDS = list(TOP_KEYS + VARIABLE_KEYS + SCALES + ROLES) + ["by", "map", "breaks", "top", "bottom", "intervals",
                                                           "mask", "right", "row", "none", "\\t", ";", ","]
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(_WORDS), st.text(max_size=12),
)
_keys = st.one_of(st.sampled_from(_WORDS), st.text(max_size=8), st.integers(-5, 5), st.booleans(), st.none())
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=25,
)
_variable = st.dictionaries(st.sampled_from(VARIABLE_KEYS), _values, max_size=5)
_specs = st.one_of(
    _values,
    st.fixed_dictionaries(
        {"variables": st.one_of(_values, st.dictionaries(_keys, st.one_of(_variable, _values), max_size=4))},
        optional={k: _values for k in TOP_KEYS if k != "variables"},
    ),
)


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_specs)
def test_spec_loader_fuzz_only_raises_spec_errors(raw, tmp_path_factory):
    try:
        spec_from_dict(raw, base_dir=tmp_path_factory.getbasetemp())
    except SpecError:
        pass


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_specs)
def test_spec_file_fuzz_only_raises_spec_errors(raw, tmp_path_factory):
    """The same through a YAML file (load_spec), including text YAML cannot represent back."""
    path = tmp_path_factory.getbasetemp() / "fuzz.yaml"
    try:
        path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    except (yaml.YAMLError, UnicodeEncodeError):
        return
    from infoloss.spec import load_spec

    try:
        load_spec(path)
    except SpecError:
        pass


_CSV_PIECES = st.sampled_from(
    [b",", b";", b"\t", b"|", b"\n", b"\r\n", b"\r", b'"', b"'", b"\x00", b"\xef\xbb\xbf", b"\xff", b"\xe9", b"NA",
     b"1", b"-2.5e3", b"1e400", b"inf", b"nan", b"", b"a", b"x y", b"\xe2\x82\xac", b"2024-01-01", b"true", b" "]
)
_csv_bytes = st.one_of(
    st.binary(max_size=300),
    st.lists(_CSV_PIECES, max_size=60).map(b"".join),
)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_csv_bytes, separator=st.sampled_from([None, ",", ";", "\t"]))
def test_csv_reader_fuzz_gives_a_frame_or_an_input_error(data, separator, tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "fuzz.csv"
    path.write_bytes(data)
    spec = spec_from_dict({"separator": separator} if separator else {})
    try:
        df = read_table(path, spec)
    except InputError:
        return
    assert isinstance(df, pd.DataFrame)
    assert df.columns.is_unique and all(isinstance(c, str) for c in df.columns)


def test_a_symlink_loop_given_as_a_file_is_an_input_error(tmp_path):
    # Path.resolve raised RuntimeError ("Symlink loop") before any check: a traceback, exit 1
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    status, _, stderr = _run_inprocess(["compare", str(tmp_path / "a"), str(tmp_path / "a")])
    assert status == 2 and stderr.startswith("infoloss: error: the original file")
    from infoloss.synth import write_example

    (tmp_path / "ex").mkdir()
    write_example(tmp_path / "ex")
    status, _, stderr = _run_inprocess(["compare", str(tmp_path / "ex" / "original.csv"),
                                        str(tmp_path / "ex" / "protected_noise.csv"), "--spec",
                                        str(tmp_path / "ex" / "spec.yaml"), "--measures", "il1s",
                                        "--json", str(tmp_path / "b")])
    assert status == 0, stderr


@pytest.mark.parametrize("bad", [123, b"spec.yaml", "a\x00.yaml", "x" * 5000])
def test_a_path_that_cannot_name_a_file_is_one_sentence_in_the_api(bad, tmp_path):
    # load_spec, read_table, compare and the writers raised TypeError, ValueError (NUL) or OSError (name too long)
    import infoloss
    from infoloss.errors import InputError, SpecError
    from infoloss.io import read_table
    from infoloss.spec import load_spec

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    spec = {"variables": {"x": {"scale": "continuous"}}}
    with pytest.raises(SpecError, match="^the spec file .*(path|NUL|longer than)"):
        load_spec(bad)
    with pytest.raises(InputError, match="^the original file .*(path|NUL|longer than)"):
        read_table(bad)
    report = infoloss.compare(df, df.copy(), spec, measures=["il1s"])
    for write in (report.to_json, report.to_html):
        with pytest.raises(InputError, match="^the output file .*(path|NUL|longer than)"):
            write(bad)
    if isinstance(bad, str):
        with pytest.raises(InputError, match="^the original file"):
            infoloss.compare(bad + ".csv", df, spec)


def test_nested_arrow_columns_are_refused_like_object_lists():
    import pyarrow as pa

    import infoloss
    from infoloss.errors import InputError
    from infoloss.limits import InferenceWarning

    tags = pd.Series(pd.arrays.ArrowExtensionArray(pa.array([[1, 2], [3], [4, 5], [6]] * 5)))
    df = pd.DataFrame({"tags": tags, "x": np.arange(20) / 3})
    with pytest.warns(InferenceWarning, match="column 'tags' is left out of the inferred spec: it holds lists"):
        assert "tags" in infoloss.infer_spec(df).left_out
    with pytest.raises(InputError, match="holds values that are not single numbers or text"):
        infoloss.compare(df, df.copy(), {"variables": {"tags": {"scale": "nominal"}, "x": {"scale": "continuous"}}})


def test_whole_numbers_beyond_the_float_range_are_infinite_values_or_spec_errors(tmp_path):
    import infoloss
    from infoloss.errors import InputError, SpecError
    from infoloss.spec import spec_from_dict

    big = 10**400
    df = pd.DataFrame({"c": pd.Series([big + i for i in range(5)], dtype=object)})
    with pytest.raises(InputError, match="has 5 infinite values"):
        infoloss.compare(df, df.copy(), {"variables": {"c": {"scale": "continuous"}}})
    with pytest.raises(SpecError, match="has a number of 401 digits, beyond a float's range, which is not a break"):
        spec_from_dict({"variables": {"x": {"scale": "continuous", "recode": {"breaks": [0, big]}}}})
    with pytest.raises(SpecError, match="must be a list of at least two numbers"):
        spec_from_dict({"variables": {"x": {"scale": "continuous", "hierarchy": {"intervals": [-5, 0, big]},
                                            "role": "key"}}})
    # a missing code no value can be: refused (a CSV file's read crashed on it: float() overflowed)
    with pytest.raises(SpecError, match=r"'missing' of variable 'x' holds a whole number beyond ±1.8e308"):
        spec_from_dict({"variables": {"x": {"scale": "continuous", "missing": [big]}}})


def test_text_that_is_not_valid_unicode_is_named():
    import infoloss
    from infoloss.errors import InputError

    df = pd.DataFrame({"a": pd.Series(["x", "\udc80y", "z", "x"], dtype=object)})
    with pytest.raises(InputError, match="variable 'a' holds text that is not valid Unicode"):
        infoloss.compare(df, df.copy(), {"variables": {"a": {"scale": "nominal"}}})


def test_thousands_separators_are_named_not_advised_as_missing_codes():
    # "12,345.6" was advised to be declared nominal or listed as a missing code, either of which loses the value
    # (found by the hostile-input audit)
    from infoloss.errors import InputError
    from infoloss.pair import encode_pair

    spec = {"variables": {"x": {"scale": "continuous"}, "w": {"role": "weight"}}}
    good = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "w": [1.0, 2.0, 1.0, 1.0]})
    for value in ("12,345.6", "1,234,567", "12 345.6", "1'234.5"):
        grouped = good.assign(x=pd.Series([1.0, value, 3.0, 4.0], dtype=object))
        with pytest.raises(InputError, match=r"the protected file writes its numbers with thousands separators "
                                             r"\(.+\); remove them \(export the file without digit grouping\)\.$"):
            encode_pair(good, grouped, spec)
    weights = good.assign(w=pd.Series(["1,000.5", "2", "1", "1"], dtype=object))
    with pytest.raises(InputError, match=r"weight column 'w' of the original file writes its numbers with thousands"):
        encode_pair(weights, good, spec)


def test_weight_messages_name_a_decimal_comma_and_an_impossible_span():
    from infoloss.errors import InputError
    from infoloss.pair import encode_pair

    spec = {"variables": {"x": {"scale": "continuous"}, "w": {"role": "weight"}}}
    x = [1.0, 2.0, 3.0, 4.0]
    comma = pd.DataFrame({"x": x, "w": pd.Series(["1,0", "2,5", "1,5", "3,0"], dtype=object)})
    with pytest.raises(InputError, match=r"weight column 'w' of the original file writes its numbers with a decimal comma \('1,0'\)"):
        encode_pair(comma, comma, spec)
    span = pd.DataFrame({"x": x, "w": [5e-324, 1.0, 2.0, 5.0]})
    with pytest.raises(InputError, match="more than 200 orders of magnitude apart, which no common factor"):
        encode_pair(span, span, spec)


def test_inferred_specs_take_dates_as_days_and_leave_complex_numbers_out():
    import infoloss

    d = pd.Series(pd.date_range("2020-01-01", periods=30))
    df = pd.DataFrame({"when": d, "took": d - d[0], "objects": d.astype(object), "z": np.arange(30) + 1j})
    with pytest.warns(UserWarning, match="column 'z' is left out of the inferred spec: it holds complex numbers"):
        spec = infoloss.infer_spec(df)
    variables = spec.variables
    assert [variables[n].scale for n in ("when", "took", "objects")] == ["continuous"] * 3
    assert variables["when"].note.startswith("dates, taken as days since 1970-01-01")
    assert "z" not in variables and spec.left_out["z"].startswith("it holds complex numbers")


def test_a_column_of_intervals_declared_continuous_is_named_as_intervals():
    import infoloss
    from infoloss.errors import InputError

    x = pd.cut(np.arange(20.0), 4)
    df = pd.DataFrame({"x": pd.Series(pd.arrays.IntervalArray(x.categories.take(x.codes)))})
    with pytest.raises(InputError, match=r"variable 'x' holds intervals \(classes such as .*\) in the original file"):
        infoloss.compare(df, df.copy(), {"variables": {"x": {"scale": "continuous"}}})


def test_pandas_missing_values_in_a_spec_read_as_keys_left_empty():
    # a spec built from a data dictionary read with pandas has pd.NA in its empty cells (it was a TypeError)
    import infoloss

    df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6], "g": list("aabbcc")})
    with pytest.raises(InputError, match=r"^variable 'x' has no scale; add scale"):
        infoloss.compare(df, df.copy(), {"variables": {"x": {"scale": pd.NA}}})
    with pytest.raises(InputError, match=r"^'pairing' must be row"):
        spec_from_dict({"variables": {"x": {"scale": "continuous"}}, "pairing": pd.NA})
    spec = spec_from_dict({"variables": {"x": {"scale": "continuous", "missing": pd.NA, "hierarchy": pd.NA}},
                           "analyses": pd.NA, "separator": pd.NA})
    assert spec.variables["x"].missing == [] and spec.variables["x"].hierarchy is None


def test_a_column_without_a_name_is_refused():
    import infoloss

    df = pd.DataFrame({None: [1.0, 2, 3, 4, 5, 6], "g": list("aabbcc")})  # pandas makes the None key NaN
    with pytest.raises(InputError, match=r"^the original file's column 1 has no name \(NaN; a None key of a dict"):
        infoloss.compare(df, df.copy(), None, measures=["il1s"])


def test_a_pipe_in_a_variable_name_is_refused_in_one_sentence(tmp_path):
    # results name pairs of variables "a|b": "income|net" beside "age" crashed aldu_biv and the safe tables
    import infoloss

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"income|net": rng.normal(50, 10, 60), "age": rng.normal(40, 12, 60)})
    with pytest.raises(InputError, match=r"^variable 'income\|net' has a '\|' in its name, which infoloss uses to "
                                         r"name pairs of variables \(a\|b\); rename the column, e.g. to 'income_net'"):
        infoloss.compare(df, df * 1.1, measures=["aldu_biv"])
    df.to_csv(tmp_path / "o.csv", index=False)
    (df * 1.1).to_csv(tmp_path / "p.csv", index=False)
    run = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare", str(tmp_path / "o.csv"), str(tmp_path / "p.csv"),
                          "--json", str(tmp_path / "out.json")], capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.startswith("infoloss: error: variable 'income|net' has a '|'")
    assert "Traceback" not in run.stderr and not (tmp_path / "out.json").exists()


def test_long_values_are_quoted_as_excerpts_in_messages():
    # a 100,000-character value made a one-sentence message of 200,000 characters (found by the hostile-input audit)
    import infoloss

    big = "W" * 100_000
    o = pd.DataFrame({"age": [20, 30, 40, 50], "region": [big, "S", "N", "E"]})
    specs = [{"variables": {"age": {"scale": "continuous"}, "region": {"scale": "continuous"}}},
             {"variables": {"age": {"scale": "continuous"}, "region": {"scale": "ordinal", "order": ["N", "S", "E"]}}},
             {"variables": {"age": {"scale": big}}}]
    for spec in specs:
        with pytest.raises(InputError) as caught:
            infoloss.compare(o, o.copy(), spec)
        assert len(str(caught.value)) < 400 and "(100,000 characters)" in str(caught.value)
    many = pd.DataFrame({"g": [f"c{i}" for i in range(50)]})
    with pytest.raises(InputError, match=r"'c0', 'c1', 'c10', 'c11', 'c12', \.\.\. 44 more categories \.\.\., 'c9'"):
        infoloss.compare(many, many.copy(), {"variables": {"g": {"scale": "ordinal", "order": ["zz"]}}})
