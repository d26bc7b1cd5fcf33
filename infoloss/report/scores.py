"""Utility scores in [0, 1] (higher always better): per measure, per family and overall.

The verdict of the report ranks the scenarios by these scores (docs/report.md
documents every mapping):

* **measure score** -- a measure's value mapped to [0, 1], 1 at its ideal
  (the value of identical files) and 0 at the far end of its range on the
  bad side: ``1 − loss / span`` with ``loss = info.loss(value)`` (the
  distance from the ideal in the bad direction; for "target" measures the
  distance on either side) and ``span`` the distance from the ideal to that
  end of the range.  A measure unbounded on its bad side needs a
  ``score_scale`` (the loss that counts as complete loss) and is left out
  of the scores without one (e.g. ctbil, whose value is in records per cell);
* **family score** -- the mean of the scores of the family's headline
  measures (all its scoreable measures when none of the measures run is a
  headline measure), each weighted by the number of variables it speaks
  about; only measures computed for every scenario take part, so all
  scenarios are scored alike; a family whose headline measures were run but
  none can be scored (withheld, not computed for every scenario, unbounded)
  is not scored: no other measure stands in for them;
* **overall score** -- the weighted mean of the family scores.  By default a
  family's weight is the share of the analysed variables its measures speak
  about (the moments family, about continuous variables only, weighs little
  in a file that is mostly categorical); ``weights={family: w}`` overrides it.
  The risk family is never part of the utility score.

Scores closer than :data:`TIE` are ties: ranked by overall score, a scenario
within :data:`TIE` of the next better one shares its place (:meth:`Scores.places`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..registry import FAMILIES, MeasureInfo, get
from .glossary import covers, score_scale

#: overall or family scores closer than this are ties
TIE = 0.01
#: families whose measures are not information loss (never in the utility score)
NOT_UTILITY = ("risk",)


def check_weights(weights: Mapping[str, Any] | None) -> dict[str, float] | None:
    """Family weights as given by a user, checked: known families, finite numbers ≥ 0, not all 0.

    >>> check_weights({"tables": 2, "record": "1"})
    {'tables': 2.0, 'record': 1.0}
    """
    from ..errors import InputError

    if not weights:
        return None
    out = {}
    utility = [f for f in FAMILIES if f not in NOT_UTILITY]
    for family, w in weights.items():
        if family in NOT_UTILITY:
            raise InputError(f"the {family} family is not part of the utility score, so it takes no weight (the "
                             f"risk-utility map sets risk beside utility: --ru); weigh {', '.join(utility)}.")
        if family not in FAMILIES:
            raise InputError(f"unknown family {family!r} in the score weights; the families are {', '.join(utility)}.")
        try:
            value = float(w)
        except (TypeError, ValueError):
            raise InputError(f"the weight of {family!r} must be a number, got {w!r}.") from None
        if not math.isfinite(value) or value < 0:
            raise InputError(f"the weight of {family!r} must be a number of at least 0, got {w!r}.")
        out[family] = value
    if not any(out.values()):
        raise InputError("at least one family weight must be above 0.")
    return out


def measure_score(info: MeasureInfo, value: float | None) -> float | None:
    """``value`` of measure ``info`` as a score in [0, 1] (1 at the ideal); None when it has no scale.

    >>> from infoloss.registry import get
    >>> measure_score(get("hellinger"), 0.25), measure_score(get("gdu"), 0.9), measure_score(get("pmse"), 0.05)
    (0.75, 0.9, 0.8)
    >>> measure_score(get("il1s"), 0.3), measure_score(get("il1s"), 2.0), measure_score(get("ctbil"), 3.0)
    (0.7, 0.0, None)
    >>> measure_score(get("pmse_ratio"), 0.25)  # target 1, range from 0: a quarter of the way up
    0.25
    """
    if value is None or not math.isfinite(value):
        return None
    span = _span(info, value)
    if span is None or span <= 0:
        return None
    return min(max(1.0 - info.loss(value) / span, 0.0), 1.0)


def _span(info: MeasureInfo, value: float) -> float | None:
    lo, hi = info.range
    ideal = info.ideal
    if info.better == "lower" or (info.better == "target" and value >= ideal):
        end = None if hi is None else hi - ideal
    else:
        end = None if lo is None else ideal - lo
    return end if end is not None and end > 0 else score_scale(info)


@dataclass
class FamilyScore:
    """One family's scores per scenario and its weight in the overall score."""

    family: str
    title: str
    measures: list[str]  # the measures behind the score
    coverage: int  # variables the measures speak about
    scores: list[float | None]
    weight: float = 0.0
    left_out: dict[str, str] = field(default_factory=dict)  # measure -> why it is not in the score


