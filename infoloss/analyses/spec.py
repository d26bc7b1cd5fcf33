"""The ``analyses:`` section of the spec: the user's own estimates, regressions and scales.

The YAML is documented in ``docs/spec.md`` (section "Analyses").  ``Spec.analyses`` keeps the section as given
(so that it round-trips); :func:`check_analyses` validates it when the spec is loaded and :func:`parse_analyses`
turns it into the frozen objects the analyses code runs on.  Formulas and ``where`` filters are Python
expressions (patsy syntax); they are parsed, never executed, here: every name in them must be a variable of the
spec, ``np``/``numpy`` functions of :data:`NUMPY_FUNCTIONS` (arithmetic and mathematics only: numpy also reads and
writes files) or one of patsy's helpers (``C``, ``I``, ``Q``, ...), and attribute access is allowed on ``np`` only —
so a spec cannot run arbitrary code.
"""

from __future__ import annotations

import ast
import difflib
import functools
import math
import numbers
from dataclasses import dataclass, field
from typing import Any

from ..errors import SpecError, excerpt

STATISTICS = ("mean", "total", "proportion", "ratio", "quantile", "median", "gini", "arpr", "qsr")
#: statistics with a Taylor-linearised variance; the others (laeken's indicators, quantiles) are bootstrapped
LINEARISED = ("mean", "total", "proportion", "ratio")
FAMILIES = ("gaussian", "binomial", "poisson")
CI_METHODS = ("auto", "bootstrap")  # auto: linearisation where it applies (LINEARISED), bootstrap otherwise
SECTION_KEYS = ("estimates", "regressions", "scales", "ci")
ESTIMATE_KEYS = ("statistic", "variable", "by", "denominator", "p", "categories", "name")
REGRESSION_KEYS = ("name", "formula", "family", "where", "weighted")
SCALE_KEYS = ("name", "items")
CI_KEYS = ("level", "method", "replicates", "seed")
#: callables a formula or filter may use besides ``np.<function>`` (patsy's helpers and a few numpy shortcuts)
FORMULA_FUNCTIONS = ("C", "I", "Q", "center", "standardize", "scale", "Treatment", "Sum", "Poly", "Diff",
                     "Helmert", "log", "log10", "log1p", "exp", "sqrt", "abs")
NUMPY_NAMES = ("np", "numpy")
#: the numpy names a formula or filter may use (``np.log``, ``np.pi``, ...): pure arithmetic, mathematical,
#: comparison and rounding functions and constants.  Any other name is refused: numpy also holds functions that
#: read or write files (np.load, np.savetxt, np.memmap, np.fromfile) and, through np.load(allow_pickle=True),
#: run code, which a spec must never reach.
NUMPY_FUNCTIONS = frozenset({
    "abs", "absolute", "fabs", "sign", "sqrt", "cbrt", "square", "power", "float_power", "reciprocal",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "hypot", "deg2rad", "rad2deg", "degrees", "radians",
    "floor", "ceil", "trunc", "rint", "round", "around", "fix", "clip", "minimum", "maximum", "fmin", "fmax",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "negative", "positive", "mod", "fmod",
    "remainder", "heaviside",
    "where", "isnan", "isfinite", "isinf", "isin", "logical_and", "logical_or", "logical_not", "logical_xor",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "nan_to_num", "digitize",
    "mean", "median", "std", "var", "sum", "min", "max", "amin", "amax", "nanmean", "nanmedian", "nanstd",
    "nanvar", "nansum", "nanmin", "nanmax", "quantile", "percentile", "nanquantile", "nanpercentile",
    "pi", "e", "inf", "nan", "euler_gamma",
})


@dataclass(frozen=True)
class Estimate:
    """One declared estimate (a ``quantile`` with several ``p`` becomes one Estimate per p)."""

    statistic: str
    variable: str
    by: tuple[str, ...] = ()
    denominator: str | None = None
    p: float | None = None  # quantile probability, or ARPR's fraction of the median (laeken default 0.6)
    categories: tuple[str, ...] | None = None  # proportion: the categories to report (default all)
    name: str = ""

    @property
    def label(self) -> str:
        """A short readable id: ``mean(income)``, ``quantile(income, 0.25)``, ``ratio(money / income)``."""
        if self.name:
            return self.name
        if self.statistic == "ratio":
            return f"ratio({self.variable} / {self.denominator})"
        if self.statistic == "quantile":
            return f"quantile({self.variable}, {self.p:g})"
        if self.statistic == "arpr" and self.p != 0.6:
            return f"arpr({self.variable}, {self.p:g})"
        return f"{self.statistic}({self.variable})"

    @property
    def variables(self) -> tuple[str, ...]:
        return (self.variable,) + ((self.denominator,) if self.denominator else ()) + self.by


