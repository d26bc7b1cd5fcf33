"""The variable spec: which variables are analysed, their scale, role and codes.

The YAML format is documented in ``docs/spec.md`` (public contract: the
project's ``interface.md`` section 1).  This module loads and validates a spec,
writes it back as commented YAML and applies command-line overrides;
:mod:`infoloss.spec_infer` infers one from a DataFrame.  It does not import
pandas: ``infoloss compare`` loads the spec while pandas is still to come.
"""

from __future__ import annotations

import copy
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import yaml

from ._files import resolved
from .errors import SpecError, excerpt

SCALES = ("nominal", "ordinal", "continuous")
ROLES = ("key", "sensitive", "target", "weight", "id", "household", "strata", "cluster", "other")
# columns with these roles describe the records (design, identity) and are never analysed as variables
NOT_ANALYSED_ROLES = ("weight", "id", "household", "cluster")
VARIABLE_KEYS = ("scale", "role", "order", "missing", "pram", "hierarchy", "recode", "removed", "level")
# a variable measured on the person (default) or on the whole household (same value for every member)
LEVELS = ("person", "household")
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
    level: str = "person"  # "household": constant within a household (checked by the household risk)
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
        if self.level != "person":
            out["level"] = self.level
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
    path: Path | None = None  # the YAML file it was loaded from, if any
    # columns an inferred spec leaves out (no spec can compare them), with why: written commented out by to_yaml
    left_out: dict[str, str] = field(default_factory=dict)

    def input_files(self) -> list[Path]:
        """The files this spec makes a comparison read: the spec file itself, PRAM matrices, hierarchies (also
        those given as ``{file: ...}``)."""
        files = [self.path] if self.path is not None else []
        for var in self.variables.values():
            files += [f for f in (var.pram, var.hierarchy) if isinstance(f, Path)]
            if isinstance(var.hierarchy, dict) and isinstance(var.hierarchy.get("file"), str):
                files.append(self.base_dir / var.hierarchy["file"])
        return files

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
        keys = {name: _yaml_key(name) for name in self.variables}
        width = max([len(k) for k in keys.values() if len(k) <= LONGEST_KEY] + [1])
        for name, var in self.variables.items():
            body = yaml.safe_dump(var.to_yaml_dict(), default_flow_style=True, sort_keys=False, width=10**6).strip()
            body += f"   # {var.note}" if var.note else ""
            if len(keys[name]) > LONGEST_KEY:  # YAML's explicit key, on two lines: no limit on its length
                lines += [f"  ? {keys[name]}", f"  : {body}"]
            else:
                lines.append(f"  {keys[name] + ':':<{width + 1}} {body}")
        lines += [f"  # {_yaml_key(name)}:   # left out: {why}" for name, why in self.left_out.items()]
        rest = {k: v for k, v in self.to_dict().items() if k != "variables"}
        lines.append(yaml.safe_dump(rest, default_flow_style=None, sort_keys=False, width=10**6).strip())
        return "\n".join(lines) + "\n"

    def copy(self) -> "Spec":
        return copy.deepcopy(self)


#: the longest key written as ``key: value``: PyYAML reads a key on one line only within 1024 characters
LONGEST_KEY = 1000


def _yaml_key(name: str) -> str:
    """``name`` as a YAML mapping key, quoted where YAML needs it (``''`` for an empty name)."""
    dumped = yaml.safe_dump({name: 0}, default_flow_style=True, width=sys.maxsize).strip()
    key = dumped[1:].rsplit(":", 1)[0].strip()
    if key.startswith("?") or "\n" in key:  # PyYAML's explicit-key form (an empty or a multi-line name)
        return yaml_text(name)
    return key


def yaml_text(text: str) -> str:
    """``text`` as a YAML double-quoted scalar on one line: line breaks (also U+2028), quotes and control
    characters escaped, so that it can stand in a one-line comment of a spec too."""
    return yaml.safe_dump(text, default_style='"', allow_unicode=True, width=sys.maxsize).strip()


# ---------------------------------------------------------------------------
# loading and validation
# ---------------------------------------------------------------------------
class DuplicateKey(Exception):
    """A mapping of the spec that gives one key twice (key, line)."""


class BadScalar(Exception):
    """A value that YAML reads as a number or a date but Python cannot make (text, line, reason)."""


class UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key given twice in one mapping is an error, not the last one winning
    (a variable listed twice would silently lose its first definition)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # '<<: *anchor' merges; its keys may be overridden
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) or key is None:
                if key in seen:
                    raise DuplicateKey(key, key_node.start_mark.line + 1)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """PyYAML's, with a ValueError of a scalar (an integer of more than 4300 digits, the date 2024-02-30)
        raised as :class:`BadScalar` with its line."""
        try:
            return super().construct_object(node, deep=deep)
        except ValueError as exc:
            if not isinstance(node, yaml.ScalarNode):
                raise
            text = str(node.value)
            reason = (f"a whole number of {len(text):,} characters (Python reads at most 4,300 digits)"
                      if "digits" in str(exc) else "not a valid date or number")
            raise BadScalar(text if len(text) <= 40 else text[:37] + "...", node.start_mark.line + 1, reason) from None


#: most values (list items, mapping entries) of a spec with its YAML aliases repeated
MAX_SPEC_VALUES = 1_000_000


def expanded_size(obj: Any, seen: dict[int, int] | None = None) -> int:
    """The number of values of ``obj`` (parsed YAML) with every alias repeated, counted once per shared list or
    mapping (``seen``), and no further than just past MAX_SPEC_VALUES.

    >>> shared = ["x"] * 10
    >>> expanded_size({"a": [shared] * 10})  # the mapping, its key, the outer list, 10 inner lists of 10
    113
    """
    if not isinstance(obj, (list, dict)):
        return 1
    seen = {} if seen is None else seen
    if id(obj) in seen:
        if seen[id(obj)] < 0:  # still being counted: the value contains itself
            raise SpecError("the spec refers to itself through a YAML alias (such as &a [x, *a]); write the values "
                            "out instead.")
        return seen[id(obj)]
    seen[id(obj)] = -1
    items = [*obj.keys(), *obj.values()] if isinstance(obj, dict) else obj
    total = 1
    for item in items:
        total += expanded_size(item, seen)
        if total > MAX_SPEC_VALUES:
            break
    seen[id(obj)] = total
    return total


def as_spec(spec: Spec | dict | str | Path | None) -> Spec | None:
    """``spec`` as a :class:`Spec`: a mapping is read as one, a path as a YAML file; None stays None."""
    if spec is None or isinstance(spec, Spec):
        return spec
    if isinstance(spec, dict):
        return spec_from_dict(spec)
    if isinstance(spec, (str, Path)):
        return load_spec(spec)
    raise SpecError(f"the spec must be a mapping (dict), a Spec or the path of a YAML file, got "
                    f"{type(spec).__name__}.")


