"""Exceptions shared by every part of infoloss."""


class InputError(ValueError):
    """The input (a file, a spec, an argument) cannot be used.

    The message is one sentence saying what is wrong and how to fix it; the
    command line prints it without a traceback and exits with status 2.
    """


class SpecError(InputError):
    """The variable spec is invalid."""


class NotComputed(Exception):
    """A measure cannot be computed for this input; the message says why.

    ``compare`` records the message under ``not_computed`` instead of a value.
    """
