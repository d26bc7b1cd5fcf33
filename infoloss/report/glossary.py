"""Guidance per measure: what it measures in plain words, its formula and reference.

The report explains every measure from the registry.  A measure may give
``plain=``, ``formula=``, ``reference=``, ``score_scale=`` and ``unit=`` to
:func:`infoloss.registry.measure`; what it does not give comes from here:

* :data:`TEXTS` holds a plain-words sentence (and, where it matters, the
  variables it covers, the scale of its score and its unit) for the
  measures registered before these fields existed;
* the formula is the first ``.. math::`` block of the measure's docstring,
  shown as text with sub- and superscripts (:func:`latex_html`);
* the reference is the docstring's ``References`` section.

A measure registered later without any of this still gets its description,
its docstring formula and its docstring references.
"""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

from markupsafe import Markup

_DMT_WHAT = {
    "x": "the values, record by record", "xbar": "the variables' means", "v": "the covariances",
    "s": "the variances", "r": "the correlations", "rf": "the correlations between variables and principal components",
    "c": "the communalities with the first principal component", "f": "the principal-component loadings",
}
_DMT_HOW = {
    "mse": "mean squared difference of {}, original against protected",
    "mae": "mean absolute difference of {}, original against protected",
    "mv": "mean difference of {}, original against protected, relative to the original's size",
}

#: id -> plain words, the variables covered ("continuous", "categorical" or "all"), score scale, unit
TEXTS: dict[str, dict[str, Any]] = {
    "missing_values": {"plain": "How many values are missing in the protected file, per variable.",
                       "unit": "count"},
    "suppressions": {"plain": "How many values present in the original were blanked out in the protected file "
                              "(local suppression), per variable.", "unit": "count"},
    "records_changed": {"plain": "How many records have a different value than in the original, per variable; "
                                 "a blanked-out value counts as a change. The overall value adds the variables up "
                                 "(cells changed), so it can exceed the number of records.", "unit": "count"},
    "il1s": {"plain": "How far the protected continuous values are from the original ones, record by record, in "
                      "units of each variable's spread: 0 means unchanged, about 0.8 means as far apart as two "
                      "records drawn at random.", "covers": "continuous", "scale": 1.0},
    "lambda": {"plain": "The average distance between each original value and its protected value, over all "
                        "variables and records, each distance between 0 (unchanged) and 1."},
    "categorical_distance": {"plain": "The average distance between the original and the protected category of "
                                      "each record: 1 for another nominal category, the relative step for ordinal "
                                      "ones.", "covers": "categorical"},
    "eigen": {"plain": "How much the principal-component structure (the eigenvalues of the correlation matrix) of "
                       "the continuous variables changed, as a sum of relative changes.", "covers": "continuous"},
    "robust_eigen": {"plain": "Like eigen, with a robust covariance that outliers do not drive.",
                     "covers": "continuous"},
    "gamma": {"plain": "How much the joint correlation structure of the continuous variables changed (from the "
                       "inverse correlation matrices): 0 unchanged, 1 the most.", "covers": "continuous"},
    "ctbil": {"plain": "The average difference in counts per cell over all tables of up to K categorical "
                       "variables, in records per cell (with survey weights: in summed weights per cell).",
              "covers": "categorical"},
    "aad": {"plain": "The average absolute difference in counts per cell of the one- and two-way tables of the "
                     "categorical variables, in records per cell (with survey weights: in summed weights, i.e. "
                     "estimated population units, per cell).", "covers": "categorical"},
    "hellinger": {"plain": "How different the one- and two-way tables of the categorical variables are, on "
                           "proportions: 0 identical, 1 no overlap at all.", "covers": "categorical"},
    "kl_divergence": {"plain": "The information (in nats) lost when each categorical variable's protected "
                               "distribution is used in place of the original's.", "covers": "categorical"},
    "cramers_v_il": {"plain": "How much the strength of association (Cramér's V) of each pair of categorical "
                              "variables changed, relative to the original: 0.1 means by a tenth.",
                     "covers": "categorical", "scale": 1.0},
    "ebil": {"plain": "How uncertain a record's original category is once its released category is known, for "
                      "randomly changed (PRAM) variables: 0 certain, 1 no information left.",
             "covers": "categorical"},
    "chi2_distance": {"plain": "How different the one- and two-way tables of the categorical variables are, as a "
                               "chi-squared distance between their proportions: 0 identical, 1 no overlap at all (the default, "
                               "symmetric form; Pearson's form, form=\"pearson\", has no upper end).",
                      "covers": "categorical"},
    "ebil_joint": {"plain": "Like EBIL, but for several randomly changed (PRAM) variables together: how uncertain a "
                            "record's original combination of categories is once its released one is known.",
                   "covers": "categorical"},
    "ks": {"plain": "The largest gap between the original and the protected cumulative distribution of each "
                    "continuous variable: the largest share of records by which they differ below any value.",
           "covers": "continuous"},
    "ecdf_max": {"plain": "The largest difference between the two files' joint cumulative distributions, looked at "
                          "from every record of both files."},
    "ecdf_mean": {"plain": "The mean squared difference between the two files' joint cumulative distributions."},
    "pmse": {"plain": "How well a model can tell protected from original records: 0 not at all (no detectable "
                      "loss), 0.25 perfectly (for files of equal size)."},
    "pmse_ratio": {"plain": "pMSE relative to what a file drawn from the same distribution would give: about 1 "
                            "means no detectable difference, larger values a detectable one."},
    "pmse_std": {"plain": "pMSE in standard deviations above what a file drawn from the same distribution would "
                          "give: about 0 means no detectable difference."},
    "cluster_utility": {"plain": "How unevenly original and protected records fall into clusters found in both "
                                 "files together: 0 evenly."},
    "ldu_uni": {"plain": "Kocar's utility of each variable's distribution: 1 when a test cannot tell the protected "
                         "distribution from the original, lower when it can."},
    "aldu_uni": {"plain": "The average of Kocar's univariate utilities over the variables."},
    "ldu_biv": {"plain": "Kocar's utility of each pair of variables: 1 when the association keeps its significance, "
                         "direction and strength, lower when it does not."},
    "aldu_biv": {"plain": "The average of Kocar's bivariate utilities."},
    "grc": {"plain": "The share of variable pairs that remain when variables are removed: 1 when none is removed."},
    "gdu": {"plain": "Kocar's global data utility: the average of the univariate and bivariate utilities, "
                     "1 meaning no loss."},
}
_FORMULAS = {
    "missing_values": r"m_j = \sum_i 1[x'_{ij} \text{ missing}]",
    "suppressions": r"s_j = \sum_i 1[x_{ij} \text{ present},\ x'_{ij} \text{ missing}]",
    "records_changed": r"c_j = \sum_i 1[x'_{ij} \ne x_{ij}]",
    "categorical_distance": r"\frac{1}{n m} \sum_j \sum_i d(x_{ij}, x'_{ij}),\quad d = 1[x \ne x'] "
                            r"\text{ (nominal)},\ \frac{|c - c'|}{L - 1} \text{ (ordinal)}",
    "ldu_biv": r"LDU_{biv} = \text{significance kept} \times \text{direction kept} \times "
               r"\frac{\min(c_o, c_p)}{\max(c_o, c_p)}",
}
for _id, _formula in _FORMULAS.items():
    TEXTS[_id]["formula"] = _formula
