"""Floating-point safety for values near the ends of the float64 range (±1.8e308).

Sums of squares, variances and covariances of values above about 1e154
overflow, and differences of values of opposite signs near 1.8e308 overflow
too.  The measures avoid this with *exact* scaling: a variable is multiplied
by a power of two, ``2**-e``, chosen so that its largest absolute value lies
in [0.5, 1).  Multiplying by a power of two only changes the exponent of a
float, so every sum, product and quotient of scaled values is exactly the
scaled result of the same operation on the unscaled values (as long as
nothing overflows or underflows): the measures give bit-for-bit the same
results on ordinary data, and finite results on extreme data.

Scale-invariant statistics (correlations, standardised values, IL1s, test
statistics) are computed on the scaled values and need no scaling back.  A
statistic that is not scale-invariant (a variance, a mean square error) is
scaled back with :func:`unscale`; if the true value is beyond the float64
range it becomes infinite, and the measure raises ``NotComputed`` with
:func:`too_large` as its reason.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from . import errors

__all__ = ["exponent", "safe_exponent", "column_exponents", "scaled", "unscale", "too_large", "FLOAT_MAX",
           "SAFE_EXPONENT", "MAX_STANDARDISED", "SINGULAR_TOLERANCE", "singular_reason"]

FLOAT_MAX = float(np.finfo(np.float64).max)
#: values with |x| in [2**-400, 2**400] (about 1e-120 to 1e120) can be squared and summed a billion
#: times without overflow or underflow; :func:`safe_exponent` scales only outside that band
SAFE_EXPONENT = 400
#: standardised values (in standard deviations) beyond this cannot be squared and summed safely: distance-based
#: measures give a reason instead
MAX_STANDARDISED = 1e150


def exponent(*arrays: np.ndarray) -> int:
    """The exponent ``e`` with ``max |x|`` in ``[2**(e-1), 2**e)`` over the arrays' finite values; 0 if none.

    NaN is ignored; no temporary array is made.

    Examples
    --------
    >>> exponent(np.array([0.3, -3.0, np.nan])), exponent(np.array([1e308])), exponent(np.array([np.nan]))
    (2, 1024, 0)
    """
    largest = 0.0
    for x in arrays:
        if x is None or x.size == 0:
            continue
        lo, hi = float(np.fmin.reduce(x, axis=None)), float(np.fmax.reduce(x, axis=None))
        for v in (lo, hi):
            if math.isfinite(v):
                largest = max(largest, abs(v))
    if largest == 0.0:
        return 0
    return math.frexp(largest)[1]


def safe_exponent(*arrays: np.ndarray) -> int:
    """:func:`exponent`, or 0 when the values need no scaling (largest |x| between 2**-400 and 2**400).

    Scaling is exact, so skipping it where it is not needed changes no
    result; it saves a copy of the data.

    Examples
    --------
    >>> safe_exponent(np.array([3.0, 1e100])), safe_exponent(np.array([1e200]))
    (0, 665)
    """
    e = exponent(*arrays)
    return e if abs(e) > SAFE_EXPONENT else 0


def scaled(x: np.ndarray, e: int | np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``x * 2**-e``, exactly (``e`` may be an array broadcast against ``x``).

    Float64 values are multiplied by the float ``2**-e`` when it is one (``e``
    from -1023 to 1074, down to the smallest subnormal): a product is rounded
    once from the exact one, as ``numpy.ldexp`` rounds ``x * 2**-e``, so the
    two agree to the bit (the tests check it, subnormal results included).
    numpy's ``ldexp`` is a vector loop only with AVX-512, and about 6 times
    slower than a product without it; other ``e`` and types go to ``ldexp``.

    Examples
    --------
    >>> scaled(np.array([3.0, -1e308]), 2).tolist(), scaled(np.array([5e-324]), -1074).tolist()
    ([0.75, -2.5e+307], [1.0])
    """
    shifts = -np.asarray(e, dtype=np.int32)
    if getattr(x, "dtype", None) == np.float64 and (out is None or out.dtype == np.float64):
        with np.errstate(over="ignore"):
            factors = np.ldexp(1.0, shifts)
        if np.all((factors > 0) & (factors < math.inf)):
            return np.multiply(x, factors, out=out)
    return np.ldexp(x, shifts, out=out)


