"""Writing output files atomically: a temp file in the same folder, then rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import InputError


def resolved(path: str | Path) -> Path:
    """``Path(path).resolve()``, or the absolute path when its symbolic links loop (Python 3.11's resolve
    raises RuntimeError there; reading or writing such a path then fails with a clear OSError)."""
    path = Path(path)
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(path))


def write_atomic(path: str | Path, data: str | bytes, *, protect: tuple[str | Path, ...] = ()) -> Path:
    """Write ``data`` to ``path`` so that an existing file is replaced only when the new one is complete.

    ``protect`` lists input files that must never be overwritten.
    """
    path = Path(path)
    target = resolved(path)
    for other in protect:
        if _same_file(Path(other), target):
            raise InputError(f"the output file {path} is one of the input files; choose another output path.")
    if not target.parent.is_dir():
        raise InputError(f"cannot write {path}: the folder {path.parent} does not exist.")
    mode = "wb" if isinstance(data, bytes) else "w"
    if is_special(target):  # a pipe or a device (/dev/null, a shell's >(...)): written into, never replaced
        try:
            with open(target, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as handle:
                handle.write(data)
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror or exc}.") from None
        return path
    fd, tmp = _temporary_beside(path, target)
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}.") from None
        raise
    return path


def is_special(path: str | Path) -> bool:
    """Whether ``path`` exists and is a pipe, a device or a socket: an atomic write (a new file renamed over
    it) would replace it by a regular file (/dev/null itself, when run as root), so it is written into."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:  # not there (or not reachable): the write itself says so
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_writable(path: str | Path) -> None:
    """InputError (one sentence) unless a file can be created beside ``path`` (the folder is writable, the
    name not too long), as :func:`write_atomic` will; checked before any work is done."""
    path = Path(path)
    fd, tmp = _temporary_beside(path, resolved(path))
    os.close(fd)
    Path(tmp).unlink(missing_ok=True)


def _temporary_beside(path: Path, target: Path) -> tuple[int, str]:
    """A new temporary file in ``target``'s folder, named after it; OSError (read-only, /proc, a name too
    long, no permission) as an InputError."""
    try:
        return tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}.") from None


def _same_file(a: Path, b: Path) -> bool:
    """The same path after resolving links, or two names (hard links) of one existing file."""
    if resolved(a) == resolved(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False