@dataclass(frozen=True)
class Regression:
    """One declared regression: a patsy formula fitted on every file."""

    name: str
    formula: str
    family: str = "gaussian"
    where: str | None = None
    weighted: bool = True
    variables: tuple[str, ...] = ()  # every spec variable the formula and the filter name


@dataclass(frozen=True)
class Scale:
    """A declared scale: items whose sum is an index (Cronbach's alpha)."""

    name: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class CI:
    """How confidence intervals are computed."""

    level: float = 0.95
    method: str = "auto"
    replicates: int = 200
    seed: int = 1


@dataclass(frozen=True)
class Analyses:
    """The parsed ``analyses:`` section."""

    estimates: tuple[Estimate, ...] = ()
    regressions: tuple[Regression, ...] = ()
    scales: tuple[Scale, ...] = ()
    ci: CI = field(default_factory=CI)


# ---------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------
def check_analyses(raw: Any, spec: Any) -> None:
    """Validate the raw ``analyses:`` section against the spec's variables; SpecError with one sentence."""
    if raw is not None:
        parse_analyses(raw, spec)


def parse_analyses(raw: Any, spec: Any) -> Analyses:
    """The section as :class:`Analyses`; SpecError (one sentence) for anything wrong in it."""
    if raw is None:
        return Analyses()
    if not isinstance(raw, dict):
        raise SpecError("'analyses' in the spec must be a mapping with 'estimates', 'regressions', 'scales' and/or 'ci'.")
    _unknown(raw, SECTION_KEYS, "the 'analyses' section")
    ctx = _Context(spec)
    estimates = tuple(e for i, item in enumerate(_list(raw, "estimates")) for e in _estimates(item, i, ctx))
    labels = [(e.label, e.by) for e in estimates]
    dup = next((lab for lab in labels if labels.count(lab) > 1), None)
    if dup is not None:  # their rows would share one key, and the later would replace the earlier
        raise SpecError(f"two estimates are labelled {dup[0]!r}" + (f" by {', '.join(dup[1])}" if dup[1] else "")
                        + "; give each its own name (name: ...), or remove the repeated one.")
    regressions = tuple(_regression(item, i, ctx) for i, item in enumerate(_list(raw, "regressions")))
    names = [r.name for r in regressions]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise SpecError(f"two regressions are named {dup!r}; give every regression its own name.")
    scales = tuple(_scale(item, i, ctx) for i, item in enumerate(_list(raw, "scales")))
    snames = [s.name for s in scales]
    dup = next((n for n in snames if snames.count(n) > 1), None)
    if dup is not None:
        raise SpecError(f"two scales are named {dup!r}; give every scale its own name.")
    return Analyses(estimates, regressions, scales, _ci(raw.get("ci")))


# ---------------------------------------------------------------------------
# the parts
# ---------------------------------------------------------------------------
class _Context:
    """The spec's variables as the analyses section may use them."""

    def __init__(self, spec: Any) -> None:
        self.variables = dict(spec.variables)

    def variable(self, name: Any, where: str, *, kinds: tuple[str, ...], what: str) -> str:
        if not isinstance(name, str) or not name:
            raise SpecError(f"{where} needs a variable name, got {name!r}.")
        var = self.variables.get(name)
        if var is None:
            raise SpecError(f"{where} names {name!r}, which is not a variable of the spec{_hint(name, self.variables)}.")
        if not var.analysed:
            raise SpecError(f"{where} names {name!r}, which is the {var.role} column; use an analysed variable.")
        if var.scale not in kinds:
            raise SpecError(f"{where} needs {what}, but {name!r} is {var.scale}.")
        return name

    def analysed(self) -> set[str]:
        return {n for n, v in self.variables.items() if v.analysed}


def _list(raw: dict, key: str) -> list:
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise SpecError(f"'analyses: {key}' must be a list of mappings (one per {key[:-1]}).")
    return value


