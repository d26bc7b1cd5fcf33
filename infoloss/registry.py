"""The measure registry: every measure, its metadata, and the result type.

A measure is a plain function ``f(pair: EncodedPair, **options) -> MeasureResult``
registered with :func:`measure`.  The registry is the single list of measures:
the command line (``infoloss measures``), the JSON result, the terminal summary
and the HTML report are all generated from it.

The decorated function can also be called like a scikit-learn metric, with two
DataFrames and an optional spec: ``il1s(original_df, protected_df, spec)``.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

FAMILIES = {
    "record": "Record-level losses",
    "moments": "Moments: means, (co)variances, correlations",
    "tables": "Contingency tables",
    "distributions": "Distributions",
    "propensity": "Propensity and cluster scores",
    "gdu": "Global data utility (Kocar 2018)",
    "generalisation": "Generalisation and suppression (hierarchies)",
    "mining": "Data-mining utility: classification, regression, clustering",
    "analyses": "The user's own estimates and regressions",
    "risk": "Disclosure risk",
}
DIRECTIONS = ("lower", "higher", "target")


#: the largest seed a measure option takes (R's and scikit-learn's seeds are 32-bit; a measure whose seeds
#: follow its first one, ``seed + k`` for up to 100 seeds, stays within scikit-learn's 0..2**32 - 1)
MAX_SEED = 2**31 - 1


@dataclass(frozen=True)
class Option:
    """A declared option of a measure: its type, allowed values and default.

    ``kind`` is ``"int"``, ``"float"``, ``"bool"``, ``"choice"`` or ``"any"``
    (checked by ``check``).  Numbers must lie in ``[low, high]`` (bounds
    exclusive when ``low_open``/``high_open``); ``nullable`` allows ``None``
    (usually "decide from the data").  ``when``: the setting of another
    option under which this one applies (``"form=pearson"``), shown beside it;
    otherwise it is ignored.  :meth:`validate` returns the value
    converted to its type or raises ``InputError`` with one sentence naming the
    option and what is allowed.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    nullable: bool = False
    check: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)
    allowed_text: str = ""  # how to describe the allowed values, for kind "any"
    when: str = ""  # the setting of another option under which this one applies, e.g. "form=pearson"

    def __post_init__(self) -> None:
        if self.kind not in ("int", "float", "bool", "choice", "any"):
            raise ValueError(f"unknown option kind {self.kind!r}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"option {self.name!r} of kind choice needs choices")
        if self.kind == "any" and (self.check is None or not self.allowed_text):
            raise ValueError(f"option {self.name!r} of kind any needs check and allowed_text")

    @property
    def allowed(self) -> str:
        """The allowed values in words, e.g. 'a whole number of at least 2'."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(map(str, self.choices))
        elif self.kind == "any":
            text = self.allowed_text
        else:
            text = ("a whole number" if self.kind == "int" else "a number") + self._bounds_text()
        return text + (", or empty for auto" if self.nullable else "")

    @property
    def shown(self) -> str:
        """The allowed values, and when the option applies: 'a number of at least 0; only with form=pearson'."""
        return self.allowed + (f"; only with {self.when}" if self.when else "")

    def _bounds_text(self) -> str:
        low, high = self.low, self.high
        if low is not None and high is not None:
            left = "above" if self.low_open else "from"
            right = "below" if self.high_open else "to"
            return f" {left} {_fmt(low)} {right} {_fmt(high)}" if not (self.low_open or self.high_open) else (
                f" {'greater than' if self.low_open else 'at least'} {_fmt(low)} and "
                f"{'less than' if self.high_open else 'at most'} {_fmt(high)}"
            )
        if low is not None:
            return f" {'greater than' if self.low_open else 'of at least'} {_fmt(low)}"
        if high is not None:
            return f" {'less than' if self.high_open else 'of at most'} {_fmt(high)}"
        return ""

    def validate(self, measure_id: str, value: Any) -> Any:
        """``value`` converted to the option's type; InputError when it is not allowed."""
        from .errors import InputError

        def bad() -> InputError:
            given = "nothing" if value is None else repr(value)  # None: an empty value, e.g. --set lambda.missing_rule=
            return InputError(f"option {self.name!r} of measure {measure_id!r} must be {self.allowed}, got {given}.")

        if value is None:
            if self.nullable or self.default is None:
                return None
            raise bad()
        if self.kind == "bool":
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            raise bad()
        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
            raise bad()
        if self.kind == "any":
            try:
                self.check(value)  # type: ignore[misc]
                return value
            except (TypeError, ValueError) as exc:
                if isinstance(exc, InputError):
                    raise
                raise bad() from None
        if isinstance(value, str) and _SCIENTIFIC.fullmatch(value.strip()):
            value = float(value)  # YAML 1.1 (PyYAML) reads 1e-3 as text; it is a number
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise bad()
        number = float(value)
        if not math.isfinite(number):
            raise bad()
        if self.kind == "int":
            if not number.is_integer():
                raise bad()
            number = int(number)
        if self.low is not None and (number < self.low or (self.low_open and number == self.low)):
            raise bad()
        if self.high is not None and (number > self.high or (self.high_open and number == self.high)):
            raise bad()
        return number

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.kind, "default": _jsonable(self.default), "allowed": self.allowed,
                "help": self.help, **({"when": self.when} if self.when else {})}


