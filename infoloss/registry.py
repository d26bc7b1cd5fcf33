"""The measure registry: every measure, its metadata, and the result type.

A measure is a plain function ``f(pair: EncodedPair, **options) -> MeasureResult``
registered with :func:`measure`.  The registry is the single list of measures:
the command line (``infoloss measures``), the JSON result, the terminal summary
and the HTML report are all generated from it.

The decorated function can also be called like a scikit-learn metric, with two
DataFrames and an optional spec: ``il1s(original_df, protected_df, spec)``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

FAMILIES = {
    "record": "Record-level losses",
    "moments": "Moments: means, (co)variances, correlations",
    "tables": "Contingency tables",
    "distributions": "Distributions",
    "propensity": "Propensity and cluster scores",
    "gdu": "Global data utility (Kocar 2018)",
}


@dataclass(frozen=True)
class MeasureInfo:
    """Metadata of a registered measure (SDMetrics-style goal and range)."""

    id: str
    family: str
    description: str
    range: tuple[float | None, float | None]  # None: unbounded on that side
    better: str  # "lower" | "higher"
    needs_pairing: bool
    func: Callable[..., "MeasureResult"] = field(repr=False, compare=False)
    headline: bool = False  # shown in summary tables
    order: int = 0

    @property
    def range_text(self) -> str:
        low, high = self.range
        return f"[{'−∞' if low is None else _fmt(low)}, {'∞' if high is None else _fmt(high)}]"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family,
            "description": self.description,
            "range": [self.range[0], self.range[1]],
            "better": self.better,
            "needs_pairing": self.needs_pairing,
            "headline": self.headline,
        }


def _fmt(x: float) -> str:
    return f"{x:g}"


@dataclass
class MeasureResult:
    """The result of one measure for one original/protected pair.

    Attributes
    ----------
    value : float
        The headline number; always finite.
    by_variable : dict or None
        Per-variable values, keyed by variable name in spec order.
    by_pair : dict or None
        Per-pair values, keyed ``"A|B"`` with A before B in spec order.
    details : dict
        Anything else: test statistics, p-values, parameters, conventions used.
    """

    value: float
    by_variable: dict[str, float] | None = None
    by_pair: dict[str, float] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.value = float(self.value)
        if not math.isfinite(self.value):
            raise ValueError(f"a measure value must be finite, got {self.value}")

    @property
    def statistic(self) -> float:
        """Alias of ``value`` (scipy.stats style)."""
        return self.value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value}
        if self.by_variable is not None:
            out["by_variable"] = self.by_variable
        if self.by_pair is not None:
            out["by_pair"] = self.by_pair
        if self.details:
            out["details"] = self.details
        return out


REGISTRY: dict[str, MeasureInfo] = {}


def measure(
    id: str,
    *,
    family: str,
    description: str,
    range: tuple[float | None, float | None],
    better: str,
    needs_pairing: bool,
    headline: bool = False,
) -> Callable[[Callable[..., MeasureResult]], Callable[..., MeasureResult]]:
    """Register a measure function under ``id``.

    The returned function accepts either an ``EncodedPair`` or
    ``(original_df, protected_df, spec=None)`` followed by the measure's options.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    if better not in ("lower", "higher"):
        raise ValueError("better must be 'lower' or 'higher'")

    def decorate(func: Callable[..., MeasureResult]) -> Callable[..., MeasureResult]:
        if id in REGISTRY:
            raise ValueError(f"measure {id!r} is registered twice")

        @functools.wraps(func)
        def public(pair_or_original: Any, protected: Any = None, spec: Any = None, **options: Any) -> MeasureResult:
            pair = _as_pair(pair_or_original, protected, spec)
            if needs_pairing and not pair.paired:
                from .errors import NotComputed

                raise NotComputed("it needs record-paired files, but the files are not paired (pairing: none)")
            return func(pair, **options)

        REGISTRY[id] = MeasureInfo(
            id=id,
            family=family,
            description=description,
            range=range,
            better=better,
            needs_pairing=needs_pairing,
            func=public,
            headline=headline,
            order=len(REGISTRY),
        )
        public.info = REGISTRY[id]  # type: ignore[attr-defined]
        return public

    return decorate


def _as_pair(pair_or_original: Any, protected: Any, spec: Any) -> Any:
    from .pair import EncodedPair, encode_pair

    if isinstance(pair_or_original, EncodedPair):
        if protected is not None:
            raise TypeError("pass either an EncodedPair or two DataFrames, not both")
        return pair_or_original
    if protected is None:
        raise TypeError("pass the original and the protected DataFrame")
    return encode_pair(pair_or_original, protected, spec)


def load_all() -> None:
    """Import every measure module so that the registry is complete."""
    import importlib

    importlib.import_module(f"{__package__}.measures")  # registers on import


def registered() -> Iterator[MeasureInfo]:
    """All registered measures, by family (in ``FAMILIES`` order) then registration order."""
    load_all()
    families = list(FAMILIES)
    return iter(sorted(REGISTRY.values(), key=lambda m: (families.index(m.family), m.order)))


def get(id: str) -> MeasureInfo:
    load_all()
    return REGISTRY[id]


def markdown_table() -> str:
    """The registry as a Markdown table, one row per measure (the table in docs/measures.md)."""
    rows = ["| id | family | what it measures | range | better | needs pairing |", "| --- | --- | --- | --- | --- | --- |"]
    for m in registered():
        description = m.description.replace("|", "\\|")
        rows.append(
            f"| `{m.id}` | {m.family} | {description} | {m.range_text} | {m.better} | {'yes' if m.needs_pairing else 'no'} |"
        )
    return "\n".join(rows) + "\n"
