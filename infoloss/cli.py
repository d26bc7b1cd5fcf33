"""The ``infoloss`` command line: compare, spec, measures, example, hierarchy.

Exit status: 0 done; 2 unusable input or arguments (one sentence on standard
error, no traceback); 1 a bug.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape  # names, paths and reasons are the user's text, never rich markup

from . import __version__
from .errors import InputError, counted, excerpt, shortened

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Measure the information lost by protecting (anonymising) a microdata file.",
)
err = Console(stderr=True, emoji=False)  # ":cat:" in a name or path is text, never an emoji
out = Console(emoji=False)


def _split(values: Optional[list[str]]) -> list[str]:
    items: list[str] = []
    for value in values or []:
        items.extend(v.strip() for v in value.split(",") if v.strip())
    return items


def _fail(message: str) -> None:
    err.print(f"infoloss: error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(2)


@app.callback(invoke_without_command=True)
def _main(ctx: typer.Context,
          version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if ctx.invoked_subcommand != "compare":  # compare resumes it once its files are read (_collecting)
        from ._memory import resume_collection

        resume_collection()
    if version:
        out.print(f"infoloss {__version__}")
        raise typer.Exit(0)


@app.command()
def compare(
    original: Path = typer.Argument(..., help="The original microdata file."),
    protected: list[Path] = typer.Argument(..., help="One or more protected files (one scenario each)."),
    spec: Optional[str] = typer.Option(None, "--spec", metavar="<path>", help="The variable spec (YAML); inferred when absent."),
    measures: Optional[list[str]] = typer.Option(None, "--measures", help="Measure ids, comma-separated, or 'all' (repeatable)."),
    json_out: Optional[str] = typer.Option(None, "--json", metavar="<path>", help="Write the JSON result here ('-' for standard output)."),
    html_out: Optional[str] = typer.Option(None, "--html", metavar="<path>", help="Write the HTML report here."),
    safe: bool = typer.Option(False, "--safe", help="Make the HTML report and the JSON safe to share (no small cells, no raw values)."),
    min_cell: Optional[int] = typer.Option(None, "--min-cell", min=1, help="Smallest count shown in safe mode (default 5; only with --safe)."),
    family_weights: Optional[str] = typer.Option(None, "--family-weights", help="Weights of the measure families in the report's overall score, e.g. tables=2,record=1 (default: by the variables each covers)."),
    name: Optional[list[str]] = typer.Option(None, "--name", help="Scenario name, once per protected file."),
    gdu_weights: Optional[str] = typer.Option(None, "--gdu-weights", help="Weights of univariate and bivariate utility, e.g. 0.5,0.5."),
    option: Optional[list[str]] = typer.Option(None, "--set", help="A measure option, e.g. lambda.missing_rule=sdcmicro (repeatable)."),
    nominal: Optional[list[str]] = typer.Option(None, "--nominal", help="Treat these variables as nominal."),
    ordinal: Optional[list[str]] = typer.Option(None, "--ordinal", help="Treat these variables as ordinal."),
    continuous: Optional[list[str]] = typer.Option(None, "--continuous", help="Treat these variables as continuous."),
    key: Optional[list[str]] = typer.Option(None, "--key", help="Mark these variables as key variables."),
    target: Optional[list[str]] = typer.Option(None, "--target", help="Variables to predict for the mining measures (categorical: classification, continuous: regression)."),
    weight: Optional[str] = typer.Option(None, "--weight", help="The weight column."),
    id_: Optional[str] = typer.Option(None, "--id", help="The record id column."),
    pairing: Optional[str] = typer.Option(None, "--pairing", help="row, none, nearest (each protected record with its nearest original record), or an id column to pair records by."),
    all_: bool = typer.Option(False, "--all", help="Analyse every column, not only those listed in the spec."),
    sensitive: Optional[list[str]] = typer.Option(None, "--sensitive", help="Mark these variables as sensitive (l-diversity, t-closeness)."),
    household: Optional[str] = typer.Option(None, "--household", help="The household id column (household risk)."),
    ru: Optional[str] = typer.Option(None, "--ru", help="The risk-utility map's measures, e.g. risk=global_risk,utility=gdu."),
    max_risk: Optional[float] = typer.Option(None, "--max-risk", help="Choose the scenario losing least among those with risk at most this."),
    max_loss: Optional[float] = typer.Option(None, "--max-loss", help="Choose the scenario with least risk among those losing at most this."),
    records: Optional[str] = typer.Option(None, "--records", metavar="<path>", help="Write per-record risk values into this folder (never into the report)."),
    records_format: Optional[str] = typer.Option(None, "--records-format", help="Format of the --records files: csv (default) or parquet (only with --records)."),
) -> None:
    """Compare ORIGINAL with each PROTECTED file and report the information lost."""
    from ._memory import read_in_small_pages, reuse_freed_memory
    from ._numpy_start import import_numpy

    reuse_freed_memory()
    import_numpy()  # on AMD Zen 4 without numpy's slow AVX-512 sorts
    _defer_numpy_tools()
    first_pair_bytes = _file_bytes(original, protected[:1])
    if first_pair_bytes >= SMALL_PAGES_MIN_BYTES:
        read_in_small_pages()  # large files read into 4 KB pages (a fresh huge page is dear on a VM)
    serial = first_pair_bytes >= SERIAL_PARSE_MIN_BYTES
    from .io_csv import read_ahead

    with _reads_dropped():
        try:
            _check_given({"--spec": spec, "--json": json_out, "--html": html_out, "--records": records,
                          "--weight": weight, "--id": id_, "--pairing": pairing, "--household": household,
                          "--family-weights": family_weights, "--gdu-weights": gdu_weights, "--ru": ru},
                         {"--nominal": nominal, "--ordinal": ordinal, "--continuous": continuous, "--key": key,
                          "--target": target, "--sensitive": sensitive, "--measures": measures})
            spec_path, records_dir = _path(spec), _path(records)
            pending: list[str] = []  # warnings of a spec inferred here, printed once the run has succeeded
            if spec_path is None:  # the original is read to infer the spec, the same way as the protected file
                read_ahead([original, protected[0]], None, serial=serial)
            the_spec = _spec_for(original, spec_path, nominal, ordinal, continuous, key, weight, id_, pairing, all_,
                                 target, sensitive, household, pending)
            if spec_path is not None:
                read_ahead([original, protected[0]], the_spec, serial=serial)
            from .compare import _select_measures, compare as run_compare

            ids = _select_measures(None if measures is None else _split(measures))
            options = _options(option, gdu_weights, ids)
            ru_choice = _ru_choice(ru, max_risk, max_loss)
            inputs = [original, *protected] + ([spec_path] if spec_path else []) + the_spec.input_files()
            records_format = _check_records_format(records_format, records_dir)
            if records_dir is not None:
                _check_records(records_dir)
                if safe:
                    raise InputError("--records writes per-record risk values, which safe mode never releases; "
                                     "run without --safe to write them, or drop --records.")
            if records_dir is not None:
                _check_outputs_not_records(json_out, html_out, records_dir, protected, name, records_format)
            _check_outputs(json_out, html_out, inputs, records_dir)
            if min_cell is not None and not safe:
                raise InputError("--min-cell sets the smallest count shown in safe mode; add --safe, or drop "
                                 "--min-cell.")
            min_cell = 5 if min_cell is None else min_cell
            if family_weights is not None and html_out is None:
                raise InputError("--family-weights sets the HTML report's overall score; add --html, or drop "
                                 "--family-weights.")
            weights = _family_weights(family_weights)
            with _ProgressBar() as progress, _warnings_as_lines(pending):
                report = run_compare(
                    str(original),
                    [str(p) for p in protected],
                    the_spec,
                    names=name,
                    measures=ids,
                    options=options,
                    aggregates=html_out is not None,
                    progress=_collecting(progress),
                    risk_utility=ru_choice,
                    records_dir=records_dir,
                    records_format=records_format,
                )
                if html_out:
                    progress.label("writing the HTML report")
                # both texts first: a failure while making one leaves neither file written
                html_text = report.to_html(safe=safe, min_cell=min_cell, weights=weights) if html_out else None
                json_text = report.to_json(safe=safe, min_cell=min_cell) if json_out else None
            _write_outputs(report, [(html_out, html_text), (json_out, json_text)], inputs)
        except InputError as exc:
            _fail(str(exc))
    if not json_out and not html_out:
        _print_summary(report, report.to_dict(safe=True, min_cell=min_cell) if safe else None)
    else:
        written = [p for p in (json_out, html_out) if p not in (None, "-")]
        if written:
            err.print("wrote " + ", ".join(_shown(str(p)) for p in written), markup=False, highlight=False)


def _defer_numpy_tools() -> None:
    """Load ``numpy.f2py`` and ``numpy.testing`` only if something uses them (start-up, issue 14).

    scipy's vendored ``array_api_compat`` copies every public attribute of
    numpy when ``scipy.special`` is first imported (``clone_module``:
    ``hasattr(numpy, name)`` for each name in ``dir(numpy)``), and that
    imports numpy's two lazily loaded tool packages, the Fortran wrapper
    generator (with ``charset_normalizer``) and the test helpers (with
    ``unittest``): 0.07-0.14 s of a 1 s comparison, for modules a comparison
    never calls.  Registered here as lazy modules
    (``importlib.util.LazyLoader``), they are the real modules, loaded on
    first attribute access.  Only the command-line process does this: it owns
    its interpreter; a library user's numpy is left as it is.
    """
    import importlib.util

    import numpy

    for attribute in ("f2py", "testing"):
        name = f"numpy.{attribute}"
        if name in sys.modules or attribute in vars(numpy):
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        setattr(numpy, attribute, module)


def _check_given(values: dict[str, Optional[str]], lists: dict[str, Optional[list[str]]]) -> None:
    """An option given an empty value ('' or only commas and spaces) is an error, not an option left out.

    Left alone, ``--pairing ''`` would pair as the spec says, ``--records ''``
    would write into the current folder and ``--html ''`` would be reported as
    the folder '.'.
    """
    for flag, value in values.items():
        if value is not None and not value.strip():
            if not flag.startswith("-"):
                raise InputError(f"the {flag} argument is empty; give a path.")
            raise InputError(f"{flag} was given an empty value; give it a value or leave the option out.")
    for flag, items in lists.items():
        for item in items or []:
            if not _split([item]):
                what = "measure ids" if flag == "--measures" else "variable names"
                raise InputError(f"{flag} was given an empty value ({item!r}); give it {what} or leave it out.")


def _path(value: Optional[str]) -> Optional[Path]:
    return None if value is None else Path(value)


def _family_weights(text: Optional[str]) -> Optional[dict[str, float]]:
    """'tables=2,record=1' -> {'tables': 2.0, 'record': 1.0} (checked)."""
    if not text:
        return None
    from .report.scores import check_weights

    pairs = {}
    for item in text.split(","):
        family, sep, value = item.strip().partition("=")
        if not sep:
            raise InputError(f"--family-weights takes family=weight pairs separated by commas, got {item.strip()!r}.")
        if family.strip() in pairs:
            raise InputError(f"--family-weights gives the family {family.strip()!r} twice; give each family one "
                             "weight.")
        pairs[family.strip()] = value.strip()
    return check_weights(pairs)


@contextmanager
def _warnings_as_lines(pending: list[str]) -> Iterator[None]:
    """infoloss's own warnings (a column that looks like an identifier) as ``infoloss: warning:`` lines, once each,
    after a run that succeeds, after the ``pending`` ones.

    Numerical warnings of numpy, scipy or scikit-learn (an overflow on values
    near ±1.8e308) are not printed with their source lines: a result they
    spoil is not finite and the measure is not computed, with its reason.
    """
    import warnings

    from .limits import InferenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield  # a run that fails says only why (one sentence): its warnings are not printed
    texts = [*pending, *(str(w.message) for w in caught if issubclass(w.category, InferenceWarning))]
    for text in dict.fromkeys(texts):  # the spec inferred twice (here and for the pair) warns twice
        _warn(text)


def _warn(text: str) -> None:
    err.print(f"infoloss: warning: {text}", markup=False, highlight=False, soft_wrap=True)


def _infer_warning(df: Any, pending: list[str] | None = None) -> Any:
    """``infer_spec(df)``, printing its cardinality warnings on stderr, one line each (into ``pending`` instead,
    when given: printed after the run)."""
    import warnings

    from .limits import InferenceWarning
    from .spec_infer import infer_spec

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferenceWarning)
        spec = infer_spec(df)
    for w in caught:
        if issubclass(w.category, InferenceWarning) and pending is not None:
            pending.append(str(w.message))
        elif issubclass(w.category, InferenceWarning):
            _warn(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return spec


def _spec_for(original: Path, spec_path: Optional[Path], nominal, ordinal, continuous, key, weight, id_, pairing, all_,
              target=None, sensitive=None, household=None, pending: list[str] | None = None):
    from .spec import apply_overrides, load_spec

    if spec_path is not None:
        the_spec = load_spec(spec_path)
    else:
        from .io import read_table
        from .io_csv import keep_next_read

        keep_next_read(original)  # compare reads the file again: the same CSV table serves (once)
        the_spec = _infer_warning(read_table(original, None, which="original"), pending)
        _check_columns(the_spec, original, {
            "--nominal": _split(nominal), "--ordinal": _split(ordinal), "--continuous": _split(continuous),
            "--key": _split(key), "--target": _split(target), "--sensitive": _split(sensitive),
            "--weight": [weight] if weight else [], "--id": [id_] if id_ else [],
            "--household": [household] if household else [],
            "--pairing": [pairing] if pairing and pairing not in ("row", "none", "nearest") else [],
        })
    if any([nominal, ordinal, continuous, key, weight, id_, pairing, target, sensitive, household]):
        the_spec = apply_overrides(
            the_spec,
            nominal=_split(nominal),
            ordinal=_split(ordinal),
            continuous=_split(continuous),
            key=_split(key),
            weight=weight,
            id=id_,
            pairing=pairing,
            target=_split(target),
            sensitive=_split(sensitive),
            household=household,
        )
    the_spec.analyse_all = all_
    return the_spec


def _check_columns(inferred: Any, original: Path, names: dict[str, list[str]]) -> None:
    """Each variable named on the command line is a column of the original (whose every column the inferred spec has
    or leaves out, with why) that can be compared."""
    from .spec import _close_match

    columns = set(inferred.variables) | set(inferred.left_out)
    for flag, given in names.items():
        for name in given:
            if name in inferred.left_out:
                raise InputError(f"{flag} {name}: the column {name!r} of the original file {original.name} cannot be "
                                 f"used: {inferred.left_out[name]}.")
            if name not in columns:
                raise InputError(f"{flag} {name}: the original file {original.name} has no column {name!r}"
                                 f"{_close_match(name, columns)}; check the name.")


def _options(option: Optional[list[str]], gdu_weights: Optional[str], ids: list[str]) -> dict[str, dict[str, Any]]:
    from .compare import unknown_measure

    options: dict[str, dict[str, Any]] = {}
    for item in option or []:
        target, sep, value = item.partition("=")
        mid, dot, key = target.partition(".")
        if not sep or not dot or not mid or not key:
            raise InputError(f"--set {item!r} must look like MEASURE.OPTION=VALUE, e.g. lambda.missing_rule=sdcmicro.")
        if mid not in ids:
            unknown = unknown_measure(mid)
            raise InputError(f"--set {item!r} names {mid!r}, {unknown}." if unknown else
                             f"--set {item!r} names the measure {mid!r}, which is not among the measures run.")
        parsed = _set_value(target, value)
        if key in options.get(mid, {}):  # as --ru refuses a choice given twice, rather than keep the last
            raise InputError(f"--set gives {target} twice ({excerpt(options[mid][key], 40)} and "
                             f"{excerpt(parsed, 40)}); give each measure option once.")
        options.setdefault(mid, {})[key] = parsed
    if gdu_weights is not None:
        try:
            u, b = (float(x) for x in gdu_weights.split(","))
        except ValueError:
            raise InputError(f"--gdu-weights {gdu_weights!r} must be two numbers separated by a comma, e.g. 0.5,0.5.") from None
        if "gdu" not in ids:
            raise InputError("--gdu-weights sets the weights of the measure 'gdu', which is not among the measures run; "
                             "add gdu to --measures or leave --gdu-weights out.")
        if "weights" in options.get("gdu", {}):
            raise InputError("--gdu-weights and --set gdu.weights both give the weights of 'gdu'; give them once.")
        options.setdefault("gdu", {})["weights"] = (u, b)
    from .registry import get

    return {mid: get(mid).check_options(opts) for mid, opts in options.items()}


def _set_value(target: str, value: str) -> Any:
    """The value of ``--set TARGET=VALUE`` read as YAML (text that is not YAML as it is)."""
    import yaml

    from .spec import MAX_SPEC_VALUES, DuplicateKey, UniqueKeyLoader, expanded_size

    try:
        parsed = yaml.load(value, Loader=UniqueKeyLoader)  # a SafeLoader that refuses a key given twice
    except DuplicateKey as exc:
        raise InputError(f"--set {target} gives {exc.args[0]!r} twice; give each key once.") from None
    except yaml.YAMLError:
        parsed = value
    if expanded_size(parsed) > MAX_SPEC_VALUES:  # YAML aliases repeated (billion laughs)
        raise InputError(f"--set {target} holds more than {MAX_SPEC_VALUES:,} values once its YAML aliases "
                         "are repeated; give the value itself.")
    return parsed


def _ru_choice(ru: Optional[str], max_risk: Optional[float], max_loss: Optional[float]) -> dict[str, Any]:
    """``--ru risk=ID,utility=ID`` with ``--max-risk``/``--max-loss`` as compare()'s ``risk_utility``."""
    choice: dict[str, Any] = {}
    for item in _split([ru] if ru else None):
        name, sep, value = item.partition("=")
        if not sep or name.strip() not in ("risk", "utility") or not value.strip():
            raise InputError(f"--ru {ru!r} must look like risk=MEASURE,utility=MEASURE, e.g. risk=global_risk,utility=gdu.")
        if name.strip() in choice:
            raise InputError(f"--ru gives {name.strip()!r} twice ({choice[name.strip()]} and {value.strip()}); give "
                             f"one {name.strip()} measure.")
        choice[name.strip()] = value.strip()
    if max_risk is not None:
        choice["max_risk"] = max_risk
    if max_loss is not None:
        choice["max_loss"] = max_loss
    return choice


