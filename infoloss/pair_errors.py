"""The encoding's refusals of values it cannot read: one sentence each, saying what is wrong and how to fix it
(:mod:`infoloss.pair` raises them)."""

from __future__ import annotations

import datetime
import re
from typing import Any

import numpy as np

from .errors import InputError, counted, excerpt
from .spec import Spec, VariableSpec
from .spec_infer import DECIMAL_COMMA

__all__ = ["all_missing_in_original", "not_a_number", "not_scalar", "nothing_to_analyse", "number_writing",
           "THOUSANDS"]


def all_missing_in_original(var: VariableSpec) -> str:
    """The refusal of a variable missing in every record of the original (for a key variable, what removing it changes)."""
    text = f"variable {var.name!r} is missing in every record of the original file; remove it from the spec."
    if var.role == "key":
        text += (" As a key variable it matches every record: removing it leaves fk and the frequency risk measures "
                 "unchanged with their defaults (missing_keys=wildcard, alpha=1), but not sdcMicro's fk "
                 "(missing_keys=sdcmicro), fk with alpha below 1, or the SUDA scores, which depend on the number "
                 "of key variables.")
    return text


def nothing_to_analyse(spec: Spec) -> str:
    """The refusal of a spec without an analysed variable; for one inferred, the columns it left out and why."""
    if not spec.left_out:
        return "the spec lists no variable to analyse; give at least one variable a scale."
    name, why = next(iter(spec.left_out.items()))
    others = len(spec.left_out) - 1
    also = f", and {counted(others, 'other column')} ('infoloss spec' says why for each)" if others else ""
    return f"the original file has no column to analyse: the inferred spec leaves out {name!r} ({why}){also}."


def not_a_number(var: VariableSpec, which: str, example: Any) -> InputError:
    """The error for ``example``, a value of continuous ``var`` in the ``which`` file that is not a number."""
    from .spec_infer import TIME_OF_DAY

    if isinstance(example, datetime.time) or (isinstance(example, str) and TIME_OF_DAY.fullmatch(example)):
        # a Parquet or Arrow time64 column, Python times, or times written as text (07:30)
        return InputError(f"variable {var.name!r} holds times of day (such as {example}) in the {which} file, which "
                          "infoloss does not read as numbers; convert them to numbers first, e.g. seconds since "
                          "midnight (hour * 3600 + minute * 60 + second), or declare the variable nominal.")
    if isinstance(example, str) and _DATE_TEXT.fullmatch(example):
        return InputError(f"variable {var.name!r} holds dates written as text (such as {example}) in the {which} "
                          "file, which infoloss does not read as numbers; give the file's dates as dates (Parquet, "
                          "Stata, SPSS), or as numbers such as days since 1970-01-01, or declare the variable "
                          "nominal.")
    if not isinstance(example, str) and not np.isscalar(example):  # a list or mapping (nested Parquet, Arrow)
        return not_scalar(var)
    written = number_writing(str(example))
    if written:
        return InputError(f"variable {var.name!r} is continuous in the spec but the {which} file writes its numbers "
                          f"with {written}")
    coded = sorted(set(var.recode or {}) & {"top", "bottom"})
    if coded:  # '80+' for a value top-coded at 80: the code is a number
        return InputError(
            f"variable {var.name!r} has 'recode: {coded[0]}' but the {which} file has the text value "
            f"{excerpt(example)}; write each {coded[0]}-coded value as the number it was coded to "
            f"({var.recode[coded[0]]!r}), or describe text classes with 'recode: {{breaks: [...]}}'.")
    return InputError(
        f"variable {var.name!r} is continuous in the spec but the {which} file has the text value "
        f"{excerpt(example)} in it; declare it nominal or ordinal, or list {excerpt(example)} as a missing code."
    )


#: a date written as text: 1990-12-22, 22.12.1990, 12/22/1990 (with a time of day after it or not)
_DATE_TEXT = re.compile(r"\s*(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\s*")

THOUSANDS = re.compile(r"\s*[-+]?\d{1,3}(?:([,'\s\u00a0\u202f])\d{3})(?:\1\d{3})*(?:\.\d+)?\s*")


def number_writing(text: str) -> str | None:
    """The end of a sentence "... writes its numbers with" when ``text`` is a number written with a decimal comma
    or with thousands separators (digit groups), else None."""
    if DECIMAL_COMMA.fullmatch(text):
        return (f"a decimal comma ({text!r}); write them with a decimal point (export the file with '.' as the "
                "decimal separator).")
    if THOUSANDS.fullmatch(text):
        return (f"thousands separators ({text!r}); remove them (export the file without digit "
                "grouping).")
    return None


def not_scalar(var: VariableSpec) -> InputError:
    return InputError(
        f"variable {var.name!r} holds values that are not single numbers or text (such as lists from a nested "
        "Parquet or Arrow column); flatten it into ordinary columns or leave it out of the spec."
    )
