"""Whether two infoloss JSON results hold the same numbers: every value compared, the timings left out.

    python bench/same_results.py A.json B.json                  # the same to the bit?
    python bench/same_results.py A.json B.json --rtol 1e-12     # or within a relative tolerance

A speed change should leave the results alone; this is the check that it
does, on the benchmark's output (``bench/ab.py`` runs it on every pair of
runs).  Entries named ``seconds`` are timings and are skipped; everything
else (values, details, tables, statistics, aggregates, the order of the keys
aside) must match: numbers exactly, or within ``--rtol`` relative (``--atol``
absolute) when given, NaN equal to NaN.  The first differences are printed
with their path in the JSON; the exit status is 1 when there are any.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

SKIPPED = frozenset({"seconds"})


def differences(a: Any, b: Any, rtol: float = 0.0, atol: float = 0.0, path: str = "") -> list[str]:
    """The paths where ``a`` and ``b`` (parsed JSON) differ, each with both values.

    >>> differences({"x": 1.0, "seconds": 3}, {"x": 1.0, "seconds": 4})
    []
    >>> differences({"x": [1.0, 2.0]}, {"x": [1.0, 2.5]})
    ['x[1]: 2.0 != 2.5']
    >>> differences({"x": 1.0}, {"x": 1.0 + 1e-15}, rtol=1e-12)
    []
    """
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key in SKIPPED:
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append(f"{where}: only in {'the second' if key not in a else 'the first'}")
            else:
                out += differences(a[key], b[key], rtol, atol, where)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)} items"]
        return [d for i, (u, v) in enumerate(zip(a, b)) for d in differences(u, v, rtol, atol, f"{path}[{i}]")]
    if _number(a) and _number(b):
        if a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=rtol, abs_tol=atol):
            return []
        return [f"{path}: {a!r} != {b!r}"]
    return [] if a == b and type(a) is type(b) else [f"{path}: {a!r} != {b!r}"]


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--rtol", type=float, default=0.0, help="relative tolerance (default 0: to the bit)")
    parser.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default 0)")
    parser.add_argument("--show", type=int, default=20, help="differences printed at most")
    args = parser.parse_args(argv)
    found = differences(json.loads(args.first.read_text()), json.loads(args.second.read_text()), args.rtol, args.atol)
    tolerance = "to the bit" if args.rtol == 0 and args.atol == 0 else f"within rtol {args.rtol:g}, atol {args.atol:g}"
    print(f"{len(found)} difference(s) {tolerance} between {args.first.name} and {args.second.name}")
    for line in found[: args.show]:
        print(f"  {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