def _check_records_format(fmt: Optional[str], records_dir: Optional[Path]) -> str:
    """The format of the --records files (csv when not given); a wrong value, or one given without --records
    (it would be ignored), is an error."""
    if fmt is None:
        return "csv"
    if fmt not in ("csv", "parquet"):
        raise InputError(f"--records-format must be csv or parquet, got {fmt!r}.")
    if records_dir is None:
        raise InputError("--records-format sets the format of the per-record files of --records; add --records, or "
                         "drop --records-format.")
    return fmt


def _check_outputs_not_records(json_out: Optional[str], html_out: Optional[str], records_dir: Path,
                               protected: list[Path], names: Optional[list[str]], fmt: str) -> None:
    """Refuse --json or --html naming a per-record file of --records: the report would replace it."""
    from ._files import _same_file
    from .compare import _scenario_names
    from .risk.records import planned_paths

    planned = planned_paths(records_dir, _scenario_names([str(p) for p in protected], names), fmt)
    for flag, out in (("--json", json_out), ("--html", html_out)):
        if out and out != "-" and any(_same_file(Path(out), p) for p in planned):
            raise InputError(f"{flag} {out} is one of the per-record files that --records writes; choose another "
                             "output path.")


def _check_records(folder: Path) -> None:
    from ._files import missing_folder, path_kind, resolved

    kind = path_kind(folder, f"the records folder {folder}")
    if kind not in ("missing", "folder"):
        what = "a file" if kind == "file" else "not a folder (a device, pipe or socket)"
        raise InputError(f"--records {folder} is {what}; give a folder to write the per-record files into.")
    if kind == "missing" and path_kind(resolved(folder).parent, f"the folder of --records {folder}") != "folder":
        raise InputError(f"cannot create the records folder {folder}: {missing_folder(folder)}")