for _what, _thing in _DMT_WHAT.items():
    for _how, _text in _DMT_HOW.items():
        TEXTS[f"{_what}_{_how}"] = {"plain": (_text.format(_thing) + ".").capitalize(), "covers": "continuous"}


def _entry(info: Any) -> dict[str, Any]:
    return TEXTS.get(info.id, {})


def plain(info: Any) -> str:
    """What the measure says, in plain words (falls back to the registry description)."""
    return getattr(info, "plain", "") or _entry(info).get("plain") or _sentence(info.description)


def covers(info: Any) -> str:
    """Which variables the measure speaks about: "continuous", "categorical" or "all"."""
    return _entry(info).get("covers", "all")


def score_scale(info: Any) -> float | None:
    """For a measure unbounded on its bad side: the loss that counts as complete (score 0); else None."""
    given = getattr(info, "score_scale", None)
    return given if given is not None else _entry(info).get("scale")


def is_count(info: Any) -> bool:
    """Whether the measure's values are numbers of records or cells."""
    return (getattr(info, "unit", "") or _entry(info).get("unit", "")) == "count"


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")) if text else ""


# ---------------------------------------------------------------------------
# docstring parts
# ---------------------------------------------------------------------------
def _doc(info: Any) -> str:
    return inspect.getdoc(info.func) or ""


def formula_latex(info: Any) -> str:
    """The formula as LaTeX: the measure's own, or the first ``.. math::`` block of its docstring."""
    given = getattr(info, "formula", "") or _entry(info).get("formula", "")
    if given:
        return given
    m = re.search(r"\.\. math::[ \t]*(.*)\n\n((?:[ \t]+.*\n|\n)*)", _doc(info) + "\n\n")
    if not m:
        return ""
    body = (m.group(1) + "\n" + m.group(2)).strip()
    return re.sub(r"\s+", " ", body)


