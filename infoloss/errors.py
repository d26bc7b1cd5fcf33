"""Exceptions shared by every part of infoloss, and the wording of counts in their messages."""

from typing import Any


class InputError(ValueError):
    """The input (a file, a spec, an argument) cannot be used.

    The message is one sentence saying what is wrong and how to fix it; the
    command line prints it without a traceback and exits with status 2.
    """


class SpecError(InputError):
    """The variable spec is invalid."""


def counted(k: int, noun: str, plural: str = "") -> str:
    """``k`` with ``noun``, in the plural (``plural``, or ``noun`` + "s") unless ``k`` is 1.

    Examples
    --------
    >>> counted(1, "negative value"), counted(1200, "record"), counted(2, "class", "classes")
    ('1 negative value', '1,200 records', '2 classes')
    """
    return f"{k:,} {noun if k == 1 else plural or noun + 's'}"


def shortened(items: list[str], noun: str, first: int = 5, plural: str = "") -> str:
    """``items`` joined by commas; a list longer than ``first`` + 2 as its first ``first``, how many more, and its
    last (a message stays one readable line).

    Examples
    --------
    >>> shortened(["0", "20", "40"], "break")
    '0, 20, 40'
    >>> shortened([str(i) for i in range(100_001)], "break")
    '0, 1, 2, 3, 4, ... 99,995 more breaks ..., 100000'
    """
    if len(items) <= first + 2:
        return ", ".join(items)
    many = f"more {plural}" if plural else ""
    return f"{', '.join(items[:first])}, ... {counted(len(items) - first - 1, 'more ' + noun, many)} ..., {items[-1]}"


def excerpt(value: Any, limit: int = 80) -> str:
    """``value`` as a message quotes it (``repr``), cut to about ``limit`` characters with its length (an
    expression or a value can have thousands).

    >>> excerpt("age > 16"), excerpt("a + " * 50, 30), excerpt([[1, 2]])
    ("'age > 16'", "'a + a + a ' ... (200 characters)", '[[1, 2]]')
    """
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(value)
    cut = text[: limit - 20]
    return f"{repr(cut) if isinstance(value, str) else cut} ... ({len(text):,} characters)"


class NotComputed(Exception):
    """A measure cannot be computed for this input; the message says why.

    ``compare`` records the message under ``not_computed`` instead of a value.
    """
