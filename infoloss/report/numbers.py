"""The one rule by which the report prints numbers.

Every number on the page (tables, chart labels, hover texts, text
alternatives, the verdict) goes through :func:`number`, :func:`count` or
:func:`percent`:

* 3 significant digits, trailing zeros dropped (``0.0563``, ``12.5``);
* from 1,000 on: whole numbers with thousands separators (``14,624``), and
  from 10⁹ on: 3 significant digits times a power of ten (``2.11 × 10¹⁴``);
* below 0.001: 3 significant digits times a power of ten (``1.18 × 10⁻⁶``);
* a value that is 0 to working precision prints as ``0``: below
  ``ZERO × scale`` in absolute value, where ``scale`` is the size of the
  numbers it is shown with (the measure's range or the largest value of
  its row; 1 by default) -- so float noise such as 2.9e-19 never shows;
* shares print as percentages (:func:`percent`), counts of records as whole
  numbers (:func:`count`).
"""

from __future__ import annotations

import math

#: relative size under which a value is zero to working precision
ZERO = 1e-12
#: significant digits of every printed number
DIGITS = 3
MINUS = "−"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def is_zero(x: float, scale: float = 1.0) -> bool:
    """Whether ``x`` is 0 to working precision at the given scale.

    >>> is_zero(2.9e-19), is_zero(1.2e-6), is_zero(3e-9, scale=1e6)
    (True, False, True)
    """
    return abs(x) <= ZERO * max(abs(scale), 1.0)


def number(x: float | None, scale: float = 1.0, digits: int = DIGITS) -> str:
    """A value as printed everywhere on the page (see the module docstring).

    >>> [number(v) for v in (0.05628, 118.2166, 14624.0, 2.9e-19, 1.184e-06, 2.1e14, -0.5, None, 1.0, 999.7)]
    ['0.0563', '118', '14,624', '0', '1.18 × 10⁻⁶', '2.1 × 10¹⁴', '−0.5', '–', '1', '1,000']
    """
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0 or is_zero(x, scale):
        return "0"
    ax = abs(x)
    sign = MINUS if x < 0 else ""
    if ax >= 1e9 or ax < 1e-3:
        mantissa, exponent = f"{ax:.{digits - 1}e}".split("e")
        mantissa = _strip(mantissa)
        return f"{sign}{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    if ax >= 1000:
        return f"{sign}{round(ax):,}"
    text = f"{ax:.{digits}g}"
    if "e" in text:  # 100 <= ax < 1000 rounding up to 1e3 and similar
        text = f"{float(text):,.0f}"
    return sign + _strip(text)


def _strip(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def count(n: float | None) -> str:
    """A number of records or cells: a whole number with thousands separators.

    >>> count(4000), count(439.0), count(None)
    ('4,000', '439', '–')
    """
    if n is None or not math.isfinite(n):
        return "–"
    return f"{round(n):,}"


def percent(share: float | None) -> str:
    """A share in [0, 1] as a percentage: whole from 10 %, 1 decimal from 1 %, else 2 significant digits.

    A share that is not all (1) or none (0) never prints as ``100 %`` or ``0 %``: near 100 % it keeps one
    decimal (``99.9 %``) or reads ``> 99.9 %``, and below 0.01 % (where 2 significant digits would need a
    power of ten) it reads ``< 0.01 %``.  Only 0 and 1 to working precision print as ``0 %`` and ``100 %``.

    >>> [percent(s) for s in (0.8303, 0.14, 0.0123, 0.000456, 0.0, 1.0, 2e-17, None)]
    ['83 %', '14 %', '1.2 %', '0.046 %', '0 %', '100 %', '0 %', '–']
    >>> [percent(s) for s in (1997 / 2000, 0.9996, 0.99999, 3e-7, 0.995)]
    ['99.9 %', '> 99.9 %', '> 99.9 %', '< 0.01 %', '99.5 %']
    """
    if share is None or not math.isfinite(share):
        return "–"
    p = 100.0 * share
    if is_zero(share):
        return "0 %"
    if abs(p) >= 10:
        return _not_all(p, f"{p:.0f}")
    if abs(p) >= 1:
        return f"{_strip(f'{p:.1f}')} %"
    if abs(p) < 0.01:
        return "< 0.01 %" if p > 0 else f"> {MINUS}0.01 %"
    return f"{_strip(f'{p:.2g}')} %"


def below(share: float | None) -> str:
    """An upper bound on a share as printed: ``< 0.25 %`` (and ``< 0.01 %``, not ``< < 0.01 %``).

    >>> below(5 / 2000), below(5 / 100000)
    ('< 0.25 %', '< 0.01 %')
    """
    text = percent(share)
    return text if text.startswith("<") else f"< {text}"


def _not_all(p: float, text: str) -> str:
    """``text`` (a percentage rounded) unless it reads 100 for a share that is not 1: then 1 decimal, or > 99.9."""
    if float(text) < 100 or p >= 100 or is_zero(1.0 - p / 100.0):
        return f"{_strip(text)} %"
    one = _strip(f"{p:.1f}")
    return f"{one} %" if float(one) < 100 else "> 99.9 %"


def weight_percent(share: float | None) -> str:
    """A weight as a percentage with one decimal where a whole number would round it (12.5 % is not 12 %).

    >>> [weight_percent(s) for s in (0.125, 0.17, 1 / 6, 0.02, 0.0012, None, 0.9996)]
    ['12.5 %', '17 %', '16.7 %', '2 %', '0.12 %', '–', '> 99.9 %']
    """
    if share is None or not math.isfinite(share) or abs(100.0 * share) < 1:
        return percent(share)
    return _not_all(100.0 * share, f"{100.0 * share:.1f}")


def short(x: float | None, scale: float = 1.0) -> str:
    """A number short enough for a heat-map cell or an axis tick (2 significant digits, k/M).

    Same rule as :func:`number` with 2 digits and thousands as ``k``/``M``:

    >>> [short(v) for v in (0.0234, -0.5, 431.2, 2466.7, 1.5e6, 0.0012, 2.9e-19, 0.00012)]
    ['0.023', '−0.5', '430', '2.5k', '1.5M', '0.0012', '0', '1.2e−4']
    """
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0 or is_zero(x, scale):
        return "0"
    ax = abs(x)
    sign = MINUS if x < 0 else ""
    if ax < 1e-3 or ax >= 1e12:
        m, e = f"{ax:.1e}".split("e")
        return f"{sign}{_strip(m)}e{MINUS if int(e) < 0 else ''}{abs(int(e))}"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if ax >= div:
            return f"{sign}{_strip(f'{ax / div:.2g}' if ax / div < 100 else f'{ax / div:.0f}')}{suffix}"
    text = f"{ax:.2g}"
    if "e" in text:
        text = f"{float(text):.0f}"
    return sign + _strip(text)