def _unknown(item: dict, allowed: tuple[str, ...], where: str) -> None:
    bad = [k for k in item if k not in allowed]
    if bad:
        raise SpecError(f"unknown key {bad[0]!r} in {where}; allowed keys are {', '.join(allowed)}.")


def _estimates(item: Any, i: int, ctx: _Context) -> list[Estimate]:
    where = f"estimate {i + 1} of 'analyses'"
    if not isinstance(item, dict):
        raise SpecError(f"{where} must be a mapping like {{statistic: mean, variable: income}}.")
    _unknown(item, ESTIMATE_KEYS, where)
    statistic = item.get("statistic")
    if statistic not in STATISTICS:
        raise SpecError(f"{where} has statistic {statistic!r}; use one of {', '.join(STATISTICS)}.")
    where = f"estimate {i + 1} ({statistic}) of 'analyses'"
    numeric = ("continuous", "ordinal")
    if statistic == "proportion":
        variable = ctx.variable(item.get("variable"), where, kinds=("nominal", "ordinal"), what="a nominal or ordinal variable")
    else:
        variable = ctx.variable(item.get("variable"), where, kinds=numeric, what="a continuous or ordinal variable")
    by = item.get("by", [])
    by = [by] if isinstance(by, str) else by
    if not isinstance(by, list):
        raise SpecError(f"'by' of {where} must be a variable name or a list of them.")
    by_t = tuple(ctx.variable(b, f"'by' of {where}", kinds=("nominal", "ordinal"), what="a nominal or ordinal variable")
                 for b in by)
    if len(set(by_t)) != len(by_t):
        raise SpecError(f"'by' of {where} lists a variable twice.")
    denominator = None
    if statistic == "ratio":
        if "denominator" not in item:
            raise SpecError(f"{where} needs a 'denominator' (the ratio is variable / denominator).")
        denominator = ctx.variable(item["denominator"], f"the denominator of {where}", kinds=numeric,
                                   what="a continuous or ordinal variable")
    elif "denominator" in item:
        raise SpecError(f"{where} has a 'denominator', which only a ratio takes.")
    categories = None
    if "categories" in item:
        if statistic != "proportion":
            raise SpecError(f"{where} has 'categories', which only a proportion takes.")
        cats = item["categories"]
        cats = [cats] if isinstance(cats, (str, bool)) or _number(cats) else cats
        if not isinstance(cats, list) or not cats:
            raise SpecError(f"'categories' of {where} must be a category or a non-empty list of them.")
        from ..spec import normalise_label

        categories = tuple(normalise_label(c) for c in cats)
    name = item.get("name", "")
    if not isinstance(name, str):
        raise SpecError(f"'name' of {where} must be text.")
    if "name" in item and not name.strip():
        raise SpecError(f"'name' of {where} is empty; give the estimate a label, or leave 'name' out for the "
                        "default one (such as mean(income)).")
    probs = _probabilities(item, statistic, where)
    return [Estimate(statistic, variable, by_t, denominator, p, categories, _name_of_one(name, p, len(probs)))
            for p in probs]


def _name_of_one(name: str, p: float | None, n_probs: int) -> str:
    """The name of one of ``n_probs`` quantiles declared together: ``deciles (p=0.1)`` when there are several."""
    return f"{name} (p={p:g})" if name and n_probs > 1 else name


def _probabilities(item: dict, statistic: str, where: str) -> list[float | None]:
    if statistic not in ("quantile", "arpr"):
        if "p" in item:
            raise SpecError(f"{where} has 'p', which only quantile (probability) and arpr (share of the median) take.")
        return [0.5] if statistic == "median" else [None]
    if statistic == "arpr":
        p = item.get("p", 0.6)
        if not _number(p) or not 0 < p <= 1:
            raise SpecError(f"'p' of {where} (the poverty line as a share of the median) must be a number in (0, 1].")
        return [_float(p)]
    if "p" not in item:
        raise SpecError(f"{where} needs 'p', the probability (e.g. p: 0.25 or p: [0.1, 0.9]).")
    ps = item["p"] if isinstance(item["p"], list) else [item["p"]]
    if not ps or not all(_number(p) and 0 <= p <= 1 for p in ps):
        raise SpecError(f"'p' of {where} must be a probability from 0 to 1 or a list of them.")
    return [_float(p) for p in dict.fromkeys(ps)]


