"""A starter ``analyses:`` block for ``infoloss spec``, commented out for the user to edit.

It proposes means of the continuous variables, proportions of the key variables (or of the nominal ones with
few categories when none is a key), the Gini coefficient of the most income-like variable and a regression
template, with the ``ci`` defaults.  Every line starts with ``#``: nothing is computed until the user removes
the comment signs, and what they then keep is validated like any spec.

Examples
--------
>>> import pandas as pd
>>> from infoloss.spec import infer_spec
>>> df = pd.DataFrame({"income": [float(i * 37 % 101) for i in range(60)], "sex": ["f", "m"] * 30,
...                    "age": [float(20 + i % 50) for i in range(60)]})
>>> print(starter_block(infer_spec(df), df))  # doctest: +ELLIPSIS
# analyses:   # your own estimates and regressions, compared before/after protection (docs/spec.md)
#   estimates:
#     - {statistic: mean, variable: income, by: [sex]}
#     - {statistic: mean, variable: age}
#     - {statistic: proportion, variable: sex}
#     - {statistic: gini, variable: income}
#   regressions:
#     - {name: model1, formula: "np.log(income) ~ age + C(sex)", where: "income > 0"}
#   ci: {level: 0.95, method: auto, replicates: 200, seed: 1}
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

#: names of income-like variables, the most income-like first
INCOME_RES = (re.compile(r"(?i)(income|^inc$|wage|salar|earn)"), re.compile(r"(?i)(revenue|expend|consum|pay$)"))
MAX_MEANS = 5
MAX_PROPORTIONS = 4
MAX_CATEGORIES = 12


def starter_block(spec, df: pd.DataFrame) -> str:
    """The commented YAML lines of a starter ``analyses:`` section ('' when nothing can be proposed)."""
    continuous = [v.name for v in spec.analysed if v.scale == "continuous"]
    categorical = [v.name for v in spec.analysed if v.categorical and _few(df, v.name)]
    keys = [n for n in categorical if spec.variables[n].role == "key"]
    proportions = (keys or [n for n in categorical if spec.variables[n].scale == "nominal"])[:MAX_PROPORTIONS]
    if not continuous and not proportions:
        return ""
    income = _income_like(df, continuous)
    domain = next((n for n in categorical if spec.variables[n].scale == "nominal"), None)
    lines = ["# analyses:   # your own estimates and regressions, compared before/after protection (docs/spec.md)",
             "#   estimates:"]
    for k, name in enumerate(_ordered(continuous, income)[:MAX_MEANS]):
        by = f", by: [{_key(domain)}]" if k == 0 and domain else ""
        lines.append(f"#     - {{statistic: mean, variable: {_key(name)}{by}}}")
    lines += [f"#     - {{statistic: proportion, variable: {_key(n)}}}" for n in proportions]
    if income is not None:
        lines.append(f"#     - {{statistic: gini, variable: {_key(income)}}}")
    regression = _regression(income, continuous, categorical)
    if regression:
        lines += ["#   regressions:", f"#     - {regression}"]
    lines.append("#   ci: {level: 0.95, method: auto, replicates: 200, seed: 1}")
    return "\n".join(lines) + "\n"


def _few(df: pd.DataFrame, name: str) -> bool:
    try:
        return name in df.columns and 2 <= df[name].nunique(dropna=True) <= MAX_CATEGORIES
    except TypeError:  # lists or mappings (a nested Parquet column): the spec's note says to remove it
        return False


def _income_like(df: pd.DataFrame, continuous: list[str]) -> str | None:
    """A continuous variable named like income, else the most right-skewed non-negative one."""
    for pattern in INCOME_RES:
        named = [n for n in continuous if pattern.search(n)]
        if named:
            return named[0]
    best, best_skew = None, 1.0
    for name in continuous:
        x = pd.to_numeric(df[name], errors="coerce").to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        if x.size < 3 or x.min() < 0 or x.std() == 0:
            continue
        skew = float(np.mean(((x - x.mean()) / x.std()) ** 3))
        if skew > best_skew:
            best, best_skew = name, skew
    return best


def _ordered(names: list[str], first: str | None) -> list[str]:
    return ([first] if first in names else []) + [n for n in names if n != first]


def _regression(income: str | None, continuous: list[str], categorical: list[str]) -> str:
    response = income or (continuous[0] if continuous else None)
    if response is None or not _in_formula(response):
        return ""
    continuous = [n for n in continuous if _in_formula(n)]
    terms = [_term(n) for n in continuous if n != response][:2] + \
        [f"C({_term(n)})" for n in categorical if _in_formula(n)][:1]
    if not terms:
        return ""
    lhs = f"np.log({_term(response)})" if income else _term(response)
    where = f', where: "{_term(response)} > 0"' if income else ""
    return f'{{name: model1, formula: "{lhs} ~ {" + ".join(terms)}"{where}}}'


def _in_formula(name: str) -> bool:
    """Whether ``name`` can stand in Q('...') inside the formula's double-quoted YAML text."""
    return name.isprintable() and not any(ch in name for ch in "'\"\\")


def _term(name: str) -> str:
    """A variable in a formula: bare when it is an identifier, else quoted with Q()."""
    return name if name.isidentifier() else f"Q('{name}')"


def _key(name: str) -> str:
    """A variable name in flow-style YAML, on one line (a newline in the name escaped: the block is a comment);
    quoted when YAML would read it as something else (``yes``, ``null``)."""
    import yaml

    from ..spec import yaml_text

    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) and yaml.safe_load(name) == name
    return name if plain else yaml_text(name)
