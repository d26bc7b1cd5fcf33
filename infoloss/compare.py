"""Run the registered measures over one or more protected scenarios.

``compare`` is the main entry point of the Python API; the :class:`Report` it
returns gives the JSON result (``to_dict``/``to_json``) and the HTML report
(``to_html``, and inline display in Jupyter).
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from . import __version__, registry
from ._files import checked_path, refuse_folder_name, resolved, write_atomic
from ._memory import pages_for_reading, release
from .errors import InputError, NotComputed, counted
from .pair import EncodedPair, encode_pair
from .spec import Spec, as_spec

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
    analyses: dict[str, Any] | None = None  # the user's own analyses, original vs this file (docs/analyses.md)
    tables: dict[str, Any] | None = None  # before/after tables, full detail (infoloss.before_after)
    pairing: dict[str, Any] | None = None  # how the records were paired (nearest-record pairing)

    def to_dict(self, *, safe: bool = False, min_cell: int = 5, safe_tables: dict[str, Any] | None = None,
                changed_elsewhere: frozenset = frozenset(), original_records: int | None = None) -> dict[str, Any]:
        """The scenario's JSON; ``safe`` applies the safe-to-share rules (docs/measures.md, "Safe JSON ...").

        ``safe_tables``: the safe form of this scenario's ``tables`` made together with the report's other
        scenarios (:func:`infoloss.before_after.safe_tables_together`); by default it is made alone.
        ``changed_elsewhere``: the continuous variables some scenario changed in a few records, whose
        original statistics (the same numbers in every scenario) and comparisons are withheld here too.
        ``original_records``: the original's number of records, which the JSON publishes beside the scenarios
        (:class:`Report`): safe mode checks the original's counts against it (its records less a count of
        records with a value is a count of missing values).
        """
        out: dict[str, Any] = {
            "name": self.name,
            "path": self.path,
            "n_records": self.n_records,
            "paired": self.paired,
            "measures": {k: v.fields() for k, v in self.measures.items()},
            "not_computed": dict(self.not_computed),
        }
        if self.statistics is not None:
            out["statistics"] = self.statistics
        if self.analyses is not None:
            out["analyses"] = self.analyses
        if self.pairing is not None:
            out["pairing"] = self.pairing
        if self.tables is not None:
            out["tables"] = self.tables
        if safe:
            if safe_tables is not None:
                out["tables"] = safe_tables
            _make_safe(out, min_cell, tables_done=safe_tables is not None, changed_elsewhere=changed_elsewhere,
                       original_records=original_records)
        return out


@dataclass
class Report:
    """The result of :func:`compare`: the original's description and one result per scenario.

    ``inputs`` lists every file the comparison read (the original, the
    protected files, the spec and the PRAM and hierarchy files it names);
    :meth:`to_json` and :meth:`to_html` refuse to write over any of them.
    """

    original: dict[str, Any]
    scenarios: list[ScenarioResult]
    spec: Spec
    measure_ids: list[str]
    inputs: list[Path] = field(default_factory=list)
    # the risk-utility map's choices: risk and utility measure ids, max_risk, max_loss (docs/measures.md)
    risk_utility_options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, safe: bool = False, min_cell: int = 5) -> dict[str, Any]:
        """The JSON result as a dictionary (shape: docs/measures.md, "The JSON result").

        ``safe=True`` makes it safe to share like the HTML report: the
        before/after ``tables`` have no count below ``min_cell`` (small
        categories merged, small two-way cells suppressed), descriptive
        statistics are rounded to 3 significant digits and not-computed
        reasons carry no record values; ``"safe"`` says so.
        """
        _check_safe_settings(safe, min_cell)
        out = {
            "infoloss": __version__,
            "original": self.original,
            "scenarios": self._scenarios(safe, min_cell),
            "measures": {m: registry.get(m).to_dict() for m in self.measure_ids},
            "risk_utility": self.risk_utility(),
        }
        if safe:
            from .safe_risk_utility import safe_risk_utility

            out["risk_utility"] = safe_risk_utility(out["risk_utility"], min_cell, registry, out["scenarios"])
            out["safe"] = {"min_cell": int(min_cell),
                           "withheld": sum(s["safe"]["withheld"] for s in out["scenarios"])}
        return registry.json_plain(out)

    def safe_scenarios(self, min_cell: int = 5) -> list[dict[str, Any]]:
        """The scenarios' safe JSON, as :meth:`to_dict` with ``safe=True`` has them (what the safe page shows)."""
        _check_safe_settings(True, min_cell)
        return self._scenarios(True, min_cell)

    def _scenarios(self, safe: bool, min_cell: int) -> list[dict[str, Any]]:
        """The scenarios' JSON; in safe mode the original's tables are merged and suppressed alike in all, and the
        original's statistics and the comparisons of a variable that a scenario changed in a few records are
        withheld in all."""
        if not safe:
            return [s.to_dict(min_cell=min_cell) for s in self.scenarios]
        from .safe_statistics import few_changed

        changed = frozenset().union(*(few_changed(s.statistics, min_cell) for s in self.scenarios))
        together: dict[int, Any] = {}
        if sum(1 for s in self.scenarios if s.tables is not None) >= 2:
            from .before_after import safe_tables_together

            with_tables = [s for s in self.scenarios if s.tables is not None]
            together = dict(zip(map(id, with_tables), safe_tables_together([s.tables for s in with_tables], min_cell)))
        return [s.to_dict(safe=True, min_cell=min_cell, safe_tables=together.get(id(s)), changed_elsewhere=changed,
                          original_records=(self.original or {}).get("n_records"))
                for s in self.scenarios]

    def risk_utility(self, **choice: Any) -> dict[str, Any]:
        """The risk-utility map and decision rules (the JSON's ``risk_utility`` block).

        Keyword arguments ``risk``, ``utility``, ``max_risk``, ``max_loss``
        override the choices given to :func:`compare`.
        """
        from .risk.rumap import risk_utility

        return risk_utility(self, {**self.risk_utility_options, **choice})

    def to_json(
        self,
        path: str | Path | None = None,
        *,
        indent: int = 2,
        protect: str | Path | Sequence[str | Path] = (),
        safe: bool = False,
        min_cell: int = 5,
    ) -> str:
        """The JSON result as text; written atomically to ``path`` when given (``safe``: see :meth:`to_dict`).

        ``path`` must not be one of the files the comparison read
        (``self.inputs``) nor one listed in ``protect``: that is an
        InputError, and nothing is written.
        """
        protect = _protected_paths(protect)
        text = json.dumps(self.to_dict(safe=safe, min_cell=min_cell), indent=indent, ensure_ascii=False,
                          allow_nan=False) + "\n"
        if path is not None:
            write_atomic(path, text, protect=(*self.inputs, *protect))
        return text

    def to_html(
        self,
        path: str | Path | None = None,
        *,
        safe: bool = False,
        min_cell: int = 5,
        protect: str | Path | Sequence[str | Path] = (),
        weights: dict[str, float] | None = None,
    ) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given.

        ``safe=True`` makes it safe to share: no cell or bin below ``min_cell``
        records and no original record values.  ``weights`` sets the measure
        families' weights in the verdict's overall score (default: the share
        of the variables each family covers; docs/report.md).  Like
        :meth:`to_json`, it never writes over a file the comparison read or
        one in ``protect``.
        """
        from .report import render_html

        _check_safe_settings(safe, min_cell)
        protect = _protected_paths(protect)
        if path is not None:  # refuse a protected path before the work of rendering
            refuse_folder_name(path, "the output file")
            path = checked_path(path, "the output file")
            _check_not_input(path, (*self.inputs, *protect))
        html = render_html(self, safe=safe, min_cell=min_cell, weights=weights)
        if path is not None:
            write_atomic(path, html, protect=(*self.inputs, *protect))
        return html

    def to_frame(self) -> pd.DataFrame:
        """Every value as a tidy DataFrame, one row per value.

        Columns ``scenario``, ``measure``, ``family``, ``variable``, ``pair``
        and ``value``.  Each computed measure gives one row for its headline
        value (``variable`` and ``pair`` None), one per ``by_variable`` entry
        (``variable`` set) and one per ``by_pair`` entry (``pair`` = ``"A|B"``);
        rows follow the scenarios, then the measures in run order.  Measures
        that were not computed have no row (their reasons are in
        ``report.scenario(name).not_computed``).

        Examples
        --------
        >>> import pandas as pd
        >>> import infoloss
        >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "b"]})
        >>> prot = pd.DataFrame({"x": [1.0, 2.0, 3.0, 5.0], "g": ["a", "b", "a", None]})
        >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
        >>> frame = infoloss.compare(orig, prot, spec, measures=["suppressions"]).to_frame()
        >>> frame[["measure", "variable", "value"]]
              measure variable  value
        0  suppressions     None    1.0
        1  suppressions        x    0.0
        2  suppressions        g    1.0
        """
        from .notebook import report_frame

        return report_frame(self)

    def __repr__(self) -> str:
        from .notebook import report_repr

        return report_repr(self)

    def _repr_html_(self) -> str:
        """The summary table of the headline measures (Jupyter); ``to_html`` gives the whole report."""
        from .notebook import report_summary_html

        return report_summary_html(self)

    def value(self, measure: str, scenario: int | str = 0) -> float | None:
        """The value of a measure in a scenario (by index or name), None if not computed.

        An unknown measure id (a typo) is an InputError naming the closest id,
        so that it is never mistaken for a measure that was not computed.
        """
        _select_measures([measure])
        result = self.scenario(scenario).measures.get(measure)
        return None if result is None else result.value

    def scenario(self, key: int | str) -> ScenarioResult:
        """A scenario by its index or its name (InputError when there is none)."""
        names = ", ".join(repr(s.name) for s in self.scenarios)
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if -len(self.scenarios) <= key < len(self.scenarios):
                return self.scenarios[key]
            raise InputError(f"there is no scenario {key}: the report has {len(self.scenarios)} ({names}).")
        for s in self.scenarios:
            if s.name == key:
                return s
        raise InputError(f"there is no scenario {key!r}; the scenarios are {names}.")


def _protected_paths(protect: Any) -> tuple[str | Path, ...]:
    """``protect`` as a tuple of paths: one path alone (``"data.csv"``, which was read as the paths "d", "a", ...
    and so written over) or a list of them; anything else is an InputError."""
    if isinstance(protect, (str, Path)):
        return (protect,)
    if protect is None:
        return ()
    if not isinstance(protect, (list, tuple, set, frozenset)) or not all(isinstance(p, (str, Path)) for p in protect):
        raise InputError(f"protect must be a path or a list of paths (files never to write over), got {protect!r}.")
    return tuple(protect)


def _check_safe_settings(safe: Any, min_cell: Any) -> None:
    """``safe`` is True or False and ``min_cell`` a whole number of at least 1 (InputError otherwise)."""
    if not isinstance(safe, (bool, np.bool_)):
        raise InputError(f"safe must be True or False, got {safe!r}.")
    if isinstance(min_cell, (bool, np.bool_)) or not isinstance(min_cell, (int, np.integer)) or min_cell < 1:
        raise InputError(f"min_cell must be a whole number of at least 1, got {min_cell!r}.")


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
    risk_utility: dict[str, Any] | None = None,
    records_dir: str | Path | None = None,
    records_format: str = "csv",
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
    risk_utility : dict, optional
        The risk-utility map's ``risk`` and ``utility`` measure ids and the
        thresholds ``max_risk`` / ``max_loss`` of its two decision rules.
    records_dir : path, optional
        Write each file's per-record risk values (fk, Fk, individual risk,
        SUDA and DIS scores, ...) into this folder, one file per data file;
        they never go into the report or the JSON.
    records_format : {"csv", "parquet"}
        Format of those files.

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
    spec = as_spec(spec)
    inputs = _input_paths(original, protected, spec)
    ids = _select_measures(measures)
    options = options or {}
    if not isinstance(options, dict):
        raise InputError(f"options must be a mapping of measure ids to their options, e.g. "
                         f"{{'lambda': {{'missing_rule': 'sdcmicro'}}}}, got {type(options).__name__}.")
    unknown_options = sorted(set(options) - set(ids))
    if unknown_options:
        why = unknown_measure(str(unknown_options[0])) or "which is not among the measures run"
        raise InputError(f"options were given for {unknown_options[0]!r}, {why}.")
    options = {mid: registry.get(mid).check_options(opts) for mid, opts in options.items()}
    ru_choice = _risk_utility_choice(risk_utility, ids)
    protected_list = list(protected) if isinstance(protected, (list, tuple)) else [protected]
    if not protected_list:
        raise InputError("give at least one protected file.")
    names = _scenario_names(protected_list, names)
    _check_files(original, protected_list)
    if progress is not None and not callable(progress):
        raise InputError(f"progress must be a function progress(done, total, label), got {type(progress).__name__}.")
    if records_dir is not None:
        from .risk.records import check_planned

        records_dir = checked_path(records_dir, "the records folder")
        check_planned(records_dir, names, records_format, inputs)
    pages_for_reading(True)  # the command line's small pages while files are read and encoded (_memory)
    original_df, first_df = _read_first_pair(original, protected_list[0], spec, ids)
    release_memory = _release_for(original_df, first_df)
    release_memory()
    steps = len(ids) + (1 if aggregates else 0)  # the report's plot data is a step of its own
    total = steps * len(protected_list)
    original_cache: dict = {}  # the original is converted once for all scenarios
    records_taken: set[str] = set()
    results = []
    previous: dict[str, float] | None = None
    records_staged: list[tuple[Path, Path]] = []  # per-record files, renamed to their names once all succeed
    records_existed = records_dir is not None and Path(records_dir).exists()
    try:
        for k, (prot, name) in enumerate(zip(protected_list, names)):
            if k == 0:
                prot_df, first_df = first_df, None
            else:
                pages_for_reading(True)
                prot_df = _read_frame(prot, spec, "protected")
            release_memory()
            pair = _encode_scenario(original_df, prot_df, spec, original_cache,
                                    (prot, name) if len(protected_list) > 1 else None)
            del prot_df
            if k == len(protected_list) - 1:
                original_df = None  # no later scenario encodes it: its columns go before the measures run
            elif k == 0 and isinstance(original, (str, Path)):
                original_df = _compact_original_text(_share_original_floats(original_df, pair), pair)
            release_memory()
            pages_for_reading(False)
            scenario = ScenarioResult(
                name=name,
                path=str(prot) if isinstance(prot, (str, Path)) else None,
                n_records=pair.n_prot,
                paired=pair.paired,
            )
            timed: dict[str, float] = {}  # the statistics' seconds, beside the measures' (scenario.seconds)
            describe = functools.partial(_describe, scenario, pair, timed) if statistics else None
            _run_measures(scenario, pair, ids, options, progress, k * steps, total, previous=previous, job=describe,
                          release=release_memory)
            previous = {**scenario.seconds, **timed}  # the next scenario's side-by-side groups start longest first
            if records_dir is not None:
                _write_records(pair, records_dir, records_format, name, k == 0, options, inputs, records_taken,
                               records_staged)
            if pair.nearest is not None and pair.nearest.summary is not None:
                scenario.pairing = pair.nearest.summary
            if any(registry.get(mid).family == "analyses" for mid in ids):
                scenario.analyses = _analyses(pair)
            if tables:
                from .before_after import before_after_tables

                scenario.tables = before_after_tables(pair)
            if aggregates:
                if progress is not None:
                    progress(k * steps + len(ids), total, f"{name}: plot data for the report")
                scenario.aggregates = _aggregates(pair)
            results.append(scenario)
            release_memory()
            if k == 0:
                described = _describe_original(original, pair)
            used_spec = pair.spec
            del pair  # its arrays and caches go before the next protected file is read
            release_memory()
    except BaseException:
        _commit_records(records_staged, ok=False)
        if records_dir is not None and not records_existed:
            try:  # the folder this run created, empty again
                Path(records_dir).rmdir()
            except OSError:
                pass
        raise
    _commit_records(records_staged, ok=True)
    if progress is not None:
        progress(total, total, "done")
    return Report(original=described, scenarios=results, spec=used_spec, measure_ids=ids, inputs=inputs,
                  risk_utility_options=ru_choice)


#: families whose measures alone read the pair's cache entries named after them (key ``(family, ...)``);
#: those entries are dropped when the family's last measure of a run has finished.  The cache is a
#: memo, so a later reader would only compute the entry again.
_FAMILY_CACHES = ("record", "tables", "distributions", "propensity", "gdu")


def _lanes() -> int:
    """How many measures may run at once: 2 with two or more cores for this process, else 1."""
    from ._concurrent import cores

    return 2 if cores() >= 2 else 1


def _run_measures(scenario: ScenarioResult, pair: EncodedPair, ids: list[str], options: dict[str, dict[str, Any]],
                  progress: Progress | None, step: int, total: int, previous: dict[str, float] | None = None,
                  job: Callable[[], None] | None = None, release: Callable[[], None] = release) -> None:
    """Run one scenario's measures; the results are kept in the order of ``ids``.

    The measures that share cores (``shares_cores``, registry.measure) run
    first, two at a time (``infoloss._concurrent``); the others then run one
    after the other, each with the whole machine (their own threads, BLAS).
    A family's cache entries go when its last measure has finished, and
    ``release`` runs after each measure (:func:`_release_for`).
    ``previous`` holds the seconds each measure took in the previous scenario
    (the side-by-side groups then start longest first).  ``job`` (the
    descriptive statistics) runs with the moments measures when they run side
    by side, else after the measures.
    """
    infos = {mid: registry.get(mid) for mid in ids}
    beside = [mid for mid in ids if infos[mid].shares_cores] if _lanes() > 1 and len(ids) > 1 else []
    left = {family: sum(1 for i in infos.values() if i.family == family) for family in _FAMILY_CACHES}
    started = 0

    def start(mid: str) -> None:
        nonlocal started
        if progress is not None:
            progress(step + started, total, f"{scenario.name}: {mid}")
        started += 1

    def finish(mid: str) -> None:
        family = infos[mid].family
        if family in left:
            left[family] -= 1
            if left[family] == 0:
                _drop_family_cache(pair, family)
        release()

    if beside and pair.nearest is not None and any(infos[mid].needs_pairing for mid in beside):
        try:  # the nearest-record search (its own threads and BLAS limits) before measures share the cores
            pair.paired_view()
        except NotComputed:  # each measure that needs it says why
            pass
    if beside:
        _run_side_by_side(scenario, pair, beside, infos, options, start, finish, previous, job)
        job = None
    for mid in ids:
        if mid not in scenario.seconds:
            start(mid)
            _run_measure(scenario, pair, mid, options.get(mid, {}))
            finish(mid)
    if job is not None:
        job()
    for store in (scenario.measures, scenario.not_computed, scenario.seconds):
        ordered = {mid: store[mid] for mid in ids if mid in store}
        store.clear()
        store.update(ordered)


#: stands for ``job`` in a group of :func:`_run_side_by_side` (no measure id has a space)
_JOB = "job beside the measures"


def _run_side_by_side(scenario: ScenarioResult, pair: EncodedPair, queue: list[str],
                      infos: dict[str, registry.MeasureInfo], options: dict[str, dict[str, Any]],
                      start: Callable[[str], None], finish: Callable[[str], None],
                      previous: dict[str, float] | None = None, job: Callable[[], None] | None = None) -> None:
    """Run ``queue`` on two threads, BLAS at one thread and warnings kept per thread.

    A family's measures run one after the other on one thread: they share
    cache entries, and the second would only wait for the first's.  The
    groups start in the order of ``queue``, or, given the seconds each
    measure took in the previous scenario (``previous``), longest first:
    the longest-processing-time rule, which keeps a short group from being
    left alone on one core at the end (its BLAS held to one thread).  The
    order changes no result (``tests/test_side_by_side.py``).  ``job`` runs
    after the moments measures, on their thread (it reads their cache
    entries), or as a group of its own.
    """
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    from ._concurrent import side_by_side

    def run_group(group: list[str]) -> None:
        for mid in group:
            if mid == _JOB:
                job()
            else:
                _run_measure(scenario, pair, mid, options.get(mid, {}))

    by_family: dict[str, list[str]] = {}
    for mid in queue:
        by_family.setdefault(infos[mid].family, []).append(mid)
    if job is not None:
        by_family.setdefault("moments", []).append(_JOB)
    groups = list(by_family.values())
    if previous:
        groups.sort(key=lambda group: -sum(previous.get(mid, 0.0) for mid in group))  # stable: ties keep their order
    running: dict[Any, list[str]] = {}
    with side_by_side(), ThreadPoolExecutor(max_workers=2, thread_name_prefix="infoloss-measure") as pool:
        while groups or running:
            while groups and len(running) < 2:
                group = groups.pop(0)
                for mid in group:
                    if mid != _JOB:
                        start(mid)
                running[pool.submit(run_group, group)] = group
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                group = running.pop(future)
                future.result()  # a bug in a measure stops the run here, as it would on one thread
                for mid in group:
                    if mid != _JOB:
                        finish(mid)


#: input frames of at least this many bytes make ``compare`` hand freed memory back between its steps
RELEASE_MIN_BYTES = 256 * 2**20


def _release_for(*frames: pd.DataFrame) -> Callable[[], None]:
    """:func:`infoloss._memory.release` when the input ``frames`` hold at least ``RELEASE_MIN_BYTES``, else a no-op.

    Handing freed memory back to the system between reading, encoding and
    each measure kept 1.5 GB of resident memory that no object used out of
    the 1,000,000 × 50 runs; but memory handed back is faulted in again when
    the next step allocates (on a virtual machine about 4.5 µs a 4 KB page).
    Below 256 MB of input (``DataFrame.memory_usage``, not deep: text
    columns count their pointers or codes) a whole comparison uses a few
    hundred MB, and handing back cost the 200,000 × 16 benchmark
    (40 MB of input) 50 ms of its 1.5 CPU seconds for 127 MB of peak
    memory (343 against 470 MB).  Results do not depend on it.
    """
    size = sum(int(df.memory_usage(index=False, deep=False).sum()) for df in frames if df is not None)
    return release if size >= RELEASE_MIN_BYTES else _keep


def _keep() -> None:
    """Hand nothing back (small inputs, :func:`_release_for`)."""


def _read_first_pair(original: Frame, protected: Frame, spec: Spec | None,
                     ids: Sequence[str] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The original and the first protected file as frames, the two files read at the same time.

    Reading a CSV file is mostly Arrow's parsing on its own threads, with
    single-threaded steps between (the first block's types, the conversion to
    pandas): read together, each fills the other's gaps (1,000,000 × 50: 0.1-0.4 s
    less than one after the other, the same frames).  Meanwhile this thread
    imports the modules of the measures ``ids`` (scipy.special among them:
    about 0.1 s of a 200,000-record run).  An error in the original is
    reported first, as when the files are read one after the other; a frame
    given instead of a path is used as it is.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .io import read_table  # noqa: F401 (imported here, before the reading threads import it)

    if not (isinstance(original, (str, Path)) and isinstance(protected, (str, Path))):
        return _read_frame(original, spec, "original"), _read_frame(protected, spec, "protected")
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="infoloss-read") as pool:
        first = pool.submit(_read_frame, original, spec, "original")
        second = pool.submit(_read_frame, protected, spec, "protected")
        registry.load(ids)
        return first.result(), second.result()


def _encode_scenario(original_df: pd.DataFrame, prot_df: pd.DataFrame, spec: Spec, original_cache: dict,
                     which: tuple[Frame, str] | None) -> EncodedPair:
    """``encode_pair``; with several protected files (``which``: this one and its scenario's name) an
    InputError names the file at fault ("the files have 200 and 195 records" did not say which)."""
    try:
        return encode_pair(original_df, prot_df, spec, original_cache=original_cache)
    except InputError as exc:
        if which is None:
            raise
        raise type(exc)(_naming_protected(str(exc), *which)) from None


def _naming_protected(message: str, protected: Frame, name: str) -> str:
    """``message`` naming ``protected`` (its path, or its scenario for a DataFrame) where it says "the protected
    file" or "the files"; a message about the original alone is left as it is."""
    label = f"the protected file {protected}" if isinstance(protected, (str, Path)) else \
        f"the protected file of scenario {name!r}"
    if isinstance(protected, (str, Path)) and str(protected) in message:
        return message
    if message.startswith("the files "):
        return f"the original file and {label}{message[len('the files'):]}"
    return message.replace("the protected file", label, 1)


def _read_frame(frame: Frame, spec: Spec | None, which: str) -> pd.DataFrame:
    """The spec's columns of a data file, or the frame given instead of a path as it is.

    A file with a header and no records is refused here, where its path is
    known (an empty frame is refused when the pair is encoded).
    """
    from .io import read_table

    if not isinstance(frame, (str, Path)):
        return frame
    df = read_table(frame, spec, which=which, spec_columns=True)
    if len(df) == 0:
        raise InputError(f"the {which} file {frame} has no records; check that it is the right file and not just "
                         "a header.")
    return df


def _drop_family_cache(pair: EncodedPair, family: str) -> None:
    """Drop the pair's cache entries named after ``family`` (its measures have all finished)."""
    for key in [k for k in list(pair.cache) if isinstance(k, tuple) and k and k[0] == family]:
        pair.cache.pop(key, None)


def _share_original_floats(original: pd.DataFrame, pair: EncodedPair) -> pd.DataFrame:
    """The original frame with its float64 columns replaced by the pair's equal encoded arrays (no copy).

    ``compare`` keeps the original frame it read for the later scenarios' encoding;
    a float64 column equal (NaN for NaN) to its encoded array is then held once
    instead of twice.  Other columns and unequal ones stay as they were, so the
    frame holds the same values and types and encodes as before.
    """
    from ._concurrent import map_in_order

    shared = original.copy(deep=False)
    names = [name for name in pair.continuous if name in shared.columns and shared[name].dtype == np.float64]

    def equal(job: tuple[np.ndarray, np.ndarray]) -> bool:  # numpy's comparisons release the GIL: two at a time
        values, encoded = job
        return values.shape == encoded.shape and bool(np.array_equal(values, encoded, equal_nan=True))

    jobs = [(shared[name].to_numpy(), pair.continuous[name].orig) for name in names]  # pandas on this thread
    for name, same in zip(names, map_in_order(equal, jobs, pair.n_orig * len(names))):
        if same:
            shared[name] = pd.Series(pair.continuous[name].orig, index=shared.index, name=name, copy=False)
    return shared


_NOT_COMPACTED_ROLES = ("id", "household", "cluster", "strata", "weight")


def _compact_original_text(original: pd.DataFrame, pair: EncodedPair) -> pd.DataFrame:
    """The original frame with the text columns of plain categorical variables dictionary-encoded (same values).

    The later scenarios' ``encode_pair`` reads such a column only through
    the original cache (its factors and whether it holds numbers or text)
    and for its type: a pandas categorical would set the category order, an
    Arrow dictionary column does not.  On 1,000,000 records a text column
    then takes 1 to 4 bytes a record instead of about 12, while the first
    scenario is measured.  Not done when the later scenarios infer part of
    the spec from the frame (``analyse: all``), nor for variables recoded or
    generalised (their encoding reads the values again) or for the id,
    household, design and weight columns.
    """
    import pyarrow as pa

    from ._concurrent import map_in_order

    spec = pair.spec
    if getattr(spec, "analyse_all", True):
        return original
    compact = original.copy(deep=False)
    names = []
    for var in spec.variables.values():
        plain = var.scale in ("nominal", "ordinal") and var.recode is None and var.hierarchy is None
        if (not plain or var.removed or var.role in _NOT_COMPACTED_ROLES or var.name == spec.pairing_id
                or var.name not in compact.columns or not isinstance(compact[var.name].dtype, pd.StringDtype)):
            continue
        names.append(var.name)

    def encoded(values: Any) -> Any:  # Arrow's kernels release the GIL: two columns at a time
        if isinstance(values, pa.ChunkedArray):  # as read from a CSV file, in blocks
            values = values.combine_chunks()
        values = values.dictionary_encode()
        width = next(t for t in (pa.int8(), pa.int16(), pa.int32()) if len(values.dictionary) < 2 ** (t.bit_width - 1))
        return values.cast(pa.dictionary(width, values.type.value_type))

    columns = [pa.array(compact[name].array) for name in names]  # pandas on this thread
    for name, values in zip(names, map_in_order(encoded, columns, len(compact) * len(names))):
        compact[name] = pd.Series(pd.arrays.ArrowExtensionArray(values), index=compact.index, name=name)
    return compact


def _input_paths(original: Frame, protected: Frame | Sequence[Frame], spec: Spec | None) -> list[Path]:
    """Every file the comparison reads: data files given as paths, the spec file and the files it names."""
    frames = [original, *(protected if isinstance(protected, (list, tuple)) else [protected])]
    whats = ["the original file"] + ["the protected file"] * (len(frames) - 1)
    paths = [checked_path(f, what) for f, what in zip(frames, whats) if isinstance(f, (str, Path))]
    paths += spec.input_files() if spec is not None else []
    return [resolved(p) for p in paths]  # absolute: still right if the working folder changes later


def _check_files(original: Frame, protected: list[Frame]) -> None:
    """Before any work: each is a DataFrame or a path, and every data file given as a path exists and can be read
    (a later scenario's missing file would otherwise end the run after the earlier ones, whose per-record files
    were already written)."""
    from .io import _check_file

    for k, frame in enumerate([original, *protected]):
        if not isinstance(frame, (str, Path, pd.DataFrame)):  # compare, unlike a measure function, reads paths
            raise InputError(f"the {'original' if k == 0 else 'protected'} data must be a pandas DataFrame or the "
                             f"path of a data file (text or pathlib.Path), got {type(frame).__name__}.")
        if isinstance(frame, (str, Path)):
            path = Path(frame)
            _check_file(path, f"the {'original' if k == 0 else 'protected'} file {path}", path.suffix.lower())


def _check_not_input(path: str | Path, inputs: Sequence[str | Path]) -> None:
    from ._files import _same_file

    if any(_same_file(Path(other), Path(path)) for other in inputs):
        raise InputError(f"the output file {path} is one of the input files; choose another output path.")


def _risk_utility_choice(choice: dict[str, Any] | None, ids: list[str]) -> dict[str, Any]:
    from .risk.rumap import check_choice

    choice = check_choice(choice)
    for key in ("risk", "utility"):
        if choice.get(key) is not None and choice[key] not in ids:
            raise InputError(f"the risk-utility {key} measure {choice[key]!r} is not among the measures run; "
                             "add it to the measures.")
    return choice


def _commit_records(staged: list[tuple[Path, Path]], ok: bool) -> None:
    """The per-record files under their names once every scenario succeeded; removed otherwise."""
    if staged:  # imported only when --records wrote something
        from .risk.records import commit_staged

        commit_staged(staged, ok)


def _write_records(pair: EncodedPair, directory: str | Path, fmt: str, name: str, with_original: bool,
                   options: dict[str, dict[str, Any]], inputs: list[Path], taken: set[str],
                   staged: list[tuple[Path, Path]]) -> None:
    from .risk.records import write_records

    write_records(pair, directory, name, fmt=fmt, original=with_original, options=options, protect=inputs,
                  taken=taken, staged=staged)


def _select_measures(measures: Iterable[str] | str | None) -> list[str]:
    if measures is None or measures == "all":
        return [m.id for m in registry.registered()]
    if isinstance(measures, str):
        measures = [m.strip() for m in measures.split(",") if m.strip()]
    if not isinstance(measures, Iterable):
        raise InputError(f"measures must be measure ids (a list, or text separated by commas) or 'all', got "
                         f"{type(measures).__name__}.")
    chosen = list(dict.fromkeys(measures))
    if "all" in chosen:  # all, and others already among them
        return [m.id for m in registry.registered()]
    indexed = registry.known_ids()
    for mid in chosen:
        if not isinstance(mid, str):
            raise InputError(f"unknown measure {mid!r}: measure ids are text; 'infoloss measures' lists them.")
        # an id of the index is known without importing its module (compare imports it while the files are read)
        if mid not in indexed and not registry.is_measure(mid):
            raise InputError(f"unknown measure {mid!r}{closest_measure(mid)}; 'infoloss measures' lists them.")
    if not chosen:
        raise InputError("no measure was selected; give measure ids or 'all'.")
    return chosen


def closest_measure(mid: str) -> str:
    """" (did you mean 'suda_dis'?)": the measure id closest to ``mid`` (the same but for case first), or ''."""
    import difflib

    known = [m.id for m in registry.registered()]
    lower = {k.lower(): k for k in known}
    close = [lower[mid.lower()]] if mid.lower() in lower else difflib.get_close_matches(mid, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_measure(mid: str) -> str | None:
    """"which is not a measure (did you mean 'suda_dis'?); 'infoloss measures' lists them" when ``mid`` names no
    measure, else None."""
    if mid in registry.known_ids() or registry.is_measure(mid):
        return None
    return f"which is not a measure{closest_measure(mid)}; 'infoloss measures' lists them"


#: the name the report gives the original file (its point on the risk-utility map); no scenario may take it
ORIGINAL_NAME = "original"


def _scenario_names(protected: list[Frame], names: Sequence[str] | None) -> list[str]:
    if names is not None and (isinstance(names, str) or not isinstance(names, Sequence)):
        raise InputError(f"names must be a list with one name per protected file, got {type(names).__name__}.")
    if names:
        if len(names) != len(protected):
            raise InputError(f"{counted(len(names), 'name')} {'was' if len(names) == 1 else 'were'} given for "
                             f"{counted(len(protected), 'protected file')}; give one per file.")
        out = [str(n) for n in names]
        blank = [i + 1 for i, n in enumerate(out) if not _visible(n)]
        if blank:
            raise InputError(f"the name of scenario {blank[0]} is empty; give every protected file a name with at "
                             "least one visible character.")
        seen = [_visible(n) for n in out]
        twice = next((n for n, v in zip(out, seen) if seen.count(v) > 1), None)
        if twice is not None:
            raise InputError(f"the scenario name {twice!r} was given twice; give every protected file its own name.")
        if ORIGINAL_NAME in seen:
            raise InputError(f"{ORIGINAL_NAME!r} names the original file in the report and its risk-utility map; "
                             "give the protected file another name.")
    else:
        out = [Path(p).stem if isinstance(p, (str, Path)) else f"scenario{i + 1}" for i, p in enumerate(protected)]
        out = [f"{n} (protected)" if _visible(n) == ORIGINAL_NAME else n for n in out]
    seen = [_visible(n) for n in out]  # file stems that look the same (spaces, zero-width characters) are numbered
    if len(set(seen)) != len(seen):
        out = [f"{n} ({i + 1})" if seen.count(v) > 1 else n for i, (n, v) in enumerate(zip(out, seen))]
    return out


def _visible(name: str) -> str:
    """A name as it shows: without surrounding spaces and invisible format characters (zero-width spaces)."""
    import unicodedata

    return "".join(ch for ch in name if unicodedata.category(ch) != "Cf").strip()


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


def _describe(scenario: ScenarioResult, pair: EncodedPair, timed: dict[str, float]) -> None:
    """The scenario's descriptive statistics (they share the moments family's per-file passes, so they run
    beside the measures, ``_run_measures``'s ``job``); their seconds go into ``timed``."""
    start = time.perf_counter()
    scenario.statistics = _statistics(pair)
    timed[_JOB] = time.perf_counter() - start


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


def _analyses(pair: EncodedPair) -> dict[str, Any] | None:
    """The ``analyses`` block (computed once with the analyses measures), None without an analyses section."""
    try:
        from .analyses.run import analyses_for
    except ImportError:  # the analyses family is not installed
        return None
    try:
        return analyses_for(pair)
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


def _make_safe(scenario: dict[str, Any], min_cell: int, tables_done: bool = False,
               changed_elsewhere: frozenset = frozenset(), original_records: int | None = None) -> None:
    """Apply the safe-to-share rules to one scenario's JSON in place (``tables_done``: its tables already are;
    ``changed_elsewhere``, ``original_records``: see :meth:`ScenarioResult.to_dict`)."""
    from .before_after import safe_tables
    from .report.safe import round_sig, sanitise_reason

    if scenario.get("tables") is not None and not tables_done:
        scenario["tables"] = safe_tables(scenario["tables"], min_cell)
    if scenario.get("statistics") is not None:
        scenario["statistics"] = _round_numbers(scenario["statistics"], round_sig)
    known = set(scenario.get("measures", {})) | set(scenario.get("not_computed", {}))
    if scenario.get("tables"):
        known |= set(scenario["tables"].get("one_way", {}))
    scenario["not_computed"] = {k: sanitise_reason(v, known, min_cell) for k, v in scenario["not_computed"].items()}
    _make_results_safe(scenario, min_cell, changed_elsewhere, original_records)


def _make_results_safe(scenario: dict[str, Any], min_cell: int, changed_elsewhere: frozenset = frozenset(),
                       original_records: int | None = None) -> None:
    """Small counts, per-record material and extremes out of the measures and analyses (infoloss.safe_results)."""
    from .safe_analyses import safe_analyses
    from .safe_results import published_missing, record_counts, safe_measures, safe_pairing
    from .safe_statistics import few_complete_cases, few_values, published_n, safe_statistics

    counts = record_counts(scenario, original_records)
    stats = scenario.get("statistics")
    # each file's n against its own records, where both are known (another file's size tells nothing of them)
    own = ({"orig": (int(original_records),), "prot": (int(scenario["n_records"]),)}
           if original_records and scenario.get("n_records") else counts)
    safe_stats, more_stats = (safe_statistics(stats, min_cell, own, changed_elsewhere) if stats is not None
                              else (None, 0))
    # a variable any scenario changed in a few records: another scenario's exact comparisons of it, with that
    # scenario's own (rounded) protected mean, give the original's mean as well as its own do
    scenario["measures"], summary = safe_measures(scenario["measures"], min_cell, registry, counts,
                                                  few_values(stats, min_cell) | changed_elsewhere,
                                                  few_complete_cases(stats, min_cell),
                                                  published_missing(scenario.get("tables"))
                                                  | published_n(safe_stats),
                                                  {side: published_missing(scenario.get("tables"), side)
                                                   | published_n(safe_stats, short)
                                                   for side, short in (("original", "orig"), ("protected", "prot"))})
    if stats is not None:
        scenario["statistics"] = safe_stats
        summary["withheld"] += more_stats
    if isinstance(scenario.get("pairing"), dict):
        scenario["pairing"], more = safe_pairing(scenario["pairing"], min_cell, counts)
        summary["withheld"] += more
    if scenario.get("analyses") is not None:
        from .report.safe import small_counts_in_notes

        scenario["analyses"], more = safe_analyses(scenario["analyses"], min_cell, counts, scenario.get("tables"))
        scenario["analyses"] = small_counts_in_notes(scenario["analyses"], min_cell)
        summary["withheld"] += more["withheld"]
    scenario["safe"] = summary


def _round_numbers(obj: Any, rounder: Callable[[float], float]) -> Any:
    if isinstance(obj, dict):
        return {k: (v if k in ("n", "variables", "weighted", "confidence") else _round_numbers(v, rounder))
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_round_numbers(v, rounder) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return rounder(float(obj))
    return obj

