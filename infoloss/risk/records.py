"""Per-record risk values as a table, and written to files on request.

Per-record risks identify the riskiest records, so they never go into the
JSON result or the report: ``compare(..., records_dir=DIR)`` (command line
``--records DIR``) writes one file per data file instead:
``records_original.csv`` and ``records_<scenario>.csv`` (or ``.parquet``).

Columns (each present when it can be computed): ``row`` (1-based record
number in the file), ``fk``, ``Fk``, ``individual_risk``,
``household_risk``, ``suda_score``, ``dis_score``, ``msu`` (number of
minimal sample uniques), ``l_<var>_distinct|entropy|recursive`` and
``t_<var>`` per sensitive variable, and for paired protected files
``interval_disclosure`` (1 = at risk) and ``record_linkage`` (1 = correctly
linked, 1/t for a tie among t).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._files import write_atomic
from ..errors import InputError, NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from .files import file_l_diversity, file_risk, file_suda, file_t_closeness, sensitive_names

__all__ = ["record_table", "write_records", "frequency_options", "FORMATS"]

FORMATS = ("csv", "parquet")


def record_table(pair: EncodedPair, which: str = PROTECTED, options: dict[str, dict[str, Any]] | None = None
                 ) -> pd.DataFrame:
    """The per-record risk values of one file of the pair (``"orig"`` or ``"prot"``) as a DataFrame.

    ``options`` are the measures' options as given to ``compare`` (``alpha``
    and ``missing_keys`` of the frequency measures, see
    :func:`frequency_options`; ``dis_fraction`` and ``uniques`` of ``suda_dis``,
    ``c`` of ``l_diversity``, ``k`` of ``interval_disclosure``, ``ties`` of
    ``record_linkage``); the measures' defaults otherwise.
    """
    options = options or {}
    out: dict[str, np.ndarray] = {"row": np.arange(1, pair.n(which) + 1)}
    for part in (_frequency_columns, _suda_columns, _diversity_columns, _distance_columns):
        try:
            out.update(part(pair, which, options))
        except NotComputed:
            continue
    return pd.DataFrame(out)


#: the measures built on fk/Fk, in the order their options are looked up for the per-record values
FREQUENCY_MEASURES = ("global_risk", "expected_reidentifications", "household_risk", "k_anonymity_violations",
                      "sample_uniques")


def frequency_options(options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``alpha`` and ``missing_keys`` of the per-record fk, Fk and risks.

    Each is taken from the first of :data:`FREQUENCY_MEASURES` that sets it
    (``global_risk`` first), so that the file uses the convention of the
    measures that were run with it; the default otherwise.

    >>> frequency_options({"sample_uniques": {"missing_keys": "sdcmicro"}, "global_risk": {"alpha": 0.5}})
    {'alpha': 0.5, 'missing_keys': 'sdcmicro'}
    """
    out: dict[str, Any] = {"alpha": 1.0, "missing_keys": "wildcard"}
    for name in out:
        given = [options[m][name] for m in FREQUENCY_MEASURES if name in options.get(m, {})]
        if given:
            out[name] = given[0]
    return out


def _frequency_columns(pair: EncodedPair, which: str, options: dict) -> dict[str, np.ndarray]:
    risk = file_risk(pair, which, **frequency_options(options))
    cols = {"fk": risk.fk, "Fk": risk.Fk}
    if risk.risk is not None:
        cols["individual_risk"] = risk.risk
    if risk.household is not None:
        cols["household_risk"] = risk.household
    return cols


def _suda_columns(pair: EncodedPair, which: str, options: dict) -> dict[str, np.ndarray]:
    opts = options.get("suda_dis", {})
    res = file_suda(pair, which, opts.get("dis_fraction", 0.01), opts.get("uniques", "sdcmicro"))
    return {"suda_score": res.score, "dis_score": res.dis, "msu": res.msu}


def _diversity_columns(pair: EncodedPair, which: str, options: dict) -> dict[str, np.ndarray]:
    cols = {}
    c = options.get("l_diversity", {}).get("c", 2.0)
    for name in sensitive_names(pair):
        for kind, values in file_l_diversity(pair, name, which, c).items():
            cols[f"l_{name}_{kind}"] = values
        cols[f"t_{name}"] = file_t_closeness(pair, name, which)
    return cols


def _distance_columns(pair: EncodedPair, which: str, options: dict) -> dict[str, np.ndarray]:
    if which != PROTECTED or not pair.paired:
        return {}
    from ..measures.risk_distance import _complete, _matrices
    from .distance import interval_disclosure, linkage, linkage_candidates

    names, x, xm = _matrices(pair)
    cols = {"interval_disclosure": interval_disclosure(x, xm, options.get("interval_disclosure", {}).get("k", 0.05))[
        "at_risk"].astype(np.int8)}
    ok = _complete(x, xm, 1)
    zo, zp, rows = linkage_candidates(x, xm, ok)
    linked = np.full(x.shape[0], np.nan)
    ties = options.get("record_linkage", {}).get("ties", "share")
    linked[ok] = linkage(zo, zp, ties=ties, sample=rows)["linked"]
    cols["record_linkage"] = linked
    return cols