def load_spec(path: str | Path) -> Spec:
    """Read and validate a YAML spec file; relative paths in it are relative to the file."""
    from ._files import checked_path, path_kind

    if isinstance(path, str) and "\n" in path and ":" in path:  # spec=yaml_text: a spec, not the path of one
        raise SpecError("the spec given is YAML text, not the path of a file; pass yaml.safe_load(text) (a dict) "
                        "as the spec, or save the text to a file and give its path.")
    path = checked_path(path, "the spec file", SpecError)
    if path_kind(path, f"the spec file {path}", SpecError) not in ("file", "missing"):  # a folder, a pipe
        raise SpecError(f"the spec file {path} is not a regular file; give the path of a YAML file.")
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a byte order mark (Windows editors) is allowed
    except OSError as exc:
        raise SpecError(f"cannot read the spec file {path}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError:
        raise SpecError(f"the spec file {path} is not a UTF-8 text file; save it as UTF-8 YAML.") from None
    try:
        raw = yaml.load(text, Loader=UniqueKeyLoader)  # a SafeLoader: plain YAML types only
    except DuplicateKey as exc:
        raise SpecError(f"the spec file {path} gives {exc.args[0]!r} twice in one mapping (line {exc.args[1]}); "
                        "keep one of them.") from None
    except BadScalar as exc:
        raise SpecError(f"the spec file {path} has the value {exc.args[0]!r} at line {exc.args[1]}, {exc.args[2]}; "
                        "put it in quotes, or correct it.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SpecError(f"the spec file {path} is not valid YAML{where}; check its indentation and quoting.") from None
    except RecursionError:  # PyYAML parses nested brackets recursively
        raise SpecError(f"the spec file {path} nests lists or mappings too deeply to be a spec; check its "
                        "brackets.") from None
    if expanded_size(raw) > MAX_SPEC_VALUES:  # aliases share one list; walking it repeats it (billion laughs)
        raise SpecError(f"the spec file {path} holds more than {MAX_SPEC_VALUES:,} values once its YAML aliases "
                        "(*name) are repeated; write the lists out, or shorten them.")
    spec = spec_from_dict(raw, base_dir=resolved(path).parent, relative_to="relative to the spec file")
    spec.path = path
    return spec


def spec_from_dict(raw: Any, base_dir: str | Path | None = None, *, relative_to: str | None = None) -> Spec:
    """Validate a spec given as a dictionary (the parsed YAML).

    Relative paths of ``pram:`` and ``hierarchy:`` files are read from
    ``base_dir`` (default: the working folder); ``relative_to`` says so in
    the messages of a file that does not exist (default: "relative to the
    working folder, as the spec is not a file", or "relative to BASE_DIR").
    """
    if relative_to is None:
        relative_to = (f"relative to {base_dir}" if base_dir is not None else
                       "relative to the working folder, as the spec is not a file")
    raw = _plain_values(raw)
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
        if str(name) in spec.variables:  # 1 and "1": column names are text, so one variable given twice
            raise SpecError(f"variable {str(name)!r} is listed twice in 'variables' (as {name!r} and as "
                            f"{next(k for k in variables if str(k) == str(name))!r}); keep one of them.")
        var = _variable_from_dict(str(name), settings, spec.base_dir, relative_to)
        spec.variables[var.name] = var
    if "missing" in raw:
        spec.missing = _as_list(raw["missing"], "missing", "the spec")
    spec.pairing = _parse_pairing(raw.get("pairing", "row"))
    if spec.pairing_id is not None:
        pid = spec.pairing_id
        if pid in spec.variables and spec.variables[pid].role != "id":
            spec.variables[pid].role = "id"
    sep = raw.get("separator")
    if sep is not None:
        if not isinstance(sep, str) or len(sep.encode()) != 1 and sep != "\\t":
            raise SpecError(f"'separator' must be a single character of the ASCII set, such as ',', ';', '|' or "
                            f"'\\t' (a tab), got {sep!r}; Arrow's CSV reader splits on one byte.")
        spec.separator = "\t" if sep == "\\t" else sep
    analyses = raw.get("analyses")
    if analyses is not None and not isinstance(analyses, dict):
        from .analyses.spec import SECTION_KEYS

        raise SpecError(f"'analyses' in the spec must be a mapping with {_keys_text(SECTION_KEYS)}.")
    spec.analyses = analyses
    _check_roles(spec)
    if analyses is not None:
        from .analyses.spec import check_analyses

        check_analyses(analyses, spec)
    return spec


def _keys_text(keys: tuple[str, ...]) -> str:
    """The keys quoted, the last joined by 'and/or': "'a', 'b' and/or 'c'"."""
    quoted = [repr(k) for k in keys]
    return f"{', '.join(quoted[:-1])} and/or {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def _plain_values(value: Any) -> Any:
    """``value`` with pandas' missing value ``pd.NA`` read as YAML's null (None) and numpy's scalars as Python's
    (``np.int64(50)`` as 50), at any depth.

    A spec built from a table (a data dictionary read with pandas) has ``pd.NA``
    in its empty cells; it has no truth value, so every check of the spec
    would fail on it with a TypeError instead of reading it as a key left empty.
    Its numbers are numpy's, which the checks accept as numbers but YAML
    cannot write (``Spec.to_yaml``).
    """
    pandas = sys.modules.get("pandas")  # pd.NA exists only once pandas is imported
    if pandas is not None and value is pandas.NA:
        return None
    if isinstance(value, np.floating) and value.dtype != np.float64:  # np.float32(0.9): 0.9, as it reads
        return float(str(value))
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain_values(v) for v in value)
    return value


def _variable_from_dict(name: str, settings: Any, base_dir: Path, relative_to: str) -> VariableSpec:
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
        raise SpecError(f"variable {name!r} has scale {excerpt(scale)}; use one of {', '.join(SCALES)}.")
    if scale is None and var.analysed:
        raise SpecError(f"variable {name!r} has no scale; add scale: nominal, ordinal or continuous.")
    var.scale = scale
    if settings.get("order") is not None:  # an empty 'order:' line is no order
        if scale != "ordinal":
            raise SpecError(f"variable {name!r} has an 'order' but its scale is {scale}, not ordinal.")
        if not isinstance(settings["order"], list):  # 'order: low, mid, high' is one text, not three categories
            raise SpecError(f"the 'order' of variable {name!r} must be a list of its categories, lowest first, e.g. "
                            f"order: [low, mid, high]; got the single value {settings['order']!r}.")
        order = list(settings["order"])
        if len(set(map(_norm_label, order))) != len(order):
            raise SpecError(f"the 'order' of variable {name!r} lists a category twice.")
        var.order = order
    if "missing" in settings:
        var.missing = _as_list(settings["missing"], "missing", f"variable {name!r}")
    if settings.get("pram") is not None:
        if not _is_path(settings["pram"]):
            raise SpecError(f"'pram' of variable {name!r} must be a file path.")
        var.pram = _setting_file(name, "pram", settings["pram"], base_dir, relative_to)
    hierarchy = settings.get("hierarchy")
    if hierarchy is not None:
        var.hierarchy = _hierarchy_setting(name, hierarchy, base_dir, relative_to)
        from .hierarchy import check_hierarchy_spec  # a ragged row or a repeated leaf fails here

        check_hierarchy_spec(name, var.hierarchy, base_dir)
    if settings.get("recode") is not None:
        var.recode = _parse_recode(name, settings["recode"])
    removed = settings.get("removed", False)
    if not isinstance(removed, bool):
        raise SpecError(f"'removed' of variable {name!r} must be true or false.")
    var.removed = removed
    level = settings.get("level", "person")
    if level not in LEVELS:
        raise SpecError(f"variable {name!r} has level {level!r}; use person or household.")
    var.level = level
    return var


def _is_path(value: Any) -> bool:
    """Text or a path object (``pathlib.Path``) naming a file."""
    return isinstance(value, str) or isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)