def _regression(item: Any, i: int, ctx: _Context) -> Regression:
    where = f"regression {i + 1} of 'analyses'"
    if not isinstance(item, dict):
        raise SpecError(f"{where} must be a mapping like {{name: wages, formula: 'np.log(income) ~ age'}}.")
    _unknown(item, REGRESSION_KEYS, where)
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpecError(f"{where} needs a 'name' (text), used to label its results.")
    where = f"regression {name!r}"
    family = item.get("family", "gaussian")
    if family not in FAMILIES:
        raise SpecError(f"{where} has family {family!r}; use one of {', '.join(FAMILIES)}.")
    weighted = item.get("weighted", True)
    if not isinstance(weighted, bool):
        raise SpecError(f"'weighted' of {where} must be true or false.")
    formula = item.get("formula")
    if not isinstance(formula, str) or "~" not in formula:
        raise SpecError(f"{where} needs a 'formula' like 'y ~ x1 + C(x2)' (response ~ terms).")
    names = formula_variables(formula, ctx.variables, where)
    filt = item.get("where")
    if filt is not None:
        if not isinstance(filt, str) or not filt.strip():
            raise SpecError(f"'where' of {where} must be an expression like 'income > 0'.")
        names = names + tuple(n for n in expression_variables(filt, ctx.variables, f"the 'where' of {where}", True)
                              if n not in names)
    for n in names:
        ctx.variable(n, where, kinds=("nominal", "ordinal", "continuous"), what="a variable")
    return Regression(name.strip(), formula, family, filt, weighted, names)


def _scale(item: Any, i: int, ctx: _Context) -> Scale:
    where = f"scale {i + 1} of 'analyses'"
    if not isinstance(item, dict):
        raise SpecError(f"{where} must be a mapping like {{name: wellbeing, items: [q1, q2, q3]}}.")
    _unknown(item, SCALE_KEYS, where)
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpecError(f"{where} needs a 'name' (text).")
    items = item.get("items")
    if not isinstance(items, list) or len(items) < 2:
        raise SpecError(f"scale {name!r} needs 'items': a list of at least two variables.")
    if len(set(map(str, items))) != len(items):
        raise SpecError(f"scale {name!r} lists an item twice.")
    items_t = tuple(ctx.variable(v, f"scale {name!r}", kinds=("ordinal", "continuous"),
                                 what="ordinal or continuous items") for v in items)
    return Scale(name.strip(), items_t)


def _ci(raw: Any) -> CI:
    if raw is None:
        return CI()
    if not isinstance(raw, dict):
        raise SpecError("'analyses: ci' must be a mapping like {level: 0.95, method: auto, replicates: 200, seed: 1}.")
    _unknown(raw, CI_KEYS, "'analyses: ci'")
    level = raw.get("level", 0.95)
    if not _number(level) or not 0 < level < 1:
        raise SpecError(f"'analyses: ci: level' must be a number between 0 and 1 (e.g. 0.95), got {level!r}.")
    method = raw.get("method", "auto")
    if method not in CI_METHODS:
        raise SpecError(f"'analyses: ci: method' must be one of {', '.join(CI_METHODS)}, got {method!r}.")
    replicates = raw.get("replicates", 200)
    if not _whole(replicates) or not 20 <= replicates <= 100_000:
        raise SpecError(f"'analyses: ci: replicates' must be a whole number from 20 to 100000, got {replicates!r}.")
    seed = raw.get("seed", 1)
    if not _whole(seed) or seed < 0:
        raise SpecError(f"'analyses: ci: seed' must be a whole number of at least 0, got {seed!r}.")
    return CI(_float(level), method, int(replicates), int(seed))


# ---------------------------------------------------------------------------
# formulas and filters
# ---------------------------------------------------------------------------
_EVALUATED = "infoloss: evaluated"  # a ParseNode type that stands for an operand already evaluated


