"""``scipy.stats.kstwo.sf`` — the two-sided one-sample Kolmogorov–Smirnov p-value — without importing scipy.stats.

Importing ``scipy.stats`` costs about half a second of every run's start-up,
more than all the measures of a 200,000-record comparison, and the KS tests
of the distributions and GDU families are the only reason a typical run would
import it.  scipy computes ``kstwo.sf(d, n)`` by the method Simard and
L'Ecuyer (2011) choose for ``n`` and ``d``; for more than 140 values
(``1 < n d < n − 1``) those are

* ``n d² ≥ 370`` (and ``d < 0.5``): 0;
* ``n d² ≥ 2.2`` or ``d ≥ 0.5``: ``2 smirnov(n, d)`` (``scipy.special.smirnov``);
* otherwise ``1 −`` the Pelz–Good approximation of the CDF, except below
  100,001 values where ``n d^1.5 ≤ 1.4`` (Durbin's matrix method).

:func:`kstwo_sf` follows the same choice: the first two are scipy's own
calls (bit for bit), the Pelz–Good series is written out below from the
paper (within 1e-14 relative of scipy's evaluation: 9.3e-15 at worst for 141 to 10,000,000 values), and every other
case (up to 140 values, Durbin's region, ``n d ≤ 1``) is passed to
``scipy.stats.kstwo`` itself, imported then.  ``tests/test_kolmogorov.py``
compares the two over the whole range.

References
----------
Simard, R. and L'Ecuyer, P. (2011). Computing the two-sided Kolmogorov–Smirnov
distribution. Journal of Statistical Software 39(11).
Pelz, W. and Good, I. J. (1976). Approximating the lower tail-areas of the
Kolmogorov–Smirnov one-sample statistic. JRSS B 38(2), 152-156.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def kstwo_sf(d: float, n: float) -> float:
    """``scipy.stats.kstwo.sf(d, n)``: P(D_n ≥ d) for the two-sided one-sample KS statistic of ``n`` values.

    >>> round(kstwo_sf(0.002, 200_000), 6), round(kstwo_sf(0.004, 200_000), 6), kstwo_sf(0.2, 200_000)
    (0.399951, 0.003314, 0.0)
    """
    if d <= 0.0:
        return 1.0
    if d >= 1.0:
        return 0.0
    t = n * d
    if n > 140 and math.isfinite(n) and n == int(n) and 1.0 < t < n - 1:
        nd2 = t * d
        if d < 0.5 and nd2 >= 370.0:
            return 0.0
        if d >= 0.5 or nd2 >= 2.2:
            return float(np.clip(2 * special.smirnov(int(n), d), 0.0, 1.0))
        if n > 100_000 or int(n) * d**1.5 > 1.4:
            return float(np.clip(_pelz_good_sf(int(n), d), 0.0, 1.0))
    from .._concurrent import import_alone

    stats = import_alone("scipy.stats")  # the remaining methods are scipy's alone (one first import at a time)
    return float(stats.kstwo.sf(d, n))


def _pelz_good_sf(n: int, d: float) -> float:
    r"""1 − the Pelz–Good approximation of P(D_n ≤ d), ``z = d √n`` (Simard and L'Ecuyer 2011, eq. 11):

    .. math::

        P(D_n \le d) \approx K_0(z) + \frac{K_1(z)}{\sqrt n} + \frac{K_2(z)}{n} + \frac{K_3(z)}{n^{3/2}}

    with, over ``u_k = (k − ½)² π²`` and ``q_k = exp(−u_k / (2 z²))``, ``k ≥ 1``,

    .. math::

        K_0 &= \frac{\sqrt{2\pi}}{z} \sum_k q_k, \qquad
        K_1 = \frac{\sqrt{\pi/2}}{3 z^4} \sum_k (u_k - z^2)\, q_k, \\
        K_2 &= \frac{\sqrt{\pi/2}}{36 z^7} \sum_k \left(6z^6 + 2z^4 + (2z^4 - 5z^2) u_k + (1 - 2z^2) u_k^2\right) q_k
              - \frac{\sqrt{2\pi}}{36 z^3} \sum_k \pi^2 k^2 e^{-\pi^2 k^2 / (2 z^2)}, \\
        K_3 &= \frac{\sqrt{\pi/2}}{3240 z^{10}} \sum_k \left(-30z^6 - 90z^8 + (135z^4 - 96z^6) u_k
              + (212z^4 - 60z^2) u_k^2 + (5 - 30z^2) u_k^3\right) q_k
              + \frac{\sqrt{\pi/2}}{108 z^6} \sum_k (3z^2 - \pi^2 k^2)\, \pi^2 k^2 e^{-\pi^2 k^2 / (2 z^2)}.

    Terms are summed up to ``k = ⌈16 z / π⌉``, where they are below 1e-300
    relative (scipy's bound); the smallest terms are added first.
    """
    z = math.sqrt(n) * d
    z2 = z * z
    if -math.pi**2 / 8 / z2 < -708.0:  # every term underflows: P(D_n ≤ d) = 0
        return 1.0
    k = np.arange(math.ceil(16 * z / math.pi), 0, -1, dtype=np.float64)  # smallest terms first
    u = (k - 0.5) ** 2 * math.pi**2
    q = np.exp(-u / (2 * z2))
    z4, z6 = z2 * z2, z2 * z2 * z2
    root = math.sqrt(math.pi / 2)
    k0 = 2 * root / z * float(np.sum(q))
    k1 = root / (3 * z4) * float(np.sum((u - z2) * q))
    k2 = root / (36 * z6 * z) * float(np.sum((6 * z6 + 2 * z4 + (2 * z4 - 5 * z2) * u + (1 - 2 * z2) * u * u) * q))
    k3 = root / (3240 * z6 * z4) * float(np.sum(
        (-30 * z6 - 90 * z6 * z2 + (135 * z4 - 96 * z6) * u + (212 * z4 - 60 * z2) * u * u + (5 - 30 * z2) * u**3) * q))
    v = (math.pi * k) ** 2  # π² k², the sums over all whole k
    e = np.exp(-v / (2 * z2))
    k2 -= root / (18 * z2 * z) * float(np.sum(v * e))
    k3 += root / (108 * z6) * float(np.sum((3 * z2 - v) * v * e))
    return (1.0 - k0) - k1 / math.sqrt(n) - k2 / n - k3 / n**1.5