#: a number in scientific notation, which PyYAML reads as text when it lacks a dot ("1e-3") or a sign ("1.0e5")
_SCIENTIFIC = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class MeasureInfo:
    """Metadata of a registered measure (SDMetrics-style goal and range)."""

    id: str
    family: str
    description: str
    range: tuple[float | None, float | None]  # None: unbounded on that side
    better: str  # "lower" | "higher" | "target" (closest to ``ideal`` is best)
    needs_pairing: bool
    func: Callable[..., "MeasureResult"] = field(repr=False, compare=False)
    headline: bool = False  # shown in summary tables
    order: int = 0
    options: tuple[Option, ...] = ()
    ideal: float | None = None  # the value of identical files; set for every direction
    # optional guidance for the report (infoloss/report/glossary.py fills in what a measure does not give)
    plain: str = ""  # what it measures, in plain words (one or two sentences)
    formula: str = ""  # the formula as LaTeX (default: the docstring's first ``.. math::`` block)
    reference: str = ""  # the main reference (default: the docstring's References section)
    score_scale: float | None = None  # loss that counts as complete loss, for unbounded measures' report scores
    unit: str = ""  # "count" when the values are numbers of records or cells (safe mode hides small ones)
    # ``compare`` may run it beside another measure that shares cores (docs/architecture.md, "Running the measures")
    shares_cores: bool = False

    @property
    def better_text(self) -> str:
        """'lower', 'higher' or 'closest to 1'."""
        return f"closest to {_fmt(self.ideal)}" if self.better == "target" else self.better

    def loss(self, value: float) -> float:
        """How far ``value`` is from the ideal in the bad direction (0 at the ideal, never negative)."""
        if self.better == "target":
            return abs(value - self.ideal)
        if self.better == "lower":
            return max(value - self.ideal, 0.0)
        return max(self.ideal - value, 0.0)

    def option(self, name: str) -> Option:
        for opt in self.options:
            if opt.name == name:
                return opt
        raise KeyError(name)

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options converted to their declared types; InputError for an unknown option or a bad value."""
        from .errors import InputError

        if not isinstance(options, dict):
            raise InputError(f"the options of measure {self.id!r} must be a mapping of option names to values, "
                             f"got {type(options).__name__}.")
        known = {o.name: o for o in self.options}
        checked = {}
        for name, value in options.items():
            if name not in known:
                if not known:
                    raise InputError(f"measure {self.id!r} takes no options, but {name!r} was given.")
                raise InputError(
                    f"measure {self.id!r} has no option {name!r}; its options are {', '.join(known)}."
                )
            checked[name] = known[name].validate(self.id, value)
        return checked

    @property
    def options_text(self) -> str:
        """The options with their defaults, e.g. 'model=logit (logit, cart); seed=0'."""
        return "; ".join(f"{o.name}={_fmt_default(o.default)} ({o.shown})" for o in self.options)

    @property
    def range_text(self) -> str:
        low, high = self.range
        # an infinite end is open: [0, ∞), (−∞, 1]
        return f"{'(−∞' if low is None else '[' + _fmt(low)}, {'∞)' if high is None else _fmt(high) + ']'}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family,
            "description": self.description,
            "range": [self.range[0], self.range[1]],
            "better": self.better,
            "ideal": self.ideal,
            "needs_pairing": self.needs_pairing,
            "headline": self.headline,
            "options": [o.to_dict() for o in self.options],
        }


def _fmt(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:  # whole numbers in full: 2147483647, not 2.14748e+09
        return str(int(x))
    return f"{x:g}"


def _fmt_default(value: Any) -> str:
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


@dataclass
class MeasureResult:
    """The result of one measure for one original/protected pair.

    Attributes
    ----------
    value : float
        The headline number; always finite (a NaN or infinite value raises
        :class:`infoloss.NotComputed`, so the measure is listed as not computed
        with the reason instead of a number).
    by_variable : dict or None
        Per-variable values, keyed by variable name in spec order.
    by_pair : dict or None
        Per-pair values, keyed ``"A|B"`` with A before B in spec order.
    details : dict
        Anything else: test statistics, p-values, parameters, conventions used.
    """

    value: float
    by_variable: dict[str, float] | None = None
    by_pair: dict[str, float] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.value = float(self.value)
        if not math.isfinite(self.value):
            # never a NaN in the results, never a whole comparison lost to one measure: not computed, with why
            from .errors import NotComputed

            raise NotComputed(f"its value is not a finite number ({self.value}): the data are degenerate for this "
                              "measure (e.g. no usable record or a zero spread where it divides)")

    @property
    def statistic(self) -> float:
        """Alias of ``value`` (scipy.stats style)."""
        return self.value

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python types, ready for strict JSON (a NaN or inf in ``details`` becomes None)."""
        return json_plain(self.fields())

    def fields(self) -> dict[str, Any]:
        """The result's JSON fields as they are (``Report.to_dict`` makes the whole report plain at once)."""
        out: dict[str, Any] = {"value": self.value}
        if self.by_variable is not None:
            out["by_variable"] = self.by_variable
        if self.by_pair is not None:
            out["by_pair"] = self.by_pair
        if self.details:
            out["details"] = self.details
        return out