@functools.lru_cache(maxsize=64)
def model_desc(formula: str) -> Any:
    """patsy's ``ModelDesc.from_formula(formula)``, evaluated bottom-up without recursion.

    patsy's evaluator recurses once per operator, and ``y ~ x0 + x1 + ...`` is a chain of them, so a formula
    of about 480 terms exceeded Python's recursion limit (a RecursionError, exit 1).  Here each operator is
    evaluated by patsy's own rules once its operands are, the evaluated operands standing in as leaves (the
    rules look only at the type of a leaf operand: 0, 1 or a number), which gives the same ModelDesc.
    Cached: patsy's terms take O(terms²) to collect (3,000 terms: about 3 s) and every file's fit reads the
    formula again; patsy never changes a ModelDesc.
    """
    from patsy.desc import Evaluator
    from patsy.parse_formula import ParseNode, parse_formula

    evaluator = Evaluator()
    evaluator.add_op(_EVALUATED, 0, lambda _, node: node.token)
    tree = parse_formula(formula)
    values: dict[int, Any] = {}
    stack = [tree]
    while stack:
        node = stack[-1]
        pending = [a for a in node.args if a.args and id(a) not in values]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        args = [ParseNode(_EVALUATED, values.pop(id(a)), [], a.origin) if a.args else a for a in node.args]
        values[id(node)] = evaluator.eval(ParseNode(node.type, node.token, args, node.origin),
                                          require_evalexpr=node is not tree)
    return values[id(tree)]


def formula_variables(formula: str, variables: dict, where: str) -> tuple[str, ...]:
    """The spec variables a patsy formula names; SpecError for a syntax error or an unknown or unsafe name."""
    import patsy

    try:
        desc = model_desc(formula)
    except patsy.PatsyError as exc:
        first = str(exc).splitlines()[0].rstrip(".")
        raise SpecError(f"the formula of {where} cannot be read ({first}); check its brackets and operators.") from None
    if len(desc.lhs_termlist) != 1 or not desc.lhs_termlist[0].factors:
        raise SpecError(f"the formula of {where} must have exactly one response on the left of '~'.")
    if not [t for t in desc.rhs_termlist if t.factors] and not desc.rhs_termlist:
        raise SpecError(f"the formula of {where} has no terms on the right of '~'.")
    names: list[str] = []
    for term in desc.lhs_termlist + desc.rhs_termlist:
        for factor in term.factors:
            for name in expression_variables(factor.code, variables, f"the formula of {where}"):
                if name not in names:
                    names.append(name)
    return tuple(names)


def expression_variables(code: str, variables: dict, where: str, is_filter: bool = False) -> list[str]:
    """The spec variables a Python expression names, checked for safety (see the module docstring);
    ``is_filter``: a ``where``, read with ``&`` and ``|`` binding after comparisons (:func:`where_code`)."""
    try:
        tree = _filter_tree(code) if is_filter else ast.parse(code.strip(), mode="eval")
    except SyntaxError as exc:
        if "too many nested" not in str(exc.msg):  # Python's parser stops at 200 nested brackets
            raise SpecError(f"{where} is not a valid expression: {excerpt(code)}.") from None
        tree = None
    except (RecursionError, MemoryError):  # Python's parser, on 100,000 signs or brackets in a row
        tree = None
    if tree is None or _depth(tree) > MAX_EXPRESSION_DEPTH:
        raise SpecError(f"{where} is nested too deeply (more than {MAX_EXPRESSION_DEPTH} levels of brackets, "
                        "signs or operators in a row, such as a + b + c + ...); simplify it.")
    found: list[str] = []
    for node in ast.walk(tree):
        _check_node(node, variables, where, found)
    return found