def _setting_file(name: str, key: str, value: str | os.PathLike, base_dir: Path, relative_to: str) -> Path:
    """The existing file of variable ``name``'s ``pram:`` or ``hierarchy:`` path ``value``, read from ``base_dir``
    when relative; an empty path, or one that names no file, is an error saying where it was looked for."""
    text = os.fspath(value)
    what = "PRAM matrix (CSV)" if key == "pram" else "hierarchy file (CSV)"
    if not text.strip():
        raise SpecError(f"'{key}' of variable {name!r} is an empty path; give the path of its {what}, or leave "
                        f"'{key}' out.")
    path = base_dir / text
    from ._files import path_kind

    kind = path_kind(path, f"the {'pram' if key == 'pram' else 'hierarchy'} file {path} of variable {name!r}",
                     SpecError)
    if kind == "file":
        return path
    state = {"folder": "is a folder", "other": "is not a regular file"}.get(kind, "does not exist")
    where = "" if Path(text).is_absolute() else f", {relative_to}"
    if key == "pram":
        raise SpecError(f"the 'pram' file of variable {name!r}, {path}, {state}; give the path of its {what}{where}.")
    raise SpecError(f"the hierarchy file {path} {state}; give the path of the {what} of variable {name!r}{where}.")


def _hierarchy_setting(name: str, value: Any, base_dir: Path, relative_to: str) -> Path | dict:
    """A variable's ``hierarchy:``: the path of its file (checked), or its mapping (a ``file:`` in it checked and
    kept as text)."""
    if _is_path(value):
        return _setting_file(name, "hierarchy", value, base_dir, relative_to)
    if not isinstance(value, dict):
        raise SpecError(f"'hierarchy' of variable {name!r} must be a file path, {{intervals: [...]}} or {{mask: right}}.")
    value = dict(value)
    if _is_path(value.get("file")):
        _setting_file(name, "hierarchy", value["file"], base_dir, relative_to)
        value["file"] = os.fspath(value["file"])
    return value


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
        if isinstance(value, list) and len(value) >= 2 and not all(_is_number(b) for b in value):
            bad = next(b for b in value if not _is_number(b))
            shown = (".nan" if isinstance(bad, float) and bad != bad else
                     f"a number of {len(str(abs(bad)))} digits, beyond a float's range"
                     if isinstance(bad, int) and not isinstance(bad, bool) else repr(bad)[:60])
            raise SpecError(f"'recode: breaks' of variable {name!r} has {shown}, which is not a break; give each "
                            "break as a number (.inf and -.inf for open ends).")
        if not isinstance(value, list) or len(value) < 2:
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
            raise SpecError(f"variable {var.name!r} is the {var.role} column and cannot be marked removed.")