REGISTRY: dict[str, MeasureInfo] = {}

#: how far past an end of its range a value may come out by rounding and still be that end: λ of values 1e20
#: apart was 1.0000000000000002, a weighted pMSE of perfect separation 0.25000000000000006
RANGE_ROUNDING = 1e-12


def _within_range(result: MeasureResult, bounds: tuple[float | None, float | None]) -> MeasureResult:
    """``result`` with a value (and per-variable or per-pair values) past an end of the measure's range by
    rounding only (at most :data:`RANGE_ROUNDING` relative) set to that end."""
    low, high = bounds

    def inside(v: Any) -> Any:
        if not isinstance(v, (float, np.floating)) or not math.isfinite(v):
            return v
        if low is not None and low - RANGE_ROUNDING * max(1.0, abs(low)) <= v < low:
            return float(low)
        if high is not None and high < v <= high + RANGE_ROUNDING * max(1.0, abs(high)):
            return float(high)
        return v

    result.value = inside(result.value)
    for block in ("by_variable", "by_pair"):
        values = getattr(result, block)
        if values:
            setattr(result, block, {k: inside(v) for k, v in values.items()})
    return result


def measure(
    id: str,
    *,
    family: str,
    description: str,
    range: tuple[float | None, float | None],
    better: str,
    needs_pairing: bool,
    headline: bool = False,
    options: tuple[Option, ...] | list[Option] = (),
    ideal: float | None = None,
    plain: str = "",
    formula: str = "",
    reference: str = "",
    score_scale: float | None = None,
    unit: str = "",
    shares_cores: bool = False,
) -> Callable[[Callable[..., MeasureResult]], Callable[..., MeasureResult]]:
    """Register a measure function under ``id``.

    ``options`` declares every keyword option of the function (type, allowed
    values, default); values are checked against it before the measure runs.
    ``better`` is ``"lower"``, ``"higher"`` or ``"target"``; ``ideal`` is the
    value for identical files (default: the lower or upper end of ``range``;
    required for ``"target"``).  ``plain``, ``formula``, ``reference``,
    ``score_scale`` and ``unit`` are optional guidance for the HTML report
    (docs/report.md).

    ``shares_cores``: ``compare`` may run the measure beside another one that
    shares cores, two at a time on two threads.  Such a measure runs mostly on
    one core in code that releases the GIL (numpy, scipy), its result does not
    depend on what runs beside it, it records or silences warnings only with
    :func:`infoloss._concurrent.recorded_warnings` and holds BLAS to one
    thread itself when it calls BLAS (``threadpoolctl``).  The default runs
    alone, with the whole machine.

    The returned function accepts either an ``EncodedPair`` or
    ``(original_df, protected_df, spec=None)`` (spec: a dict, a Spec or a path
    to a YAML spec) followed by the measure's options.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    if better not in DIRECTIONS:
        raise ValueError(f"better must be one of {DIRECTIONS}")
    if ideal is None:
        if better == "target":
            raise ValueError("a measure with better='target' needs its ideal value")
        ideal = range[0] if better == "lower" else range[1]
        if ideal is None:
            raise ValueError(f"measure {id!r}: the range is unbounded on its ideal side; give ideal=")
    options = tuple(options)

    def decorate(func: Callable[..., MeasureResult]) -> Callable[..., MeasureResult]:
        if id in REGISTRY:
            raise ValueError(f"measure {id!r} is registered twice")
        _check_declared(id, func, options)

        @functools.wraps(func)
        def public(pair_or_original: Any, protected: Any = None, spec: Any = None, **opts: Any) -> MeasureResult:
            checked = REGISTRY[id].check_options(opts)
            pair = _as_pair(pair_or_original, protected, spec)
            if needs_pairing and not pair.paired:
                if getattr(pair, "nearest", None) is not None:
                    return _within_range(_on_nearest_view(func, pair, checked), range)
                from .errors import NotComputed

                raise NotComputed("it needs record-paired files, but the files are not paired (pairing: none)")
            return _within_range(func(pair, **checked), range)

        public.__signature__ = _public_signature(func)  # type: ignore[attr-defined]
        REGISTRY[id] = MeasureInfo(
            id=id,
            family=family,
            description=description,
            range=range,
            better=better,
            needs_pairing=needs_pairing,
            func=public,
            headline=headline,
            order=_order_of(id),
            options=options,
            ideal=float(ideal),
            plain=plain,
            formula=formula,
            reference=reference,
            score_scale=score_scale,
            unit=unit,
            shares_cores=shares_cores,
        )
        public.info = REGISTRY[id]  # type: ignore[attr-defined]
        return public

    return decorate


def _on_nearest_view(func: Callable[..., "MeasureResult"], pair: Any, options: dict[str, Any]) -> "MeasureResult":
    """A record-level measure under ``pairing: nearest``: run on the paired view, the pairing in details."""
    view = pair.paired_view()
    result = func(view, **options)
    result.details = {**result.details, "pairing": pair.nearest.summary}
    return result


def _check_declared(id: str, func: Callable[..., Any], options: tuple[Option, ...]) -> None:
    """Every keyword option of ``func`` is declared, with the same default (a programming error otherwise)."""
    params = list(inspect.signature(func).parameters.values())[1:]
    in_func = {p.name: p.default for p in params}
    declared = {o.name: o.default for o in options}
    if set(in_func) != set(declared):
        raise ValueError(f"measure {id!r}: options declared {sorted(declared)} but the function takes {sorted(in_func)}")
    for name, default in in_func.items():
        if default != declared[name]:
            raise ValueError(f"measure {id!r}: option {name!r} defaults to {default!r} but is declared {declared[name]!r}")


def _public_signature(func: Callable[..., Any]) -> inspect.Signature:
    """``(original, protected=None, spec=None, *, <options>)``: what help() shows for a measure function."""
    P = inspect.Parameter
    first = [
        P("original", P.POSITIONAL_OR_KEYWORD, annotation="pandas.DataFrame | EncodedPair"),
        P("protected", P.POSITIONAL_OR_KEYWORD, default=None, annotation="pandas.DataFrame | None"),
        P("spec", P.POSITIONAL_OR_KEYWORD, default=None, annotation="dict | str | pathlib.Path | Spec | None"),
    ]
    rest = [p.replace(kind=P.KEYWORD_ONLY) for p in list(inspect.signature(func).parameters.values())[1:]]
    return inspect.Signature(first + rest, return_annotation="MeasureResult")


def _as_pair(pair_or_original: Any, protected: Any, spec: Any) -> Any:
    from .errors import InputError
    from .pair import EncodedPair, encode_pair

    if isinstance(pair_or_original, EncodedPair):
        if protected is not None:
            raise InputError("pass either an EncodedPair or two DataFrames, not both.")
        return pair_or_original
    if protected is None:
        raise InputError("pass the original and the protected DataFrame.")
    if isinstance(spec, (str, Path)):
        from .spec import load_spec

        spec = load_spec(spec)
    return encode_pair(pair_or_original, protected, spec)


_ALL_LOADED = False


def load_all() -> None:
    """Import every measure module so that the registry is complete."""
    global _ALL_LOADED
    if _ALL_LOADED:
        return
    import importlib
    import pkgutil

    package = importlib.import_module(f"{__package__}.measures")
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{module.name}")  # registers on import
    _ALL_LOADED = True


def _index() -> dict[str, tuple[str, str, str]]:
    from ._measure_index import MEASURES

    return MEASURES


def _order_of(id: str) -> int:
    """The measure's position in a full load (from the static index), whatever order its module was imported in."""
    index = _index()
    if id in index:
        return list(index).index(id)
    return len(index) + len(REGISTRY)


