"""Disclosure-risk computations behind the ``risk`` measure family.

The measures themselves are registered in :mod:`infoloss.measures.risk` and
:mod:`infoloss.measures.risk_distance`; this package holds the kernels, each a
plain numpy function that can be tested on its own:

* :mod:`.freq` -- sample and population frequencies ``fk``/``Fk`` with the
  missing-value wildcard (or sdcMicro's variant), individual, global and household risk;
* :mod:`.suda` -- SUDA2 minimal sample uniques, SUDA and DIS-SUDA scores;
* :mod:`.diversity` -- l-diversity and t-closeness of sensitive variables;
* :mod:`.distance` -- interval disclosure, record linkage, distance to the
  closest record;
* :mod:`.files` -- what the kernels read from an :class:`~infoloss.pair.EncodedPair`
  (key codes, weights, households), each file's risk computed once;
* :mod:`.records` -- the per-record values as a table, written on request;
* :mod:`.rumap` -- the risk-utility map and the two decision rules.
"""