def _as_list(value: Any, key: str, where: str) -> list:
    if value is None:  # an empty line such as 'missing:' lists nothing
        return []
    if isinstance(value, (str, int, float)):
        value = [value]
    if not isinstance(value, list):
        raise SpecError(f"'{key}' of {where} must be a list, e.g. {key}: ['', NA, -99].")
    nested = next((v for v in value if isinstance(v, (list, tuple, dict, set))), None)
    if nested is not None:  # as 'suppressed' refuses it (hierarchy._suppressed)
        raise SpecError(f"'{key}' of {where} holds {excerpt(nested, 60)}, which is not a single value; list each "
                        f"code on its own, e.g. {key}: ['', NA, -99].")
    if any(isinstance(v, int) and abs(v) >= 2**1024 for v in value):  # no float holds it, nor str() (4,300 digits)
        raise SpecError(f"'{key}' of {where} holds a whole number beyond ±1.8e308, which no value of a file can be; "
                        f"list the codes the files use, e.g. {key}: ['', NA, -99].")
    return list(value)


def _is_number(value: Any) -> bool:
    """An int or float that is not NaN (YAML's .nan) and that a float can hold (not a whole number of 400
    digits); ±.inf is allowed as an open end of the breaks."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return value == value and (isinstance(value, float) or abs(value) < 2**1024)


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
    whole = re.fullmatch(r"([+-]?(?:0|[1-9]\d*))(?:\.0*)?", text)
    if whole:  # "2", "+2", "2.00": exactly, not through a float (which merges codes beyond 2**53)
        return str(int(whole.group(1)))
    return text


normalise_label = _norm_label


# ---------------------------------------------------------------------------
# checks against the data
# ---------------------------------------------------------------------------
def check_columns(spec: Spec, columns: Iterable[str], which: str) -> None:
    """Raise if the spec names a column the file does not have (removed variables excepted in protected files)."""
    present = set(columns)
    if spec.pairing_id is not None and spec.pairing_id not in present:
        hint = _close_match(spec.pairing_id, present)
        raise SpecError(
            f"the pairing id column {spec.pairing_id!r} is not a column of the {which} file{hint}; "
            "pair by an id column both files have, or by row or none."
        )
    for var in spec.variables.values():
        if var.name in present:
            continue
        if var.removed and which != "original":
            continue
        hint = _close_match(var.name, present)
        if var.note.startswith(_OVERRIDE_NOTE):
            raise SpecError(
                f"{var.name!r}, {var.note}, is not a column of the {which} file{hint}; check the name."
            )
        raise SpecError(
            f"variable {var.name!r} of the spec is not a column of the {which} file{hint}; "
            "fix its name in the spec or remove it."
        )


def unicode_twin(name: str, present: Iterable[str]) -> str | None:
    """The name of ``present`` that differs from ``name`` only in its Unicode form (an accent composed, as 'é',
    or decomposed, as 'e' and a combining accent), or None; the two look the same in a message."""
    import unicodedata

    nfc = unicodedata.normalize("NFC", str(name))
    return next((str(p) for p in sorted(present, key=str)
                 if str(p) != str(name) and unicodedata.normalize("NFC", str(p)) == nfc), None)


def unicode_hint(twin: str, name: str) -> str:
    """What a message says of ``twin``, a name that differs from ``name`` only in its Unicode form."""
    return (f"the column {twin!r} differs from it only in its Unicode form ({ascii(twin)} against {ascii(name)}: "
            "composed and decomposed accents look alike); write both in the same form, re-typing the name or "
            "re-saving the file")


def _close_match(name: str, present: Iterable[str]) -> str:
    """" (did you mean 'Income'?)" for the column of ``present`` closest to ``name`` ('' if none is close); a
    column that differs only in spaces around it says so, as a trailing space is invisible."""
    import difflib

    twin = unicode_twin(name, present)
    if twin is not None:
        return f" ({unicode_hint(twin, name)})"
    by_lower = {str(p).lower(): str(p) for p in sorted(present, key=str)}
    match = difflib.get_close_matches(name.lower(), list(by_lower), n=1)
    if not match:
        return ""
    column = by_lower[match[0]]
    spaces = ""
    if column != name and column.strip() == name.strip():
        lead, trail = (lambda t: len(t) - len(t.lstrip())), (lambda t: len(t) - len(t.rstrip()))
        ends = [end for end, count in (("start", lead), ("end", trail)) if count(column) != count(name)]
        spaces = f", which differs in the spaces at its {' and '.join(ends)}"
    return f" (did you mean {column!r}{spaces}?)"


# ---------------------------------------------------------------------------
# command-line overrides
# ---------------------------------------------------------------------------
_OVERRIDE_NOTE = "given on the command line"  # the note of a variable that only an override added
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
    target: Iterable[str] = (),
    sensitive: Iterable[str] = (),
    household: str | None = None,
) -> Spec:
    """Return a copy of ``spec`` with command-line overrides applied.

    A variable not yet in the spec is added; ``--pairing`` takes ``row``,
    ``none``, ``nearest`` or the name of an id column; ``--target`` gives variables the
    role ``target`` (the variables the mining measures predict).  A variable
    has one role, so naming it both in ``key`` and ``sensitive`` is an error.
    """
    key, sensitive = list(key), list(sensitive)
    both = [name for name in sensitive if name in key]
    if both:
        raise SpecError(
            f"{both[0]!r} is given both as a key variable and as a sensitive variable; a variable has one role "
            "(key: what an intruder knows; sensitive: what must not be learnt), so choose one."
        )
    nominal, ordinal, continuous = list(nominal), list(ordinal), list(continuous)
    given: dict[str, str] = {}
    for scale, names in (("nominal", nominal), ("ordinal", ordinal), ("continuous", continuous)):
        for name in names:
            if given.setdefault(name, scale) != scale:
                raise SpecError(f"{name!r} is given both as {given[name]} and as {scale}; a variable has one scale, "
                                "so choose one.")
    if household and (household in key or household in sensitive):
        role = "key" if household in key else "sensitive"
        raise SpecError(f"{household!r} is given as the household id and as a {role} variable; the household id "
                        "identifies households and is not analysed, so give another column to --household.")
    spec = spec.copy()

    def scale_needed(option: str, name: str, scales: str) -> SpecError:
        if name in spec.variables:
            return SpecError(f"--{option} {name}: give the variable a scale too ({scales}).")
        return SpecError(f"--{option} {name}: the spec has no variable {name!r}; if it is a column of the files, give "
                         f"it a scale too ({scales}), otherwise check the name.")

    def var(name: str, option: str) -> VariableSpec:
        if name not in spec.variables:
            spec.variables[name] = VariableSpec(name, note=f"{_OVERRIDE_NOTE} (--{option})")
        return spec.variables[name]

    for scale, names in (("nominal", nominal), ("ordinal", ordinal), ("continuous", continuous)):
        for name in names:
            v = var(name, scale)
            v.scale = scale
            if v.role in ("weight", "id"):
                v.role = "other"
            if scale != "ordinal":
                v.order = None
    for name in key:
        if (v := spec.variables.get(name)) is None or v.scale is None:
            raise scale_needed("key", name, "--nominal, --ordinal or --continuous")
        v.role = "key"
    for name in target:
        if (v := spec.variables.get(name)) is None or v.scale is None:
            raise scale_needed("target", name, "--nominal or --ordinal to classify it, --continuous for a regression")
        v.role = "target"
    if weight:
        w = var(weight, "weight")
        w.role = "weight"
        # the first weight column is the one used, the others are neither analysed nor used (docs/spec.md)
        spec.variables = {weight: w, **{name: v for name, v in spec.variables.items() if name != weight}}
    for name in sensitive:
        if (v := spec.variables.get(name)) is None or v.scale is None:
            raise scale_needed("sensitive", name, "--nominal, --ordinal or --continuous")
        v.role = "sensitive"
    if household:
        for v in spec.variables.values():
            if v.role == "household":
                v.role = "id"  # still an identifier, not analysed
        var(household, "household").role = "household"
    if id:
        var(id, "id").role = "id"
    if pairing:
        if pairing in ("row", "none", "nearest"):
            spec.pairing = pairing
        else:
            var(pairing, "pairing").role = "id"
            spec.pairing = {"by": pairing}
    for v in spec.variables.values():
        if v.analysed and v.scale is None:
            raise SpecError(f"variable {v.name!r} has no scale; add --nominal, --ordinal or --continuous for it.")
    return spec


def __getattr__(name: str) -> Any:
    """``infoloss.spec.infer_spec`` and ``temporal_kind``, which live in :mod:`infoloss.spec_infer` (with pandas)."""
    if name in ("infer_spec", "temporal_kind"):
        from . import spec_infer

        return getattr(spec_infer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