@dataclass
class Scores:
    """The verdict's numbers: family scores, weights, the overall score per scenario and ties."""

    names: list[str]
    families: list[FamilyScore]
    overall: list[float | None]
    weights_given: bool = False

    def ranking(self) -> list[int]:
        """Scenario indices from the best overall score to the worst (unscored last)."""
        return sorted(range(len(self.names)), key=lambda i: (self.overall[i] is None, -(self.overall[i] or 0.0), i))

    def tied_with_best(self) -> list[int]:
        """The scenarios that share the first place (:meth:`places`)."""
        return self.tied_at(1)

    def tied_at(self, place: int) -> list[int]:
        """The scenarios at ``place`` (1 = best), from the best score down."""
        places = self.places()
        return [i for i in self.ranking() if places[i] == place]

    def places(self) -> list[int | None]:
        """Each scenario's place (1 = best): a scenario whose score is within :data:`TIE` of the next better one
        shares its place, so a run of scores each within :data:`TIE` of the previous one is one tie (its ends
        may be further apart).

        >>> Scores(list("ABCD"), [], [0.900, 0.895, 0.889, 0.870]).places()
        [1, 1, 1, 4]
        """
        out: list[int | None] = [None] * len(self.names)
        place, previous = 0, None
        for k, i in enumerate(i for i in self.ranking() if self.overall[i] is not None):
            if previous is None or previous - self.overall[i] >= TIE:
                place = k + 1
            previous = self.overall[i]
            out[i] = place
        return out


def variable_kinds(report: Any) -> dict[str, str]:
    """Analysed variable -> "continuous" or "categorical"."""
    return {name: ("continuous" if scale == "continuous" else "categorical")
            for name, scale in report.original.get("variables", {}).items()}


def measure_variables(info: MeasureInfo, results: Sequence[Any], kinds: Mapping[str, str]) -> set[str]:
    """The variables a measure speaks about: its per-variable/per-pair keys, else the variables its
    ``details["variables"]`` says it used (ecdf_max: the continuous and ordinal ones), else what it covers."""
    named: set[str] = set()
    for r in results:
        if r is None:
            continue
        named |= set(r.by_variable or {})
        for key in r.by_pair or {}:
            named |= set(key.split("|", 1))
        used = (r.details or {}).get("variables") if isinstance(r.details, dict) else None
        if isinstance(used, (list, tuple)) and not (r.by_variable or r.by_pair):
            named |= {v for v in used if isinstance(v, str)}
    named &= set(kinds)
    if named:
        return named
    scope = covers(info)
    return {n for n, k in kinds.items() if scope == "all" or k == scope}


def compute_scores(report: Any, weights: Mapping[str, float] | None = None) -> Scores:
    """Family and overall scores of every scenario of ``report`` (see the module docstring)."""
    names = [s.name for s in report.scenarios]
    kinds = variable_kinds(report)
    n_vars = max(len(kinds), 1)
    families: list[FamilyScore] = []
    for family, title in FAMILIES.items():
        if family in NOT_UTILITY:
            continue
        fs = _family_score(report, family, title, kinds)
        if fs is not None:
            fs.weight = fs.coverage / n_vars
            families.append(fs)
    weights = check_weights(weights)
    if weights:
        for fs in families:
            fs.weight = float(weights.get(fs.family, 0.0))
    total = sum(fs.weight for fs in families)
    for fs in families:
        fs.weight = fs.weight / total if total > 0 else 0.0
    overall = []
    for i in range(len(names)):
        parts = [(fs.weight, fs.scores[i]) for fs in families if fs.weight > 0 and fs.scores[i] is not None]
        w = sum(p[0] for p in parts)
        overall.append(sum(a * b for a, b in parts) / w if parts and w > 0 else None)
    return Scores(names, families, overall, weights_given=bool(weights))


def _family_score(report: Any, family: str, title: str, kinds: Mapping[str, str]) -> FamilyScore | None:
    run = [m for m in report.measure_ids if get(m).family == family]
    if not run:
        return None
    headline = [m for m in run if get(m).headline]
    left_out: dict[str, str] = {}
    # a family that ran headline measures is scored by them alone: when none of them can be scored (withheld in
    # safe mode, not computed for every scenario, or unbounded without a scale) the family is not scored, rather
    # than by a measure that is no headline one standing in (grc alone for GDU: 1 by construction; the regression
    # signs for the analyses when the safe JSON withholds the estimates), which could reverse the verdict
    chosen = _scoreable(report, headline if headline else run, left_out)
    if not chosen:
        return FamilyScore(family, title, [], 0, [None] * len(report.scenarios), left_out=left_out)
    used: set[str] = set()
    sums = [0.0] * len(report.scenarios)
    total = 0
    for mid in chosen:
        info = get(mid)
        results = [s.measures.get(mid) for s in report.scenarios]
        variables = measure_variables(info, results, kinds)
        c = max(len(variables), 1)
        used |= variables
        total += c
        for i, r in enumerate(results):
            sums[i] += c * measure_score(info, r.value)  # type: ignore[union-attr,operator]
    return FamilyScore(family, title, chosen, len(used), [s / total for s in sums], left_out=left_out)


def _scoreable(report: Any, ids: Sequence[str], left_out: dict[str, str]) -> list[str]:
    out = []
    for mid in ids:
        info = get(mid)
        results = [s.measures.get(mid) for s in report.scenarios]
        if all(r is None for r in results):
            left_out[mid] = "not computed in any scenario"
        elif any(r is None for r in results):
            left_out[mid] = "not computed for every scenario"
        elif any(r.value is None for r in results):  # type: ignore[union-attr]
            left_out[mid] = "withheld in safe mode for a scenario"
        elif any(measure_score(info, r.value) is None for r in results):  # type: ignore[union-attr]
            left_out[mid] = "its range is unbounded on its worse side and it has no scale to map it to [0, 1]"
        else:
            out.append(mid)
    return out