def _check_output(text: str, flag: str, inputs: list[Path]) -> None:
    """The output path ``text`` of ``flag`` names a file that can be written and is none of the inputs."""
    from ._files import _same_file, check_writable, is_special, missing_folder, refuse_folder_name, resolved

    refuse_folder_name(text, flag)
    path = Path(text)
    target = resolved(path)
    if any(_same_file(target, Path(p)) for p in inputs):
        raise InputError(f"the output file {path} is one of the input files; choose another output path.")
    if not target.parent.is_dir():
        raise InputError(f"cannot write {path}: {missing_folder(path)}")
    try:
        folder = target.is_dir()
    except OSError as exc:  # a name too long for the file system
        raise InputError(f"cannot write {path}: {exc.strerror or exc}.") from None
    if folder:
        raise InputError(f"cannot write {path}: it is a folder; give a file name.")
    if not is_special(path):  # a pipe or a device is written into, not replaced (_files.write_atomic)
        check_writable(path)


def _check_outputs(json_out: Optional[str], html_out: Optional[str], inputs: list[Path],
                   records_dir: Optional[Path] = None) -> None:
    """Before any work: each output is writable, none is an input, and --json and --html differ.  An output in
    the --records folder that the run will create is checked there once it exists (as the folder is now)."""
    from ._files import refuse_folder_name, resolved

    if json_out == "-" and html_out == "-":
        raise InputError("--json and --html both name standard output ('-'); give one of them a file.")
    given = [(flag, str(t)) for flag, t in (("--json", json_out), ("--html", html_out)) if t not in (None, "-")]
    targets = [Path(t) for _, t in given]
    for (flag, text), target in zip(given, targets):
        refuse_folder_name(text, flag)  # also for an output in a --records folder not created yet
        if records_dir is not None and resolved(target).parent == resolved(records_dir) \
                and not resolved(records_dir).exists():
            continue
        _check_output(text, flag, inputs)
    if len(targets) == 2 and resolved(targets[0]) == resolved(targets[1]):
        raise InputError(f"--json and --html both name {targets[0]}; give each output its own file.")