def load(ids: Iterable[str]) -> None:
    """Import only the modules that define ``ids`` (infoloss._measure_index); every module for an id not indexed."""
    import importlib

    index = _index()
    for mid in ids:
        if mid in REGISTRY:
            continue
        if mid in index:
            importlib.import_module(f"{__package__}.measures.{index[mid][0]}")
        if mid not in REGISTRY:
            load_all()
            return


def is_measure(id: str) -> bool:
    """Whether ``id`` names a measure, importing at most its own module (every module for an unknown id)."""
    load([id])
    return id in REGISTRY


def known_ids() -> set[str]:
    """Every measure id, without importing the measure modules (the index and whatever is registered)."""
    return set(_index()) | set(REGISTRY)


def python_name(name: str) -> MeasureInfo | None:
    """The measure whose function is called ``name`` (``infoloss.<name>``), None if there is none.

    Looks in the index and among the measures registered so far, never imports
    every module: ``from infoloss import registry`` asks the package for each
    submodule's name before importing it.
    """
    for mid, (_, _, function) in _index().items():
        if function == name and is_measure(mid):
            return REGISTRY[mid]
    for info in list(REGISTRY.values()):
        if info.func.__name__ == name:
            return info
    return None


def python_names() -> set[str]:
    """The Python names of every measure function, without importing the measure modules."""
    return {function for _, _, function in _index().values()} | {m.func.__name__ for m in REGISTRY.values()}