def _depth(tree: ast.AST) -> int:
    """The depth of a syntax tree, found without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _filter_tree(expression: str) -> ast.Expression:
    """The syntax tree of a ``where`` with its operator tokens ``&`` and ``|`` read as ``and`` and ``or``."""
    import io
    import tokenize

    tokens = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(expression.strip()).readline):
            if tok.type == tokenize.OP and tok.string in ("&", "|"):
                tok = tok._replace(type=tokenize.NAME, string="and" if tok.string == "&" else "or")
            tokens.append((tok.type, tok.string))
    except (tokenize.TokenError, IndentationError) as exc:
        raise SyntaxError(str(exc)) from None
    return ast.parse(tokenize.untokenize(tokens), mode="eval")


def where_code(expression: str) -> Any:
    """The compiled ``where`` filter, with ``&`` and ``|`` binding after the comparisons, as in R and pandas' query.

    Python binds ``&`` before ``>``, so ``income > 0 & age >= 15`` would be
    the chained comparison ``income > (0 & age) >= 15``.  Here the operator
    tokens ``&`` and ``|`` (not those inside quoted text) become ``and`` and
    ``or``, which Python binds after comparisons, and those, like any
    ``and``/``or`` written, are then compiled as the element-wise ``&`` and
    ``|``: ``(income > 0) & (age >= 15)``.

    >>> import numpy as np
    >>> income, age = np.array([5.0, -1.0, 3.0]), np.array([20.0, 30.0, 10.0])
    >>> eval(where_code("income > 0 & age >= 15"), {"__builtins__": {}}, {"income": income, "age": age}).tolist()
    [True, False, False]
    """
    tree = _filter_tree(expression)

    class _ElementWise(ast.NodeTransformer):
        def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
            self.generic_visit(node)
            op = ast.BitAnd if isinstance(node.op, ast.And) else ast.BitOr
            return _balanced(node.values, op)

    tree = ast.fix_missing_locations(_ElementWise().visit(tree))
    return compile(tree, "<where>", "eval")


def _balanced(values: list[ast.AST], op: type) -> ast.AST:
    """``values[0] op values[1] op ...`` as a balanced tree: the same result for the associative ``&`` and
    ``|``, but log₂(n) deep, where the chain of 20,000 conditions was too deep for Python to compile."""
    while len(values) > 1:
        pairs = [ast.BinOp(left=a, op=op(), right=b) for a, b in zip(values[::2], values[1::2])]
        values = pairs + values[len(pairs) * 2:]
    return values[0]


_ALLOWED_NODES = (ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp,
                  ast.Call, ast.Attribute, ast.keyword, ast.Tuple, ast.List, ast.operator, ast.unaryop, ast.cmpop,
                  ast.boolop)


#: the largest constant exponent or shift, and list repetition, a formula or filter may hold (10**1000 takes
#: microseconds; 10**10**8 is a 100-million-digit integer that Python computes for minutes, 1 << 10**10 takes 1.3 GB)
MAX_CONSTANT_EXPONENT = 1000
#: the most bits a constant a formula or filter computes may have (a product of powers: 10**999 * 10**999 * ...)
MAX_CONSTANT_BITS = 10_000
#: the deepest a formula's term or a filter may nest (brackets, signs, a chain a + b + c ...): Python's own parser
#: and compiler recurse, and fail near 1,000 levels (a RecursionError) or on 100,000 signs (a MemoryError)
MAX_EXPRESSION_DEPTH = 200


def _constant_size_bomb(node: ast.BinOp) -> bool:
    """A power or shift by a large or computed constant, a constant of more than :data:`MAX_CONSTANT_BITS`
    bits, or a list literal repeated many times: all judged without computing them."""
    if isinstance(node.op, (ast.Pow, ast.LShift)) and _large(node.right):
        return True
    if isinstance(node.op, ast.Mult):
        sides = (node.left, node.right)
        repeated = (ast.List, ast.Tuple)
        if any((isinstance(a, repeated) or (isinstance(a, ast.Constant) and isinstance(a.value, (str, bytes))))
               and _large(b) for a, b in (sides, sides[::-1])):
            return True
    bits = _bits(node)
    return bits is not None and bits > MAX_CONSTANT_BITS


def _large(node: ast.AST) -> bool:
    """A constant above :data:`MAX_CONSTANT_EXPONENT`, or one computed by a power or shift (not computed here)."""
    bits = _bits(node)
    if bits is None:
        return False
    if bits > 64 or any(isinstance(c, ast.BinOp) and isinstance(c.op, (ast.Pow, ast.LShift)) for c in ast.walk(node)):
        return True
    value = _value(node)
    return isinstance(value, (int, float)) and abs(value) > MAX_CONSTANT_EXPONENT


def _bits(node: ast.AST) -> float | None:
    """An upper bound of log₂ of the largest number computed for a constant expression (its value or a
    part of it), found without computing it; None when ``node`` is not a constant number expression."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, int):
            return float(max(abs(value).bit_length(), 1))
        if isinstance(value, (float, complex)):
            size = abs(value)
            return math.log2(size) + 1 if math.isfinite(size) and size > 1 else 1.0
        return None
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        inner = _bits(node.operand)
        return None if inner is None else inner + 1
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _bits(node.left), _bits(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Mult):
        return left + right
    if isinstance(node.op, (ast.Pow, ast.LShift)):
        power = _value(node.right) if right <= 64 else None
        if not isinstance(power, (int, float)):
            return math.inf
        return left * max(abs(power), 1) + 1 if isinstance(node.op, ast.Pow) else left + max(power, 0) + 1
    return max(left, right) + 1