def unscale(value: float | np.ndarray, e: int | np.ndarray) -> float | np.ndarray:
    """``value * 2**e`` (infinite when the result is beyond the float64 range), without a warning."""
    with np.errstate(over="ignore"):
        out = np.ldexp(value, np.asarray(e, dtype=np.int32))
    return float(out) if np.ndim(out) == 0 else out


#: a symmetric matrix whose smallest eigenvalue is at most this times its largest is singular
SINGULAR_TOLERANCE = 1e-12


def singular_reason(what: str, values: np.ndarray, vectors: np.ndarray, names: list[str]) -> str | None:
    """None if the symmetric matrix of eigenvalues ``values`` (eigenvectors in the columns of ``vectors``) is
    well conditioned; else a sentence naming the variables of its null vectors (their linear dependency).

    >>> singular_reason("matrix", *np.linalg.eigh(np.array([[1.0, 1.0], [1.0, 1.0]])), ["a", "b"])
    'the matrix is singular (a, b are linearly dependent)'
    """
    top = values.max()
    small = values <= SINGULAR_TOLERANCE * top
    if top > 0 and not small.any():
        return None
    # each null vector's variables by falling weight, each named once: with more variables than records there
    # are thousands of null vectors, so one sort per vector and no search of the names found so far
    involved: list[int] = []
    seen = np.zeros(len(names), dtype=bool)
    for k in np.flatnonzero(small):
        v = np.abs(vectors[:, k])
        heavy = np.flatnonzero(v >= 1e-3 * v.max())
        heavy = heavy[np.argsort(-v[heavy], kind="stable")]
        new = heavy[~seen[heavy]]
        seen[new] = True
        involved.extend(new.tolist())
        if seen.all():
            break
    kind = "singular" if values.min() >= -SINGULAR_TOLERANCE * abs(top) else "not positive definite"
    if len(involved) >= 2:
        listed = errors.shortened([names[i] for i in involved], "variable")
        return f"the {what} is {kind} ({listed} are linearly dependent)"
    return f"the {what} is {kind}"


def too_large(what: str, names: Iterable[str] = ()) -> str:
    """The NotComputed reason for a statistic beyond the float64 range.

    Examples
    --------
    >>> too_large("the variance", ["income"])
    'the variance of income is beyond the largest floating-point number (1.8e308) because some values are extremely large; express the variable in larger units (e.g. millions) to compute it'
    """
    names = list(names)
    of = f" of {', '.join(names)}" if names else ""
    return (
        f"{what}{of} is beyond the largest floating-point number (1.8e308) because some values are extremely "
        "large; express the variable in larger units (e.g. millions) to compute it"
    )


def column_exponents(*matrices: np.ndarray) -> np.ndarray:
    """:func:`safe_exponent` of each column over all the (n_i, p) matrices: an int array of length p.

    Scaling every matrix's column j by ``2**-e[j]`` keeps their values
    comparable (one unit per column) and their differences finite.

    Examples
    --------
    >>> column_exponents(np.array([[1.0, 1e200], [2.0, 3.0]]), np.array([[5.0, -1e300]])).tolist()
    [0, 997]
    """
    # the columns' smallest and largest values in one pass over each matrix (``exponent`` column by column would
    # read strided columns: about 20 times slower on a 1,000,000 x 30 matrix); the same exponents
    largest = np.zeros(matrices[0].shape[1])
    for m in matrices:
        if m.shape[0] == 0:
            continue
        for extreme in (np.fmin.reduce(m, axis=0), np.fmax.reduce(m, axis=0)):
            size = np.abs(extreme)
            largest = np.fmax(largest, np.where(np.isfinite(size), size, 0.0))
    e = np.frexp(largest)[1].astype(np.int64)
    return np.where(np.abs(e) > SAFE_EXPONENT, e, 0)
