"""Run the registered measures over one or more protected scenarios.

``compare`` is the main entry point of the Python API; the :class:`Report` it
returns gives the JSON result (``to_dict``/``to_json``) and the HTML report
(``to_html``, and inline display in Jupyter).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from . import __version__, registry
from ._files import write_atomic
from .errors import InputError, NotComputed
from .pair import EncodedPair, encode_pair
from .spec import Spec, load_spec, spec_from_dict

Frame = pd.DataFrame | str | Path
Progress = Callable[[int, int, str], None]


@dataclass
class ScenarioResult:
    """The measures of one protected file against the original."""

    name: str
    path: str | None
    n_records: int
    paired: bool
    measures: dict[str, registry.MeasureResult] = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)
    statistics: dict[str, Any] | None = None
    aggregates: dict[str, Any] | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    tables: dict[str, Any] | None = None  # before/after tables, full detail (infoloss.before_after)
    pairing: dict[str, Any] | None = None  # how the records were paired (nearest-record pairing)

    def to_dict(self, *, safe: bool = False, min_cell: int = 5) -> dict[str, Any]:
        """The scenario's JSON; ``safe`` applies the safe-to-share rules (docs/interface.md, ``tables``)."""
        out: dict[str, Any] = {
            "name": self.name,
            "path": self.path,
            "n_records": self.n_records,
            "paired": self.paired,
            "measures": {k: v.to_dict() for k, v in self.measures.items()},
            "not_computed": dict(self.not_computed),
        }
        if self.statistics is not None:
            out["statistics"] = self.statistics
        if self.pairing is not None:
            out["pairing"] = self.pairing
        if self.tables is not None:
            out["tables"] = self.tables
        if safe:
            _make_safe(out, min_cell)
        return out


