"""The variable spec: which variables are analysed, their scale, role and codes.

The YAML format is documented in ``docs/spec.md`` (public contract: the
project's ``interface.md`` section 1).  This module loads and validates a spec,
infers one from a DataFrame, writes it back as commented YAML and applies
command-line overrides.  It depends on nothing else in infoloss.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd
import yaml

from .errors import SpecError

SCALES = ("nominal", "ordinal", "continuous")
ROLES = ("key", "sensitive", "target", "weight", "id", "household", "strata", "cluster", "other")
# columns with these roles describe the records (design, identity) and are never analysed as variables
NOT_ANALYSED_ROLES = ("weight", "id", "household", "cluster")
VARIABLE_KEYS = ("scale", "role", "order", "missing", "pram", "hierarchy", "recode", "removed")
TOP_KEYS = ("variables", "missing", "pairing", "separator", "analyses")
RECODE_KINDS = ("map", "breaks", "top", "bottom")
DEFAULT_MISSING = ("", "NA", "NaN")
# numeric columns with more distinct values than this are inferred continuous
CONTINUOUS_MIN_DISTINCT = 20


@dataclass
class VariableSpec:
    """One variable of the spec."""

    name: str
    scale: str | None = None
    role: str = "other"
    order: list | None = None
    missing: list = field(default_factory=list)
    pram: Path | None = None
    hierarchy: Path | None = None
    recode: dict | None = None
    removed: bool = False
    note: str = ""  # why it was inferred this way (written as a YAML comment)

    @property
    def analysed(self) -> bool:
        return self.role not in NOT_ANALYSED_ROLES

    @property
    def categorical(self) -> bool:
        return self.scale in ("nominal", "ordinal")

    def to_yaml_dict(self) -> dict:
        out: dict[str, Any] = {}
        if self.scale is not None and self.analysed:
            out["scale"] = self.scale
        if self.role != "other":
            out["role"] = self.role
        if self.order is not None:
            out["order"] = list(self.order)
        if self.missing:
            out["missing"] = list(self.missing)
        for key in ("pram", "hierarchy"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value if isinstance(value, dict) else str(value)
        if self.recode is not None:
            out["recode"] = self.recode
        if self.removed:
            out["removed"] = True
        return out


@dataclass
class Spec:
    """A validated variable spec.

    ``variables`` keeps the spec's order, which is the order of ``by_variable``
    and of the two names in ``by_pair`` keys.
    """

    variables: dict[str, VariableSpec] = field(default_factory=dict)
    missing: list = field(default_factory=lambda: list(DEFAULT_MISSING))
    pairing: str | dict = "row"
    separator: str | None = None
    base_dir: Path = field(default_factory=Path.cwd)
    analyse_all: bool = False
    analyses: dict | None = None  # the 'analyses:' section (estimates, regressions, ci), as given

    def names_with_role(self, role: str) -> list[str]:
        """Names of the variables with this role, in spec order."""
        return [v.name for v in self.variables.values() if v.role == role]

    # -- views -----------------------------------------------------------
    @property
    def analysed(self) -> list[VariableSpec]:
        """Variables that are analysed (not weight, id, household or cluster columns), in spec order."""
        return [v for v in self.variables.values() if v.analysed]

    @property
    def weight(self) -> str | None:
        """The weight column (the first variable with role weight), if any."""
        names = [v.name for v in self.variables.values() if v.role == "weight"]
        return names[0] if names else None

    @property
    def pairing_id(self) -> str | None:
        return self.pairing.get("by") if isinstance(self.pairing, dict) else None

    @property
    def pairing_nearest(self) -> list[str] | None | bool:
        """False unless ``pairing: nearest``; then the listed matching variables, or None for the default ones."""
        if self.pairing == "nearest":
            return None
        if isinstance(self.pairing, dict) and "nearest" in self.pairing:
            return list(self.pairing["nearest"])
        return False

    def names(self, scale: str | Iterable[str] | None = None) -> list[str]:
        """Names of analysed variables, optionally only those of the given scale(s)."""
        scales = (scale,) if isinstance(scale, str) else scale
        return [v.name for v in self.analysed if scales is None or v.scale in scales]

    def to_dict(self) -> dict:
        pairing = self.pairing if isinstance(self.pairing, str) else dict(self.pairing)
        out: dict[str, Any] = {"variables": {n: v.to_yaml_dict() for n, v in self.variables.items()}}
        out["missing"] = list(self.missing)
        out["pairing"] = pairing
        if self.separator is not None:
            out["separator"] = self.separator
        if self.analyses is not None:
            out["analyses"] = self.analyses
        return out

    def to_yaml(self, header: str = "") -> str:
        """The spec as YAML, one line per variable, inferred lines commented with why."""
        lines = [f"# {line}" for line in header.splitlines()] if header else []
        lines.append("variables:")
        width = max([len(_yaml_key(n)) for n in self.variables] + [1])
        for name, var in self.variables.items():
            body = yaml.safe_dump(var.to_yaml_dict(), default_flow_style=True, sort_keys=False, width=10**6).strip()
            line = f"  {_yaml_key(name) + ':':<{width + 1}} {body}"
            if var.note:
                line += f"   # {var.note}"
            lines.append(line)
        rest = {k: v for k, v in self.to_dict().items() if k != "variables"}
        lines.append(yaml.safe_dump(rest, default_flow_style=None, sort_keys=False, width=10**6).strip())
        return "\n".join(lines) + "\n"

    def copy(self) -> "Spec":
        return copy.deepcopy(self)


def _yaml_key(name: str) -> str:
    dumped = yaml.safe_dump({name: 0}, default_flow_style=True).strip()
    return dumped[1:].rsplit(":", 1)[0].strip()


# ---------------------------------------------------------------------------
# loading and validation
# ---------------------------------------------------------------------------
def load_spec(path: str | Path) -> Spec:
    """Read and validate a YAML spec file; relative paths in it are relative to the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read the spec file {path}: {exc.strerror or exc}.") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SpecError(f"the spec file {path} is not valid YAML{where}; check its indentation and quoting.") from None
    return spec_from_dict(raw, base_dir=path.resolve().parent)