def _write_outputs(report, outputs: list, inputs: list[Path]) -> None:
    """Write each (path, text) atomically ('-': standard output); a later failure removes earlier new files."""
    from ._files import write_atomic

    created: list[Path] = []
    try:
        for path, text in outputs:
            if path is None:
                continue
            if str(path) == "-":
                sys.stdout.write(text)
                continue
            existed = Path(path).exists()
            write_atomic(path, text, protect=(*report.inputs, *inputs))
            if not existed:
                created.append(Path(path))
    except BaseException:
        for path in created:
            path.unlink(missing_ok=True)
        raise


def _shown(text: str) -> str:
    """``text`` for the terminal: control characters (a terminal's escape sequences, bells, bidirectional
    overrides) shown as their code, never acted on."""
    return "".join(ch if ch.isprintable() or ch == " " else f"\\x{ord(ch):02x}" if ord(ch) < 256
                   else f"\\u{ord(ch):04x}" for ch in text)


def _print_summary(report, safe: dict | None = None) -> None:
    """The terminal table of the values; with --safe, those of the safe JSON (``safe``: withheld ones shown as
    such, the reasons as it words them), so that the terminal shows nothing the shared files withhold."""
    from rich.table import Table

    from .registry import get

    table = Table(title=f"Information loss against {escape(_shown(report.original.get('path') or 'the original'))}",
                  show_lines=False)
    table.add_column("measure")
    table.add_column("better", style="dim")
    for s in report.scenarios:
        table.add_column(escape(_shown(s.name)), justify="right")
    scenarios = safe["scenarios"] if safe is not None else [
        {"measures": {mid: {"value": r.value} for mid, r in s.measures.items()}, "not_computed": s.not_computed}
        for s in report.scenarios]
    for mid in report.measure_ids:
        info = get(mid)
        cells = []
        for s in scenarios:
            r = s["measures"].get(mid)
            value = None if r is None else r.get("value")
            cells.append("[dim]n/c[/dim]" if r is None else "[dim]withheld[/dim]" if value is None else f"{value:.4g}")
        if all(c == "[dim]n/c[/dim]" for c in cells):
            continue
        table.add_row(mid, info.better, *cells)
    out.print(table)
    for name, s in zip((s.name for s in report.scenarios), scenarios):
        by_reason: dict[str, list[str]] = {}
        for mid, reason in s["not_computed"].items():
            by_reason.setdefault(reason, []).append(mid)  # one line for the measures that share a reason
        for reason, mids in by_reason.items():
            out.print(f"[dim]{escape(_shown(name))}: {', '.join(mids)} not computed: {escape(_shown(reason))}[/dim]",
                      highlight=False)
    for line in _choice_lines(report, None if safe is None else safe.get("risk_utility")):
        out.print(line, markup=False, highlight=False)


