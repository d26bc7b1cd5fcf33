"""The user's own analyses, before and after protection (the ``analyses`` measure family).

The spec's ``analyses:`` section (:mod:`.spec`) declares estimates (means, totals, ratios, proportions,
quantiles and laeken's Gini, ARPR and QSR, per domain), regressions (patsy formulas fitted with statsmodels)
and scales (Cronbach's alpha).  Each is computed on the original and on every protected file, with confidence
intervals (:mod:`.design` for Taylor linearisation, :mod:`.bootstrap` for laeken's naive bootstrap), and
compared: relative difference, "inside the original's interval" and Karr et al.'s interval overlap
(:mod:`.compare`).  :mod:`.run` ties it together and caches the original's results once for all scenarios.
"""
