"""Weighted linear and generalised linear models, fitted as R's ``lm.wfit`` and ``glm.fit`` do.

Why not statsmodels' ``WLS``/``GLM`` (which the tests use as the reference): they form the full n × p ``Q``
(or an SVD) for every fit and every IRLS iteration, some 15 s for two models of a million records, and the
budget of the whole analyses family is 30 s.  Here each weighted least-squares step solves the normal
equations XᵀVX β = XᵀVz (one BLAS matrix product, ~20 times cheaper than a QR of the n × p matrix),
equilibrated to a unit diagonal before the Cholesky factorisation and followed by one step of iterative
refinement on the residuals, which brings the coefficients to the accuracy of R's QR (the tests check
1e-8 relative against R and statsmodels; typical agreement is 1e-12).  The aliased columns (R's ``NA``) are
found as R finds them, by Householder reflections (:func:`alias_factor`), whose triangular factor is also the
linear model's Cholesky factor.  R's IRLS starting values and
stopping rule are used, so the GLM iterates are R's.

- Linear model: weighted least squares; σ² = Σ w r² / (n − p); t tests and intervals on n − p degrees of
  freedom; R² = MSS / (MSS + RSS) with MSS about the weighted mean (about 0 without an intercept) and the
  adjusted R² = 1 − (1 − R²)(n − i)/(n − p), i = 1 with an intercept (``summary.lm``).
- GLM (binomial with logit link, poisson with log link; dispersion 1): IRLS from ``mustart`` = (w·y + ½)/(w + 1)
  (binomial) or y + 0.1 (poisson); working response z = η + (y − μ)/μ' and weights w·μ'²/V(μ), with R's
  clamps (|η| > 30 in the logit, μ ≥ machine ε in the log link); stop when
  |D − D_old| / (|D| + 0.1) < 1e-8 (``glm.control``); at most 25 iterations, halving the step when the
  deviance is not finite.  Covariance (XᵀWX)⁻¹ of the last iteration; Wald z tests and intervals
  (``summary.glm``, ``confint.default``); null deviance of the weighted mean (or of η = 0 without intercept).

References
----------
Chambers, J. M. & Hastie, T. J. (1992). *Statistical Models in S*, ch. 4 (lm) and 6 (glm). Wadsworth.
McCullagh, P. & Nelder, J. A. (1989). *Generalized Linear Models*, 2nd ed., §2.5 (IRLS). Chapman & Hall.

Examples
--------
R's ``lm(y ~ x)`` gives the coefficients 0.05 and 1.99 and R² 0.99831:

>>> import numpy as np
>>> X = np.column_stack([np.ones(5), [1.0, 2, 3, 4, 5]])
>>> fit = linear_fit(np.array([2.0, 4.1, 5.9, 8.2, 9.9]), X, np.ones(5), level=0.95)
>>> np.round(fit.params, 4).tolist(), round(fit.r2, 5)
([0.05, 1.99], 0.99831)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ..errors import NotComputed

GLM_EPSILON = 1e-8  # glm.control(epsilon)
GLM_MAXIT = 25  # glm.control(maxit)
#: columns decided together by :func:`alias_factor` (the kept columns' reflections are applied to a block at once)
ALIAS_BLOCK = 128


@dataclass
class FitResult:
    """Coefficients with standard errors, intervals and p-values, and the fit statistics."""

    params: np.ndarray
    bse: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    pvalues: np.ndarray
    df_resid: float
    r2: float | None = None
    r2_adj: float | None = None
    deviance: float | None = None
    null_deviance: float | None = None
    converged: bool = True
    eta: np.ndarray | None = None


class SingularFit(NotComputed):
    """The weighted cross-product matrix of the model's columns cannot be factorised (numerically singular)."""


@dataclass
class GramFactor:
    """A Cholesky factor of the weighted cross-product matrix XᵀWX, equilibrated to a unit diagonal.

    The lower triangle of ``lower`` holds L with L·Lᵀ = D·XᵀWX·D, D = diag(``scale``) (what
    ``scipy.linalg.cho_solve((lower, True), b)`` takes).
    """

    lower: np.ndarray
    scale: np.ndarray