def _choice_lines(report, block: dict | None = None) -> list[str]:
    """The risk-utility decision asked for with --max-risk / --max-loss: the choice and why, or why there is none
    (from ``block``, the safe JSON's risk_utility, when given)."""
    asked = {k: v for k, v in report.risk_utility_options.items() if k in ("max_risk", "max_loss") and v is not None}
    if not asked:
        return []
    block = block if block is not None else report.risk_utility()
    if not block.get("available"):
        return [f"risk-utility choice: none, {_shown(block.get('reason', 'the map is not available'))}"]
    lines = []
    for rule in asked:
        decision = block.get("decisions", {}).get(rule, {})
        choice = decision.get("choice")
        measures = f"risk {block.get('risk_measure')}, utility {block.get('utility_measure')}"  # a fallback, if so
        head = (f"risk-utility choice (--{rule.replace('_', '-')} {asked[rule]:g}; {_shown(measures)}): "
                f"{_shown(str(choice)) if choice else 'none'}")
        lines.append(f"{head}; {_shown(decision.get('reason', ''))}".rstrip("; "))
    return lines


#: the original and first protected file together of at least this many bytes are read into small pages
#: (``_memory.read_in_small_pages``); 200,000 x 16 CSV files (58 MB) gained nothing from it
SMALL_PAGES_MIN_BYTES = 256 * 2**20
#: the original and first protected CSV files together of at least this many bytes are parsed ahead each by
#: Arrow's serial reader on a thread of its own (``io_csv.read_ahead``); at 200,000 x 16 (58 MB) the two
#: parse threads slowed the imports beside them by more than they gained (47 ms, 25 alternating pairs)
SERIAL_PARSE_MIN_BYTES = 256 * 2**20