def registered() -> Iterator[MeasureInfo]:
    """All registered measures, by family (in ``FAMILIES`` order) then registration order."""
    load_all()
    families = list(FAMILIES)
    return iter(sorted(REGISTRY.values(), key=lambda m: (families.index(m.family), m.order)))


def get(id: str) -> MeasureInfo:
    """The metadata of measure ``id``; KeyError names the id when it is unknown."""
    load([id])
    try:
        return REGISTRY[id]
    except KeyError:
        raise KeyError(f"unknown measure {id!r}; 'infoloss measures' lists them") from None


def markdown_table() -> str:
    """The registry as a Markdown table, one row per measure (the table in docs/measures.md)."""
    rows = [
        "| id | family | what it measures | range | better | needs pairing | options (default) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in registered():
        description = m.description.replace("|", "\\|")
        options = "; ".join(f"`{o.name}={_fmt_default(o.default)}` ({o.shown})" for o in m.options) or "—"
        options = options.replace("|", "\\|")
        rows.append(
            f"| `{m.id}` | {m.family} | {description} | {m.range_text} | {m.better_text} | "
            f"{'yes' if m.needs_pairing else 'no'} | {options} |"
        )
    return "\n".join(rows) + "\n"


def json_plain(obj: Any) -> Any:
    """``obj`` with numpy scalars and arrays as plain Python types, non-finite numbers as None: strict JSON."""
    if isinstance(obj, dict):
        return {str(k): json_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_plain(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, Path):
        return str(obj)
    return obj