def _value(node: ast.AST) -> Any:
    """The value of a small constant expression (None when it fails: a division by zero)."""
    try:
        return eval(compile(ast.Expression(body=node), "<constant>", "eval"), {"__builtins__": {}}, {})  # noqa: S307
    except Exception:  # noqa: BLE001 (not a size bomb; the formula fails where it is evaluated)
        return None


def _check_node(node: ast.AST, variables: dict, where: str, found: list[str]) -> None:
    if not isinstance(node, _ALLOWED_NODES):
        raise SpecError(f"{where} uses {type(node).__name__.lower()} syntax, which a formula may not; "
                        "use arithmetic, comparisons and np functions.")
    if isinstance(node, ast.Attribute):
        if not (isinstance(node.value, ast.Name) and node.value.id in NUMPY_NAMES) or node.attr.startswith("_"):
            raise SpecError(f"{where} uses the attribute {node.attr!r}; only numpy functions (np.log, ...) are allowed.")
        if node.attr not in NUMPY_FUNCTIONS:
            raise SpecError(f"{where} uses np.{node.attr}, which a formula may not: only numpy's arithmetic, "
                            "mathematical and comparison functions (np.log, np.sqrt, np.where, np.clip, ...) are allowed.")
    elif isinstance(node, ast.Name):
        if node.id in variables:
            if node.id not in found:
                found.append(node.id)
        elif node.id not in FORMULA_FUNCTIONS and node.id not in NUMPY_NAMES and node.id not in ("True", "False"):
            raise SpecError(f"{where} names {node.id!r}, which is not a variable of the spec{_hint(node.id, variables)}.")
    elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot))
                                               for op in node.ops):
        raise SpecError(f"{where} uses 'in' or 'is', which compare whole columns; write np.isin(x, [...]) "
                        "(~np.isin(...) for 'not in') or x == value.")
    elif isinstance(node, ast.Compare) and len(node.ops) > 1:
        raise SpecError(f"{where} chains comparisons (such as 0 < x < 10); write (0 < x) & (x < 10).")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        raise SpecError(f"{where} uses 'not', which applies to a whole column; write ~(...) for each record.")
    elif isinstance(node, ast.BinOp) and _constant_size_bomb(node):
        raise SpecError(f"{where} builds a number or list too large to compute (a power of a power, an exponent or "
                        f"shift above {MAX_CONSTANT_EXPONENT}, a product of numbers of more than {MAX_CONSTANT_BITS:,} "
                        "bits in all, or a list repeated many times); write the value itself.")
    elif isinstance(node, ast.Call):
        func = node.func
        for keyword in node.keywords:
            if keyword.arg in ("out", "copy") or keyword.arg is None:  # in-place writes into the data's arrays
                raise SpecError(f"{where} passes {keyword.arg or '**'}= to a function, which a formula may not "
                                "(it would change the data in place).")
        if isinstance(func, ast.Name) and func.id == "Q":
            arg = node.args[0] if node.args else None
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                raise SpecError(f"{where} uses Q() without a quoted variable name.")
            if arg.value not in variables:
                raise SpecError(f"{where} names {arg.value!r}, which is not a variable of the spec"
                                f"{_hint(arg.value, variables)}.")
            if arg.value not in found:
                found.append(arg.value)
        elif not (isinstance(func, ast.Attribute) or (isinstance(func, ast.Name) and func.id in FORMULA_FUNCTIONS)):
            raise SpecError(f"{where} calls something that is not a numpy function or a formula helper "
                            f"({', '.join(FORMULA_FUNCTIONS[:6])}, ...).")


def _hint(name: str, variables: Any) -> str:
    from ..spec import unicode_hint, unicode_twin

    twin = unicode_twin(name, variables)
    if twin is not None:
        return f" ({unicode_hint(twin, name)})"
    match = difflib.get_close_matches(str(name), [str(v) for v in variables], n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _number(value: Any) -> bool:
    """A number (numpy's scalars too, as a notebook gives them: np.float32(0.9) is no float), not a bool (True is
    an int in Python; numpy's bool is no number)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _float(value: Any) -> float:
    """``value`` as a float; a numpy scalar through its shortest text, so that np.float32(0.9) is 0.9 (not
    0.8999999761581421, the float32 nearest to 0.9)."""
    return float(str(value)) if hasattr(value, "dtype") else float(value)


def _whole(value: Any) -> bool:
    """A whole number (numpy's integer scalars too), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