def _file_bytes(original: Path, protected: list[Path]) -> int:
    """The size of the files on disk (0 for one that cannot be examined: its read says why)."""
    total = 0
    for path in (original, *protected):
        try:
            total += os.stat(path).st_size
        except (OSError, ValueError):
            pass
    return total


def _collecting(progress: Callable[[int, int, str], None]) -> Callable[[int, int, str], None]:
    """``progress``, the first step of which (the first measure: the files are read and encoded, the measures'
    modules imported) resumes the garbage collector that :func:`main` paused (``_memory.resume_collection``)."""
    from ._memory import resume_collection

    def step(done: int, total: int, label: str) -> None:
        resume_collection()
        progress(done, total, label)

    return step


class _ProgressBar:
    """A rich progress bar on standard error, shown only once a run has taken over a second."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.bar = None
        self.task = None

    def __enter__(self) -> "_ProgressBar":
        return self

    def __call__(self, done: int, total: int, label: str) -> None:
        if self.bar is None:
            if time.perf_counter() - self.start < 1.0 or not err.is_terminal:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=err, transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(escape(label), total=total)
        self.bar.update(self.task, completed=done, description=escape(label))

    def label(self, text: str) -> None:
        """Say what the run does after the last counted step."""
        if self.bar is not None:
            self.bar.update(self.task, description=escape(text))

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


@app.command("spec")
def spec_command(
    original: Path = typer.Argument(..., help="The original microdata file."),
    output_text: Optional[str] = typer.Option(None, "-o", "--output", metavar="<path>", help="Write the spec here instead of standard output ('-': standard output)."),
) -> None:
    """Infer an editable variable spec from ORIGINAL."""
    from .io import read_table
    from ._files import write_atomic

    try:
        _check_given({"--output": output_text}, {})
        output = _spec_output(output_text, original)
        df = read_table(original, None, which="original")
        if len(df) == 0:  # as compare refuses it: every column would be described from no value
            raise InputError(f"the original file {original} has no records; check that it is the right file and "
                             "not just a header.")
        text = _spec_text(original, df)
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomic(output, text, protect=(original,))
            err.print(f"wrote {_shown(str(output))}", markup=False, highlight=False)
    except InputError as exc:
        _fail(str(exc))


def _spec_output(output_text: Optional[str], original: Path) -> Optional[Path]:
    """The spec's output path, checked before any work; None for standard output (no -o, or '-')."""
    from .io import ENDINGS

    if output_text is None or output_text == "-":
        return None
    output = Path(output_text)
    _check_output(output_text, "-o", [original])
    if output.suffix.lower() in ENDINGS and output.suffix.lower() != ".txt":
        raise InputError(f"-o {output} has the ending of a data file ({output.suffix}); a spec is YAML: give it "
                         "the ending .yaml (a data file is never replaced by a spec).")
    return output


def _spec_text(original: Path, df: Any) -> str:
    """The inferred spec of ``df`` as commented YAML, with the starter analyses block."""
    from .analyses.starter import starter_block
    from .spec import ROLES, SCALES

    spec = _infer_warning(df)
    header = (
        f"Variable spec inferred by infoloss {__version__} from {original.name} ({counted(len(df), 'record')}).\n"
        f"Check every line: scale is {' | '.join(SCALES)}; role is {' | '.join(ROLES)}.\nFormat: see docs/spec.md."
    )
    return spec.to_yaml(header) + starter_block(spec, df)  # the analyses block is commented out: the user edits it