#: characters of a scenario name kept in a file name (a file name holds 255 bytes, the temporary one a few more)
_NAME_CHARS = 100


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:_NAME_CHARS].strip("._") or "scenario"


def write_records(
    pair: EncodedPair,
    directory: str | Path,
    scenario: str,
    *,
    fmt: str = "csv",
    original: bool = True,
    options: dict[str, dict[str, Any]] | None = None,
    protect: Sequence[str | Path] = (),
    taken: set[str] | None = None,
    staged: list[tuple[Path, Path]] | None = None,
) -> list[Path]:
    """Write the per-record risk values of the protected file (and of the original when ``original``).

    Returns the paths written.  ``taken`` collects file names already used
    in this run, so that two scenarios never share a file.  With ``staged``
    each file is written under a hidden name beside its own and the pair
    (hidden, final) appended: the caller renames them all once the whole
    run has succeeded (:func:`commit_staged`) or removes them.
    """
    if fmt not in FORMATS:
        raise InputError(f"the records format must be csv or parquet, got {fmt!r}.")
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the records folder {directory}: {exc.strerror or exc}.") from None
    taken = set() if taken is None else taken
    written = []
    jobs = ([(ORIGINAL, "original")] if original else []) + [(PROTECTED, scenario)]
    for which, label in jobs:
        stem = "records_original" if which == ORIGINAL else f"records_{_safe_name(label)}"
        while stem in taken:
            stem += "_2"
        taken.add(stem)
        path = directory / f"{stem}.{fmt}"
        _check_not_input(path, protect)
        target = path if staged is None else directory / f".{stem}.{fmt}.staged"
        table = record_table(pair, which, options)
        try:
            if fmt == "csv":
                write_atomic(target, table.to_csv(index=False, na_rep=""), protect=tuple(protect))
            else:
                _write_parquet(table, target, protect)
        except InputError as exc:  # named by the file it becomes, not the hidden staged one
            raise InputError(str(exc).replace(str(target), str(path))) from None
        if staged is not None:
            staged.append((target, path))
        written.append(path)
    return written


def planned_paths(directory: str | Path, names: Sequence[str], fmt: str = "csv") -> list[Path]:
    """The files :func:`write_records` writes for scenarios ``names`` (the original's with the first)."""
    taken: set[str] = set()
    out = []
    for stem in ["records_original"] + [f"records_{_safe_name(name)}" for name in names]:
        while stem in taken:
            stem += "_2"
        taken.add(stem)
        out.append(Path(directory) / f"{stem}.{fmt}")
    return out


def check_planned(directory: str | Path, names: Sequence[str], fmt: str, inputs: Sequence[str | Path]) -> None:
    """InputError before any work when a per-record file would replace an input file, or the folder cannot be
    written into (or created)."""
    for path in planned_paths(directory, names, fmt):
        _check_not_input(path, inputs)
    _check_folder_writable(Path(directory))


def _check_folder_writable(directory: Path) -> None:
    """InputError (one sentence naming the folder) unless a file can be created in ``directory``, or in the
    nearest existing folder above it (where it will be created)."""
    import os
    import tempfile

    existing = directory
    while not existing.is_dir() and existing != existing.parent:
        existing = existing.parent
    try:
        fd, probe = tempfile.mkstemp(prefix=".infoloss-probe.", dir=existing)
    except OSError as exc:
        made = "" if existing == directory else f" (it would be created in {existing})"
        raise InputError(f"cannot write into the records folder {directory}{made}: {exc.strerror or exc}; give "
                         "--records a folder you can write to.") from None
    os.close(fd)
    os.unlink(probe)


def _check_not_input(path: Path, inputs: Sequence[str | Path]) -> None:
    from .._files import _same_file

    if any(_same_file(path, Path(p)) for p in inputs):
        raise InputError(f"the per-record file {path} would replace an input file of the comparison; give --records "
                         "another folder, or rename that input.")


def commit_staged(staged: list[tuple[Path, Path]], ok: bool) -> None:
    """Rename the staged per-record files to their names (``ok``: the run succeeded), or remove them."""
    import os

    for hidden, final in staged:
        if ok:
            os.replace(hidden, final)
        else:
            hidden.unlink(missing_ok=True)


def _write_parquet(table: pd.DataFrame, path: Path, protect: Sequence[str | Path]) -> None:
    import io

    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    write_atomic(path, buffer.getvalue(), protect=tuple(protect))