def spec_from_dict(raw: Any, base_dir: str | Path | None = None) -> Spec:
    """Validate a spec given as a dictionary (the parsed YAML)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise SpecError("the spec must be a mapping with a 'variables' section.")
    unknown = [k for k in raw if k not in TOP_KEYS]
    if unknown:
        raise SpecError(f"unknown key {unknown[0]!r} at the top of the spec; allowed keys are {', '.join(TOP_KEYS)}.")
    spec = Spec(base_dir=Path(base_dir) if base_dir is not None else Path.cwd())
    variables = raw.get("variables") or {}
    if not isinstance(variables, dict):
        raise SpecError("'variables' in the spec must map variable names to their settings.")
    for name, settings in variables.items():
        var = _variable_from_dict(str(name), settings, spec.base_dir)
        spec.variables[var.name] = var
    if "missing" in raw:
        spec.missing = _as_list(raw["missing"], "missing", "the top-level 'missing'")
    spec.pairing = _parse_pairing(raw.get("pairing", "row"))
    if spec.pairing_id is not None:
        pid = spec.pairing_id
        if pid in spec.variables and spec.variables[pid].role != "id":
            spec.variables[pid].role = "id"
    sep = raw.get("separator")
    if sep is not None:
        if not isinstance(sep, str) or len(sep.encode()) != 1 and sep != "\\t":
            raise SpecError(f"'separator' must be a single character, got {sep!r}.")
        spec.separator = "\t" if sep == "\\t" else sep
    analyses = raw.get("analyses")
    if analyses is not None and not isinstance(analyses, dict):
        raise SpecError("'analyses' in the spec must be a mapping with 'estimates', 'regressions' and/or 'ci'.")
    spec.analyses = analyses
    _check_roles(spec)
    return spec


def _variable_from_dict(name: str, settings: Any, base_dir: Path) -> VariableSpec:
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise SpecError(f"the settings of variable {name!r} must be a mapping like {{scale: nominal}}.")
    unknown = [k for k in settings if k not in VARIABLE_KEYS]
    if unknown:
        raise SpecError(
            f"unknown key {unknown[0]!r} for variable {name!r}; allowed keys are {', '.join(VARIABLE_KEYS)}."
        )
    var = VariableSpec(name=name)
    role = settings.get("role", "other")
    if role not in ROLES:
        raise SpecError(f"variable {name!r} has role {role!r}; use one of {', '.join(ROLES)}.")
    var.role = role
    scale = settings.get("scale")
    if scale is not None and scale not in SCALES:
        raise SpecError(f"variable {name!r} has scale {scale!r}; use one of {', '.join(SCALES)}.")
    if scale is None and var.analysed:
        raise SpecError(f"variable {name!r} has no scale; add scale: nominal, ordinal or continuous.")
    var.scale = scale
    if "order" in settings:
        if scale != "ordinal":
            raise SpecError(f"variable {name!r} has an 'order' but its scale is {scale}, not ordinal.")
        order = _as_list(settings["order"], "order", f"variable {name!r}")
        if len(set(map(_norm_label, order))) != len(order):
            raise SpecError(f"the 'order' of variable {name!r} lists a category twice.")
        var.order = order
    if "missing" in settings:
        var.missing = _as_list(settings["missing"], "missing", f"variable {name!r}")
    if settings.get("pram") is not None:
        if not isinstance(settings["pram"], str):
            raise SpecError(f"'pram' of variable {name!r} must be a file path.")
        var.pram = base_dir / settings["pram"]
    hierarchy = settings.get("hierarchy")
    if hierarchy is not None:
        if isinstance(hierarchy, str):
            var.hierarchy = base_dir / hierarchy
        elif isinstance(hierarchy, dict):
            var.hierarchy = dict(hierarchy)
        else:
            raise SpecError(
                f"'hierarchy' of variable {name!r} must be a file path, {{intervals: [...]}} or {{mask: right}}."
            )
    if settings.get("recode") is not None:
        var.recode = _parse_recode(name, settings["recode"])
    removed = settings.get("removed", False)
    if not isinstance(removed, bool):
        raise SpecError(f"'removed' of variable {name!r} must be true or false.")
    var.removed = removed
    return var


def _parse_recode(name: str, recode: Any) -> dict:
    if not isinstance(recode, dict) or len(recode) != 1 or next(iter(recode)) not in RECODE_KINDS:
        raise SpecError(
            f"'recode' of variable {name!r} must be one of {{map: {{...}}}}, {{breaks: [...]}}, {{top: N}} or {{bottom: N}}."
        )
    kind, value = next(iter(recode.items()))
    if kind == "map":
        if not isinstance(value, dict) or not value:
            raise SpecError(f"'recode: map' of variable {name!r} must map original values to new values.")
    elif kind == "breaks":
        if not isinstance(value, list) or len(value) < 2 or not all(_is_number(b) for b in value):
            raise SpecError(f"'recode: breaks' of variable {name!r} must be a list of at least two numbers.")
        if np.any(np.diff(np.asarray(value, dtype=float)) <= 0):
            raise SpecError(f"'recode: breaks' of variable {name!r} must be strictly increasing.")
    elif not _is_number(value):
        raise SpecError(f"'recode: {kind}' of variable {name!r} must be a number.")
    return {kind: value}


def _parse_pairing(value: Any) -> str | dict:
    if value in ("row", "none", "nearest"):
        return value
    if isinstance(value, dict) and set(value) == {"by"} and isinstance(value["by"], str):
        return {"by": value["by"]}
    if isinstance(value, dict) and set(value) == {"nearest"}:
        names = value["nearest"]
        if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
            return {"nearest": list(names)}
        raise SpecError("'pairing: {nearest: [...]}' must list the matching variables by name, e.g. [AGE, REGION].")
    raise SpecError(f"'pairing' must be row, none, nearest, {{by: ID_COLUMN}} or {{nearest: [VARIABLES]}}, got {value!r}.")


def _check_roles(spec: Spec) -> None:
    for var in spec.variables.values():
        if var.removed and not var.analysed:
            raise SpecError(f"variable {var.name!r} is a {var.role} column and cannot be marked removed.")


def _as_list(value: Any, key: str, where: str) -> list:
    if isinstance(value, (str, int, float)):
        return [value]
    if not isinstance(value, list):
        raise SpecError(f"'{key}' of {where} must be a list.")
    return list(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _norm_label(value: Any) -> str:
    """Canonical text of a category label, so that 2, 2.0 and "2" are one category."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return str(int(f)) if f.is_integer() else repr(f)
    text = str(value).strip()
    try:
        f = float(text)
    except ValueError:
        return text
    if np.isfinite(f) and f.is_integer() and re.fullmatch(r"[+-]?(0|[1-9]\d*)(\.0*)?", text):
        return str(int(f))
    return text