class WeightedLS:
    """Weighted least squares on one model matrix, for many weight vectors (IRLS).

    ``X`` is kept with its transpose, so that each solve is two matrix products over the records.
    """

    def __init__(self, X: np.ndarray) -> None:
        self.X = np.ascontiguousarray(X, dtype=float)
        self.Xt = np.ascontiguousarray(self.X.T)
        self._buffer = np.empty_like(self.Xt)

    def solve(self, z: np.ndarray, v: np.ndarray, factor: GramFactor | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Coefficients minimising Σ v (z − Xβ)², and (XᵀVX)⁻¹.

        ``factor``: XᵀVX's factor when it is known (:func:`alias_factor`, for the prior weights): not computed
        again.  SingularFit when XᵀVX cannot be factorised.
        """
        XtV = np.multiply(self.Xt, v, out=self._buffer)
        if factor is None:
            factor = self._factor(XtV)
        c, d = (factor.lower, True), factor.scale
        beta = d * linalg.cho_solve(c, d * (XtV @ z), check_finite=False)
        residual = z - self.X @ beta
        beta = beta + d * linalg.cho_solve(c, d * (XtV @ residual), check_finite=False)  # refinement
        inverse = linalg.cho_solve(c, np.eye(d.size), check_finite=False) * d[:, None] * d[None, :]
        return beta, inverse

    def _factor(self, XtV: np.ndarray) -> GramFactor:
        G = XtV @ self.X
        if not (np.diag(G) > 0).all():
            raise SingularFit("a column of the model matrix is 0 in every record with a positive fitting weight")
        d = 1.0 / np.sqrt(np.diag(G))
        try:
            lower, _ = linalg.cho_factor(G * d[:, None] * d[None, :], lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise SingularFit("the model's columns are too close to collinear under the fit's weights for their "
                              "weighted cross-products to be factorised; drop or merge terms") from None
        return GramFactor(lower, d)


def aliased_columns(X: np.ndarray, w: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    """Columns linearly dependent on earlier ones (R's NA coefficients), in R's sequential order: see
    :func:`alias_factor`."""
    return alias_factor(X, w, tol)[0]


def alias_factor(X: np.ndarray, w: np.ndarray, tol: float = 1e-7) -> tuple[np.ndarray, GramFactor]:
    """The aliased columns, and the factor of the kept columns' weighted cross-products (:class:`GramFactor`).

    R's rule (``lm``'s ``qr(tol = 1e-7)``, LINPACK's ``dqrdc2``): column j is aliased when the part of √w·x_j
    orthogonal to the kept earlier columns is below ``tol`` times its norm; an aliased column is set aside, so
    later columns are measured against the kept ones only.  That part is found as R finds it, by Householder
    reflections of the kept columns (a QR decomposition, accurate to rounding of the columns themselves),
    and R's factor of the kept columns is the Cholesky factor Rᵀ of their cross-products, extended by one
    column per kept column: nothing is factorised twice.

    Why not the cross-products XᵀWX alone (the first implementation): their rounding errors, about
    (number of columns) × 1e-16 of 1 − ‖L⁻¹g‖², exceed tol² = 1e-14 once a model has a few dozen columns,
    so an exact alias was kept at random (a 5-way interaction of 800 columns of rank 248 kept 249-257,
    depending on the BLAS's thread count) and its coefficients came out with standard errors of 1e6.

    The columns are taken :data:`ALIAS_BLOCK` at a time: the reflections of the kept columns are applied to
    a block in one LAPACK call (``dormqr``, BLAS 3), then the block's columns are decided in order.  At most
    n columns are kept with n records (the rank is at most n; R's QR stops there too).
    """
    A, aliased, d = _unit_columns(X, w)
    n, p = A.shape
    R = np.zeros((min(n, p), min(n, p)))
    tau = np.zeros(R.shape[0])
    k = 0
    for start in range(0, p, ALIAS_BLOCK):
        block = [j for j in range(start, min(start + ALIAS_BLOCK, p)) if not aliased[j]]
        if block:
            k = _decide_block(A, R, tau, k, block, aliased, tol)
    return aliased, GramFactor(R[:k, :k].T, d[~aliased])


def _unit_columns(X: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """√w·X·D with columns of norm 1 (Fortran order), the columns of norm 0 (aliased), and D's diagonal."""
    A = np.empty(X.shape, order="F")
    np.multiply(X, np.sqrt(w)[:, None], out=A)
    norms = np.sqrt(np.einsum("ij,ij->j", A, A))
    aliased = norms == 0
    d = np.where(aliased, 0.0, 1.0 / np.where(aliased, 1.0, norms))
    A *= d
    return A, aliased, d


def _decide_block(A: np.ndarray, R: np.ndarray, tau: np.ndarray, k: int, block: list[int], aliased: np.ndarray,
                  tol: float) -> int:
    """Decide the columns of ``block`` in order against the ``k`` kept so far; returns the new number kept.

    The block is reflected by the kept columns' reflections at once, then factorised by LAPACK's ``geqrf``
    (BLAS 3): its columns before the first one whose diagonal entry is below ``tol`` are kept as they are;
    that one is aliased and set aside, and the rest is reflected by the newly kept and factorised again (on a
    window that shrinks after an alias and grows after none, so that many aliases cost little).
    """
    C = np.asfortranarray(A[:, block])
    if k:
        C = _reflect(A[:, :k], tau[:k], C)
    width = len(block)
    while block and k < R.shape[0]:
        m = _keep_leading(A, R, tau, k, C[:, :width], tol)
        stop = min(width, len(block))
        if m < stop:
            aliased[block[m]] = True
        done = m + (m < stop)
        C, block = C[:, done:], block[done:]
        if m and block:
            C[k:] = _reflect(A[k:, k:k + m], tau[k:k + m], C[k:])
        k += m
        width = 2 * width if m == width else max(2 * m, 4)
    aliased[block] = True  # beyond the rank bound
    return k


def _keep_leading(A: np.ndarray, R: np.ndarray, tau: np.ndarray, k: int, C: np.ndarray, tol: float) -> int:
    """The number of leading columns of ``C`` (already reflected by the ``k`` kept) before the first aliased
    one; their column of R, reflections and τ are stored (the reflections in ``A``'s columns k, k + 1, ...,
    LAPACK's layout: each column is free once read, as a kept column's index is at least the number kept
    before it)."""
    qr, t = linalg.lapack.dgeqrf(C[k:])[:2]
    small = np.flatnonzero(np.abs(np.diagonal(qr)) < tol)
    m = min(int(small[0]) if small.size else C.shape[1], R.shape[0] - k)
    R[:k, k:k + m] = C[:k, :m]
    R[k:k + m, k:k + m] = np.triu(qr[:m, :m])
    A[k:, k:k + m] = qr[:, :m]
    tau[k:k + m] = t[:m]
    return m


def _reflect(V: np.ndarray, t: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Qᵀ·C for the reflections in ``V`` (below the diagonal, LAPACK's layout) and ``t`` (``dormqr``)."""
    return linalg.lapack.dormqr("L", "T", V, t, C, lwork=max(1, 64 * C.shape[1]))[0]


def linear_fit(y: np.ndarray, X: np.ndarray, w: np.ndarray, *, level: float, intercept: bool = True,
               factor: GramFactor | None = None) -> FitResult:
    """Weighted least squares as R's ``lm(weights = w)`` (records with w = 0 must be removed first).

    ``factor``: XᵀWX's from :func:`alias_factor` (else computed here; SingularFit when it cannot be).
    """
    beta, inverse = WeightedLS(X).solve(y, w, factor)
    n, p = X.shape
    df = n - p
    fitted = X @ beta
    rss = float(np.sum(w * (y - fitted) ** 2))
    sigma2 = rss / df
    bse = np.sqrt(np.diag(inverse) * sigma2)
    center = np.sum(w * fitted) / np.sum(w) if intercept else 0.0
    mss = float(np.sum(w * (fitted - center) ** 2))
    r2 = mss / (mss + rss) if mss + rss > 0 else np.nan
    r2_adj = 1 - (1 - r2) * (n - int(intercept)) / df
    # imported when a model is fitted: scipy.stats takes about 0.5 s to import
    from scipy import stats

    t = stats.t.ppf(0.5 + level / 2, df)
    with np.errstate(divide="ignore", invalid="ignore"):
        pvalues = 2 * stats.t.sf(np.abs(beta / bse), df)
    return FitResult(beta, bse, beta - t * bse, beta + t * bse, pvalues, float(df), r2=r2, r2_adj=r2_adj)


class _Family:
    """Binomial (logit) or poisson (log): R's ``binomial()``/``poisson()`` functions, with their clamps."""

    EPS = np.finfo(float).eps
    THRESH = 30.0  # R's logit link: |η| > 30 is treated as ±30 in linkinv and μ'(η)

    def __init__(self, name: str) -> None:
        self.name = name

    def linkinv(self, eta: np.ndarray) -> np.ndarray:
        if self.name == "binomial":
            tmp = np.exp(np.clip(eta, -self.THRESH, self.THRESH))
            tmp = np.where(eta < -self.THRESH, self.EPS, np.where(eta > self.THRESH, 1 / self.EPS, tmp))
            return tmp / (1 + tmp)
        return np.maximum(np.exp(np.minimum(eta, 700.0)), self.EPS)

    def link(self, mu: np.ndarray) -> np.ndarray:
        return np.log(mu / (1 - mu)) if self.name == "binomial" else np.log(mu)

    def mu_eta(self, eta: np.ndarray) -> np.ndarray:
        """dμ/dη."""
        if self.name == "binomial":
            e = np.exp(np.clip(eta, -self.THRESH, self.THRESH))
            return np.where(np.abs(eta) > self.THRESH, self.EPS, e / (1 + e) ** 2)
        return np.maximum(np.exp(np.minimum(eta, 700.0)), self.EPS)

    def variance(self, mu: np.ndarray) -> np.ndarray:
        return mu * (1 - mu) if self.name == "binomial" else mu

    def deviance(self, y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.name == "binomial":
                terms = _ylogy(y, mu) + _ylogy(1 - y, 1 - mu)
            else:
                terms = _ylogy(y, mu) - (y - mu)
        return float(2 * np.sum(w * terms))

    def start(self, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        return (w * y + 0.5) / (w + 1) if self.name == "binomial" else y + 0.1


def _ylogy(y: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """y·log(y/μ) with 0·log(0) = 0."""
    return np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mu), 0.0)


def glm_fit(y: np.ndarray, X: np.ndarray, w: np.ndarray, family: str, *, level: float,
            intercept: bool = True) -> FitResult:
    """IRLS as R's ``glm.fit`` with prior weights ``w`` (records with w = 0 must be removed first)."""
    fam = _Family(family)
    ls = WeightedLS(X)
    mu = fam.start(y, w)
    eta = fam.link(mu)
    dev_old = fam.deviance(y, mu, w)
    beta = np.zeros(X.shape[1])
    converged = False
    dev = None
    for _ in range(GLM_MAXIT):
        d_mu = fam.mu_eta(eta)
        good = d_mu != 0  # R's "good" records (all of them, given the clamps)
        z = eta + (y - mu) / np.where(good, d_mu, 1.0)
        try:
            new_beta, inverse = ls.solve(z, np.where(good, w * d_mu**2 / fam.variance(mu), 0.0))
        except SingularFit:
            if dev is None:  # not even the first step: nothing to report
                raise
            break  # no information left in the weights (complete separation): not converged
        eta_new = X @ new_beta
        mu_new = fam.linkinv(eta_new)
        dev = fam.deviance(y, mu_new, w)
        halvings = 0
        while not np.isfinite(dev) and halvings < 30:  # R's step halving for a non-finite deviance
            new_beta = (new_beta + beta) / 2
            eta_new = X @ new_beta
            mu_new = fam.linkinv(eta_new)
            dev = fam.deviance(y, mu_new, w)
            halvings += 1
        beta, eta, mu = new_beta, eta_new, mu_new
        if abs(dev - dev_old) / (abs(dev) + 0.1) < GLM_EPSILON:
            converged = True
            break
        dev_old = dev
    bse = np.sqrt(np.diag(inverse))
    # imported when a model is fitted: scipy.stats takes about 0.5 s to import
    from scipy import stats

    zq = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        pvalues = 2 * stats.norm.sf(np.abs(beta / bse))
    wtdmu = np.sum(w * y) / np.sum(w) if intercept else fam.linkinv(np.zeros(1))[0]
    null_dev = fam.deviance(y, np.full_like(y, wtdmu), w)
    return FitResult(beta, bse, beta - zq * bse, beta + zq * bse, pvalues, float(X.shape[0] - X.shape[1]),
                     deviance=dev, null_deviance=null_dev, converged=converged, eta=eta)