@app.command("measures")
def measures_command(
    json_: bool = typer.Option(False, "--json", help="Print the list as JSON."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the list as a Markdown table (docs/measures.md)."),
) -> None:
    """List every measure: id, family, what it measures, range, better, needs pairing, options.

    On a terminal a table; piped, one tab-separated line per measure (id, family id, description, range, better,
    "pairing" or "-", options with their defaults)."""
    import json

    from rich.table import Table

    from .registry import FAMILIES, markdown_table, registered

    infos = list(registered())
    if json_:
        sys.stdout.write(json.dumps([m.to_dict() for m in infos], indent=2) + "\n")
        return
    if markdown:
        sys.stdout.write(markdown_table())
        return
    if not sys.stdout.isatty():  # piped: one line per measure, its id first, so that grep and cut work
        for m in infos:
            options = "; ".join(f"{o.name}={_default_text(o.default)}" for o in m.options)
            sys.stdout.write("\t".join([m.id, m.family, m.description, m.range_text, m.better_text,
                                         "pairing" if m.needs_pairing else "-", options]) + "\n")
        return
    table = Table(title="infoloss measures")
    for col in ("id", "family", "what it measures", "range", "better", "needs pairing", "options (default)"):
        table.add_column(col, overflow="fold")
    for m in infos:
        options = "\n".join(f"{o.name}={_default_text(o.default)}: {o.shown}" for o in m.options)
        table.add_row(m.id, FAMILIES[m.family], m.description, m.range_text, m.better_text,
                      "yes" if m.needs_pairing else "no", options)
    out.print(table)


def _default_text(value: Any) -> str:
    from .registry import _fmt_default

    return _fmt_default(value)


@app.command("example")
def example_command(directory_text: str = typer.Argument(..., metavar="directory", help="Folder to write the example files into.")) -> None:
    """Write the bundled example pair (original, two protected versions) and its spec into DIRECTORY."""
    from .synth import write_example

    directory = Path(directory_text)
    try:
        _check_given({"directory": directory_text}, {})
        directory.mkdir(parents=True, exist_ok=True)
        paths = write_example(directory)
    except InputError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write into {directory}: {exc.strerror or exc}.")
    for p in paths:
        out.print(_shown(str(p)), markup=False, highlight=False)


@app.command("hierarchy")
def hierarchy_command(
    output_text: str = typer.Argument(..., metavar="output", help="The hierarchy CSV to write (ARX format: ';'-separated, leaf first)."),
    intervals: Optional[str] = typer.Option(None, "--intervals", help="Interval breaks, e.g. 0,20,40,60,80,120 (left-closed)."),
    nesting: Optional[str] = typer.Option(None, "--nesting", help="With --intervals: intervals joined per further level, e.g. 2,2."),
    mask: Optional[str] = typer.Option(None, "--mask", help="Mask codes one character per level: right or left."),
    categories: Optional[str] = typer.Option(None, "--categories", help="An ordered list of categories, comma-separated."),
    group: Optional[str] = typer.Option(None, "--group", help="With --categories: adjacent categories joined per level, e.g. 2,3."),
    data: Optional[Path] = typer.Option(None, "--data", help="Take the values (leaves) from this data file..."),
    column: Optional[str] = typer.Option(None, "--column", help="...from this column of it."),
    values: Optional[str] = typer.Option(None, "--values", help="The values (leaves): a,b,c or a whole-number range LOW..HIGH."),
) -> None:
    """Write an ARX-format hierarchy CSV from intervals, masking rules or an ordered list of categories."""
    from ._files import write_atomic
    from .hierarchy import hierarchy_rows, to_arx_csv

    output = Path(output_text)
    try:
        _check_given({"output": output_text}, {})
        leaves = _hierarchy_values(data, column, values)
        listed = [c.strip() for c in categories.split(",") if c.strip()] if categories is not None else None
        if listed is None and categories is None and leaves is not None and not (intervals or mask):
            listed = leaves  # --categories taken from the data or --values
        rows = hierarchy_rows(intervals=intervals, nesting=nesting, mask=mask, categories=listed, group=group,
                              values=leaves)
        write_atomic(output_text, to_arx_csv(rows), protect=tuple(p for p in (data,) if p is not None))
    except InputError as exc:
        _fail(str(exc))
    err.print(f"wrote {_shown(str(output))} ({counted(len(rows), 'value')}, {counted(len(rows[0]) - 1, 'level')})",
              markup=False, highlight=False)


def _hierarchy_values(data: Optional[Path], column: Optional[str], values: Optional[str]) -> Optional[list[str]]:
    from .hierarchy import parse_values

    if data is not None and values is not None:
        raise InputError("give the values either with --data and --column or with --values, not both.")
    if values is not None:
        return parse_values(values)
    if data is None:
        if column is not None:
            raise InputError("--column needs --data, the file to take the values from.")
        return None
    if column is None:
        raise InputError("--data needs --column, the column whose values are the leaves.")
    from .io import read_table
    from .spec import normalise_label

    df = read_table(data, None, which="data")
    if column not in df.columns:
        raise InputError(f"the data file {data} has no column {column!r}; its columns are "
                         f"{shortened([str(c) for c in df.columns], 'column')}.")
    distinct = df[column].dropna().unique()
    labels = list(dict.fromkeys(normalise_label(v) for v in distinct))
    try:
        return sorted(labels, key=float)
    except ValueError:
        return sorted(labels)


class _Terminated(BaseException):
    """SIGTERM (``kill``, ``timeout``, a batch scheduler's time limit), raised in the main thread like Ctrl-C's
    KeyboardInterrupt, so that the same cleanup runs: temporary and newly created output files are removed."""


def _on_sigterm(signum: int, frame: Any) -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not interrupt the cleanup
    raise _Terminated()


def _on_sigint(signum: int, frame: Any) -> None:
    import signal

    # as for SIGTERM: a second Ctrl-C (a burst of them) interrupted the cleanup, which left staged per-record
    # files behind or printed a traceback (found by the hostile-input audit)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _handle_sigterm() -> None:
    import signal

    try:
        signal.signal(signal.SIGTERM, _on_sigterm)
        signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread (main() called from a thread): left to the default
        pass


def main() -> None:
    """Console-script entry point: the command, then a quick exit with its status (:func:`_exit_now`).

    SIGTERM ends it like Ctrl-C (status 130) does, with the same cleanup, and status 143 (128 + 15).  After the
    first of either, further ones are ignored, so that the cleanup (temporary and staged files) finishes.
    Python's garbage collector waits while the command starts (``_memory.pause_collection``): ``compare``
    resumes it once its measures start, every other command at once (``_main``), and a run that ends first
    (an error, or ``main`` called in a process that goes on) switches it back on unfrozen."""
    from ._memory import pause_collection, resume_collection

    pause_collection()
    try:
        _run_app()
    finally:
        resume_collection(freeze=False)


def _run_app() -> None:
    """:func:`main`'s command and exit."""
    _quiet_idle_blas_threads()
    _handle_sigterm()
    try:
        status: object = app(standalone_mode=False, prog_name="infoloss")  # None when the command returns, the code of typer.Exit
    except InputError as exc:  # raised outside a command's own handler
        err.print(f"infoloss: error: {exc}", markup=False, highlight=False, soft_wrap=True)
        status = 2
    except _ClickException as exc:  # a usage error: unknown option, missing argument, value out of range
        status = _usage_error(exc)
    except typer.Abort:
        err.print("Aborted.", highlight=False)
        status = 1
    except SystemExit as exc:
        status = exc.code
    except _Terminated:
        status = 143
    except PermissionError as exc:  # a file or folder the user may not read or enter, met where no check was made
        where = f" {exc.filename}" if exc.filename else ""
        err.print(f"infoloss: error: permission denied on{where or ' a file'}; check its permissions and those of "
                  "its folders.", markup=False, highlight=False, soft_wrap=True)
        status = 2
    except Exception as exc:  # noqa: BLE001 (out of memory is a limit of the machine, not a bug: say so)
        if not _out_of_memory(exc):
            raise
        err.print("infoloss: error: the machine ran out of memory; compare fewer variables (a spec that lists only "
                  "those to analyse), or run on a machine with more memory.", markup=False, highlight=False,
                  soft_wrap=True)
        status = 2
    _exit_now(status)


@contextmanager
def _reads_dropped() -> Iterator[None]:
    """Drop what compare's reads left once compare is over (or failed): the CSV tables read ahead that no read
    took (Arrow's threads given back) and the original's table that :func:`_spec_for` kept for compare's read
    (each is the file's size in memory)."""
    try:
        yield
    finally:
        from .io_csv import forget_kept_read, forget_read_ahead

        forget_read_ahead()
        forget_kept_read()


def _quiet_idle_blas_threads() -> None:
    """Let OpenBLAS's idle worker threads sleep after about a millisecond, not a tenth of a second (issue 14).

    An OpenBLAS worker thread waits for work by spinning for 2**28 CPU cycles
    (0.1 s at 2.5 GHz) before it sleeps: once when the library is loaded
    (numpy's OpenBLAS at ``import numpy``, scipy's at ``import scipy.linalg``)
    and again after every call it shares.  On two cores that spin takes the
    core the CSV reading, the imports and the measures running side by side
    would use: 0.13-0.2 CPU-s of a 1 s comparison of 200,000 records
    (``/usr/bin/time``).  ``OPENBLAS_THREAD_TIMEOUT=20`` (2**20 cycles) keeps a
    worker awake between back-to-back calls and lets it sleep soon after.  It
    is read when OpenBLAS loads, so it is set only in a process that has not
    loaded numpy, and never over the user's own setting; it changes no result.
    Only the command-line process does this: it owns its interpreter.
    """
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "20")