normalise_label = _norm_label


# ---------------------------------------------------------------------------
# checks against the data
# ---------------------------------------------------------------------------
def check_columns(spec: Spec, columns: Iterable[str], which: str) -> None:
    """Raise if the spec names a column the file does not have (removed variables excepted in protected files)."""
    present = set(columns)
    for var in spec.variables.values():
        if var.name in present:
            continue
        if var.removed and which != "original":
            continue
        hint = _close_match(var.name, present)
        raise SpecError(
            f"variable {var.name!r} of the spec is not a column of the {which} file{hint}; "
            "fix its name in the spec or remove it."
        )
    if spec.pairing_id is not None and spec.pairing_id not in present:
        raise SpecError(f"the pairing id column {spec.pairing_id!r} is not a column of the {which} file.")


def _close_match(name: str, present: set[str]) -> str:
    import difflib

    by_lower = {p.lower(): p for p in sorted(present)}
    match = difflib.get_close_matches(name.lower(), list(by_lower), n=1)
    return f" (did you mean {by_lower[match[0]]!r}?)" if match else ""


# ---------------------------------------------------------------------------
# inference
# ---------------------------------------------------------------------------
_WEIGHT_RE = re.compile(r"(?i)(^w$|^wt$|weight|wgt|^pw$|^fnlwgt$|^pesos?$|^poids$)")
_ID_RE = re.compile(r"(?i)(^id$|^id[_.]|[_.]id$|hid$|pid$|^[A-Z0-9_]*ID$)")