@dataclass
class Report:
    """The result of :func:`compare`: the original's description and one result per scenario."""

    original: dict[str, Any]
    scenarios: list[ScenarioResult]
    spec: Spec
    measure_ids: list[str]

    def to_dict(self, *, safe: bool = False, min_cell: int = 5) -> dict[str, Any]:
        """The JSON result as a dictionary (shape: docs/interface.md §3).

        ``safe=True`` makes it safe to share like the HTML report: the
        before/after ``tables`` have no count below ``min_cell`` (small
        categories merged, small two-way cells suppressed), descriptive
        statistics are rounded to 3 significant digits and not-computed
        reasons carry no record values; ``"safe"`` says so.
        """
        out = {
            "infoloss": __version__,
            "original": self.original,
            "scenarios": [s.to_dict(safe=safe, min_cell=min_cell) for s in self.scenarios],
            "measures": {m: registry.get(m).to_dict() for m in self.measure_ids},
        }
        if safe:
            out["safe"] = {"min_cell": int(min_cell)}
        return _plain(out)

    def to_json(
        self,
        path: str | Path | None = None,
        *,
        indent: int = 2,
        protect: Sequence[str | Path] = (),
        safe: bool = False,
        min_cell: int = 5,
    ) -> str:
        """The JSON result as text; written atomically to ``path`` when given (``safe``: see :meth:`to_dict`)."""
        text = json.dumps(self.to_dict(safe=safe, min_cell=min_cell), indent=indent, ensure_ascii=False,
                          allow_nan=False) + "\n"
        if path is not None:
            write_atomic(path, text, protect=tuple(protect))
        return text

    def to_html(
        self,
        path: str | Path | None = None,
        *,
        safe: bool = False,
        min_cell: int = 5,
        protect: Sequence[str | Path] = (),
    ) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given.

        ``safe=True`` makes it safe to share: no cell or bin below ``min_cell``
        records and no original record values.
        """
        from .report import render_html

        html = render_html(self, safe=safe, min_cell=min_cell)
        if path is not None:
            write_atomic(path, html, protect=tuple(protect))
        return html

    def _repr_html_(self) -> str:
        return self.to_html()

    def value(self, measure: str, scenario: int | str = 0) -> float | None:
        """The value of a measure in a scenario (by index or name), None if not computed."""
        result = self.scenario(scenario).measures.get(measure)
        return None if result is None else result.value

    def scenario(self, key: int | str) -> ScenarioResult:
        if isinstance(key, int):
            return self.scenarios[key]
        for s in self.scenarios:
            if s.name == key:
                return s
        raise KeyError(key)


def compare(
    original: Frame,
    protected: Frame | Sequence[Frame],
    spec: Spec | dict | str | Path | None = None,
    *,
    names: Sequence[str] | None = None,
    measures: Iterable[str] | str | None = None,
    options: dict[str, dict[str, Any]] | None = None,
    statistics: bool = True,
    aggregates: bool = True,
    progress: Progress | None = None,
    tables: bool = True,
) -> Report:
    """Compare an original file with one or more protected versions.

    Parameters
    ----------
    original : DataFrame or path
        The original microdata.
    protected : DataFrame, path, or a list of them
        One protected file per scenario.
    spec : Spec, dict, path to a YAML spec, or None
        The variable spec (None: inferred from the original file).
    names : list of str, optional
        Scenario names (default: file stems, or ``scenario1``, ...).
    measures : list of ids, ``"all"`` or None
        The measures to run (None or ``"all"``: every registered measure).
    options : dict
        Options per measure id, e.g. ``{"lambda": {"missing_rule": "sdcmicro"}}``.
    statistics : bool
        Add descriptive statistics of the continuous variables to each scenario.
    aggregates : bool
        Keep the aggregated data (bins, quantiles, tables) that the HTML report draws.
    tables : bool
        Add the before/after frequency tables to each scenario's JSON
        (:mod:`infoloss.before_after`).
    progress : callable(done, total, label), optional
        Called before each measure.

    Returns
    -------
    Report

    Examples
    --------
    >>> import pandas as pd
    >>> import infoloss
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "b"]})
    >>> prot = pd.DataFrame({"x": [1.0, 2.0, 3.0, 5.0], "g": ["a", "b", "a", None]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    >>> report = infoloss.compare(orig, prot, spec, measures=["suppressions", "records_changed"])
    >>> report.value("suppressions"), report.value("records_changed")
    (1.0, 2.0)
    """
    from .io import read_table

    spec = _load_spec(spec, original)
    ids = _select_measures(measures)
    options = options or {}
    unknown_options = sorted(set(options) - set(ids))
    if unknown_options:
        raise InputError(f"options were given for {unknown_options[0]!r}, which is not among the measures run.")
    options = {mid: registry.get(mid).check_options(opts) for mid, opts in options.items()}
    protected_list = list(protected) if isinstance(protected, (list, tuple)) else [protected]
    if not protected_list:
        raise InputError("give at least one protected file.")
    names = _scenario_names(protected_list, names)
    original_df = read_table(original, spec, which="original") if isinstance(original, (str, Path)) else original
    steps = len(ids) + (1 if aggregates else 0)  # the report's plot data is a step of its own
    total = steps * len(protected_list)
    original_cache: dict = {}  # the original is converted once for all scenarios
    results = []
    for k, (prot, name) in enumerate(zip(protected_list, names)):
        prot_df = read_table(prot, spec, which="protected") if isinstance(prot, (str, Path)) else prot
        pair = encode_pair(original_df, prot_df, spec, original_cache=original_cache)
        del prot_df
        scenario = ScenarioResult(
            name=name,
            path=str(prot) if isinstance(prot, (str, Path)) else None,
            n_records=pair.n_prot,
            paired=pair.paired,
        )
        for j, mid in enumerate(ids):
            if progress is not None:
                progress(k * steps + j, total, f"{name}: {mid}")
            _run_measure(scenario, pair, mid, options.get(mid, {}))
        if pair.nearest is not None and pair.nearest.summary is not None:
            scenario.pairing = pair.nearest.summary
        if statistics:
            scenario.statistics = _statistics(pair)
        if tables:
            from .before_after import before_after_tables

            scenario.tables = before_after_tables(pair)
        if aggregates:
            if progress is not None:
                progress(k * steps + len(ids), total, f"{name}: plot data for the report")
            scenario.aggregates = _aggregates(pair)
        results.append(scenario)
        if k == 0:
            described = _describe_original(original, pair)
    if progress is not None:
        progress(total, total, "done")
    return Report(original=described, scenarios=results, spec=pair.spec, measure_ids=ids)


def _load_spec(spec: Spec | dict | str | Path | None, original: Frame) -> Spec | None:
    if spec is None or isinstance(spec, Spec):
        return spec
    if isinstance(spec, dict):
        return spec_from_dict(spec)
    return load_spec(spec)


def _select_measures(measures: Iterable[str] | str | None) -> list[str]:
    known = [m.id for m in registry.registered()]
    if measures is None or measures == "all":
        return known
    if isinstance(measures, str):
        measures = [m.strip() for m in measures.split(",") if m.strip()]
    chosen = list(dict.fromkeys(measures))
    for mid in chosen:
        if mid not in registry.REGISTRY:
            import difflib

            close = difflib.get_close_matches(mid, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(f"unknown measure {mid!r}{hint}; 'infoloss measures' lists them.")
    if not chosen:
        raise InputError("no measure was selected; give measure ids or 'all'.")
    return chosen


def _scenario_names(protected: list[Frame], names: Sequence[str] | None) -> list[str]:
    if names:
        if len(names) != len(protected):
            raise InputError(f"{len(names)} names were given for {len(protected)} protected files; give one per file.")
        out = list(names)
    else:
        out = [Path(p).stem if isinstance(p, (str, Path)) else f"scenario{i + 1}" for i, p in enumerate(protected)]
    if len(set(out)) != len(out):
        out = [f"{n} ({i + 1})" if out.count(n) > 1 else n for i, n in enumerate(out)]
    return out


def _run_measure(scenario: ScenarioResult, pair: EncodedPair, mid: str, options: dict[str, Any]) -> None:
    info = registry.get(mid)
    start = time.perf_counter()
    try:
        if info.needs_pairing and not pair.paired and pair.nearest is None:
            raise NotComputed("it needs record-paired files, but the files are not paired (pairing: none)")
        scenario.measures[mid] = info.func(pair, **options)
    except NotComputed as exc:
        scenario.not_computed[mid] = str(exc)
    scenario.seconds[mid] = time.perf_counter() - start


def _statistics(pair: EncodedPair) -> dict[str, Any] | None:
    try:
        from .measures.moments import continuous_statistics
    except ImportError:  # the moments family is not installed
        return None
    if not pair.continuous_names:
        return None
    try:
        return continuous_statistics(pair)
    except NotComputed:
        return None


def _aggregates(pair: EncodedPair) -> dict[str, Any] | None:
    try:
        from .aggregates import summarise
    except ImportError:
        return None
    return summarise(pair)


def _describe_original(original: Frame, pair: EncodedPair) -> dict[str, Any]:
    return {
        "path": str(original) if isinstance(original, (str, Path)) else None,
        "n_records": pair.n_orig,
        "variables": {v.name: v.scale for v in pair.variables},
    }


def _make_safe(scenario: dict[str, Any], min_cell: int) -> None:
    """Apply the safe-to-share rules to one scenario's JSON in place."""
    from .before_after import safe_tables
    from .report.safe import round_sig, sanitise_reason

    if scenario.get("tables") is not None:
        scenario["tables"] = safe_tables(scenario["tables"], min_cell)
    if scenario.get("statistics") is not None:
        scenario["statistics"] = _round_numbers(scenario["statistics"], round_sig)
    known = set(scenario.get("measures", {})) | set(scenario.get("not_computed", {}))
    if scenario.get("tables"):
        known |= set(scenario["tables"].get("one_way", {}))
    scenario["not_computed"] = {k: sanitise_reason(v, known) for k, v in scenario["not_computed"].items()}


def _round_numbers(obj: Any, rounder: Callable[[float], float]) -> Any:
    if isinstance(obj, dict):
        return {k: (v if k in ("n", "variables", "weighted", "confidence") else _round_numbers(v, rounder))
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_round_numbers(v, rounder) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return rounder(float(obj))
    return obj


def _plain(obj: Any) -> Any:
    """Convert numpy scalars/arrays to plain Python types for JSON."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
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