def reference(info: Any) -> str:
    """The measure's references (its own, else its docstring's References section)."""
    given = getattr(info, "reference", "")
    if given:
        return given
    m = re.search(r"References\n-{4,}\n(.*?)(?:\n\n[A-Z][A-Za-z ]+\n-{4,}\n|\Z)", _doc(info), re.S)
    if not m:
        return ""
    text = re.sub(r"\s+", " ", m.group(1)).strip()
    return text.replace("``", "").replace("*", "")


# ---------------------------------------------------------------------------
# LaTeX as text
# ---------------------------------------------------------------------------
_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η", "lambda": "λ", "mu": "μ",
    "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "chi": "χ", "Delta": "Δ", "Sigma": "Σ", "sum": "Σ",
    "prod": "Π", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "in": "∈", "subseteq": "⊆",
    "cdot": "·", "cdots": "⋯", "dots": "…", "ldots": "…", "times": "×", "infty": "∞", "mid": "|",
    "lvert": "|", "rvert": "|", "|": "‖", "log": "log", "exp": "exp", "max": "max", "min": "min",
    "sup": "sup", "inf": "inf", "approx": "≈", "pm": "±", "to": "→", "quad": "  ", "qquad": "    ",
    ",": " ", ";": " ", " ": " ", "!": "", "left": "", "right": "", "big": "", "Big": "", "displaystyle": "",
    "{": "{", "}": "}", "_": "_", "%": "%", "&": "&",
}
_ACCENTS = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303"}


def latex_html(latex: str) -> Markup:
    r"""LaTeX of a formula as readable HTML text, with ``<sub>``/``<sup>``.

    Handles what the measures' docstrings use: fractions, roots, sums,
    Greek letters, accents, sub- and superscripts.  Unknown commands show
    their name.

    >>> str(latex_html(r"\frac{|x_{ij} - x'_{ij}|}{\sqrt{2}\,S_j}"))
    "(|x<sub>ij</sub> − x'<sub>ij</sub>|)/(√(2) S<sub>j</sub>) "
    >>> str(latex_html(r"\sum_{c} \hat F_O(z_i)^2"))
    'Σ<sub>c</sub> F̂<sub>O</sub>(z<sub>i</sub>)<sup>2</sup>'
    """
    return Markup(_Latex(latex).parse()).replace(" -", " −")


class _Latex:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def parse(self, stop: str = "") -> str:
        out: list[str] = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == stop:
                self.i += 1
                break
            if c == "\\":
                out.append(self._command())
            elif c == "{":
                self.i += 1
                out.append(self.parse("}"))
            elif c in "_^":
                self.i += 1
                tag = "sub" if c == "_" else "sup"
                out.append(f"<{tag}>{self._argument()}</{tag}>")
            else:
                self.i += 1
                out.append(_esc(c))
        return "".join(out)

    def _argument(self) -> str:
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1
        if self.i >= len(self.s):
            return ""
        c = self.s[self.i]
        if c == "{":
            self.i += 1
            return self.parse("}")
        if c == "\\":
            return self._command()
        self.i += 1
        return _esc(c)

    def _command(self) -> str:
        self.i += 1
        m = re.match(r"[A-Za-z]+|.", self.s[self.i:])
        if not m:
            return ""
        name = m.group(0)
        self.i += len(name)
        if name in ("frac", "tfrac", "dfrac"):
            a, b = self._argument(), self._argument()
            return f"{_group(a)}/{_group(b, strict=True)} "
        if name == "sqrt":
            a = self._argument()
            return f"√({a})"
        if name in ("mathrm", "text", "operatorname", "mathit", "mathbf"):
            return self._argument().replace("\\_", "_").replace("<sub></sub>", "_")
        if name in _ACCENTS:
            a = self._argument()
            return a[:1] + _ACCENTS[name] + a[1:] if a else ""
        if name in _SYMBOLS:
            return _esc(_SYMBOLS[name])
        return _esc(name)


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _group(text: str, strict: bool = False) -> str:
    """``text`` in parentheses unless it is one term (a denominator: one symbol or a number)."""
    if strict:
        bare = re.sub(r"<(su[bp])>.*?</\1>", "", text)
        simple = re.fullmatch(r"\d+|[^\W\d][\u0302\u0304\u0303']?", bare) is not None
    else:
        simple = re.fullmatch(r"[\w'.,\u0302\u0304\u0303]+", re.sub(r"<[^>]*>", "", text)) is not None
    return text if simple else f"({text})"