def infer_spec(df: pd.DataFrame, *, pairing: str | dict = "row") -> Spec:
    """Infer an editable spec from a DataFrame.

    Rules: ordered categoricals (labelled ordinal SPSS/Stata variables) become
    ordinal; text, unordered categoricals, booleans and numbers with at most
    ``CONTINUOUS_MIN_DISTINCT`` distinct values become nominal; other numbers
    continuous.  Columns named like weights or identifiers get those roles.
    Each variable's ``note`` says why.
    """
    spec = Spec(pairing=pairing)
    for name in df.columns:
        spec.variables[str(name)] = _infer_variable(str(name), df[name])
    return spec


def _infer_variable(name: str, col: pd.Series) -> VariableSpec:
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    if numeric and _WEIGHT_RE.search(name):
        return VariableSpec(name, role="weight", note="named like a weight")
    if _ID_RE.search(name):
        return VariableSpec(name, role="id", note="named like an identifier")
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.dtype.ordered:
            return VariableSpec(name, scale="ordinal", note="ordered categories (labelled ordinal)")
        return VariableSpec(name, scale="nominal", note="labelled categories")
    if not numeric:
        n = col.nunique(dropna=True)
        return VariableSpec(name, scale="nominal", note=f"text, {n} distinct values")
    n = col.nunique(dropna=True)
    if n > CONTINUOUS_MIN_DISTINCT:
        return VariableSpec(name, scale="continuous", note=f"number, {n} distinct values")
    return VariableSpec(name, scale="nominal", note=f"number with only {n} distinct values")


# ---------------------------------------------------------------------------
# command-line overrides
# ---------------------------------------------------------------------------
def apply_overrides(
    spec: Spec,
    *,
    nominal: Iterable[str] = (),
    ordinal: Iterable[str] = (),
    continuous: Iterable[str] = (),
    key: Iterable[str] = (),
    weight: str | None = None,
    id: str | None = None,
    pairing: str | None = None,
) -> Spec:
    """Return a copy of ``spec`` with command-line overrides applied.

    A variable not yet in the spec is added; ``--pairing`` takes ``row``,
    ``none``, ``nearest`` or the name of an id column.
    """
    spec = spec.copy()

    def var(name: str) -> VariableSpec:
        if name not in spec.variables:
            spec.variables[name] = VariableSpec(name)
        return spec.variables[name]

    for scale, names in (("nominal", nominal), ("ordinal", ordinal), ("continuous", continuous)):
        for name in names:
            v = var(name)
            v.scale = scale
            if v.role in ("weight", "id"):
                v.role = "other"
            if scale != "ordinal":
                v.order = None
    for name in key:
        v = var(name)
        if v.scale is None:
            raise SpecError(f"--key {name}: give the variable a scale too (--nominal, --ordinal or --continuous).")
        v.role = "key"
    if weight:
        for v in spec.variables.values():
            if v.role == "weight":
                v.role = "other"
                if v.scale is None:
                    v.scale = "continuous"
        w = var(weight)
        w.role = "weight"
    if id:
        var(id).role = "id"
    if pairing:
        if pairing in ("row", "none", "nearest"):
            spec.pairing = pairing
        else:
            var(pairing).role = "id"
            spec.pairing = {"by": pairing}
    for v in spec.variables.values():
        if v.analysed and v.scale is None:
            raise SpecError(f"variable {v.name!r} has no scale; add --nominal, --ordinal or --continuous for it.")
    return spec