def _out_of_memory(exc: BaseException) -> bool:
    """A MemoryError, or Arrow's (pyarrow.ArrowMemoryError, raised when its pool cannot allocate)."""
    return isinstance(exc, MemoryError) or type(exc).__name__ == "ArrowMemoryError"


try:  # typer 0.20 and later bring their own copy of click
    from typer._click.exceptions import ClickException as _ClickException
except ImportError:  # pragma: no cover (older typer: click itself)
    from click.exceptions import ClickException as _ClickException


def _usage_error(exc: Any) -> int:
    """Print a usage error as one line, ``infoloss: error: ...``, like every other error; its exit code (2).

    click would print the usage, a hint and the message in a box; the
    message and where to look are what a user needs.  ``infoloss`` without
    a command (``no_args_is_help``) asks for the help: it is printed, exit 0.
    """
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":
        # the error asked for the help when it was made: typer's rich help printed itself then (its text is '');
        # asking again printed it twice
        text = exc.format_message()
        if text.strip():
            out.print(text, markup=False, highlight=False)
        return 0
    message = _one_sentence(exc.format_message().strip().rstrip("."))
    where = f"; see '{ctx.command_path} --help'" if ctx is not None else ""
    err.print(f"infoloss: error: {message}{where}.", markup=False, highlight=False, soft_wrap=True)
    return int(getattr(exc, "exit_code", 2) or 2)


def _one_sentence(message: str) -> str:
    """click's "No such command 'x'. Did you mean 'y'?" as one sentence: "No such command 'x' (did you mean 'y'?)"."""
    return re.sub(r"\. Did you mean (.+)\?$", r" (did you mean \1?)", message)


def _exit_now(status: object) -> None:
    """End the process with ``status`` as ``sys.exit`` would, without the interpreter's teardown.

    The command has finished and its outputs are written and closed; freeing
    every module and object one by one then takes 0.1-0.3 s, 5-10 % of a
    200,000-record comparison.  The standard streams are flushed and the
    ``atexit`` functions run (temporary folders, logging), as on a normal
    exit; an exception (a bug) never comes here and ends the process normally.
    """
    if status is None:
        status = 0
    elif not isinstance(status, int):  # sys.exit("message") prints the message and exits 1
        print(status, file=sys.stderr)
        status = 1
    import atexit

    atexit._run_exitfuncs()  # noqa: SLF001 (what a normal exit runs first)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken (a closed pipe): nothing more can be written
            pass
    os._exit(status)


if __name__ == "__main__":
    main()
