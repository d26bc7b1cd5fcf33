"""Writing output files atomically: a temp file in the same folder, then rename."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import InputError


def checked_path(value: Any, what: str, error: type[Exception] = InputError) -> Path:
    """``value`` as a Path, or ``error`` with one sentence when it cannot name a file.

    ``what`` names it in the message ("the spec file", "the original file",
    "the output file").  Refused: a value that is not text or a path, a NUL
    character, a name longer than the system allows.
    """
    if not isinstance(value, (str, os.PathLike)) or isinstance(os.fspath(value), bytes):
        raise error(f"{what} must be given as a path (text or pathlib.Path), got {type(value).__name__}.")
    path = Path(value)
    shown = str(path) if len(str(path)) <= 80 else str(path)[:77] + "..."
    if "\x00" in str(path):
        raise error(f"{what} {shown!r} holds a NUL character, which no file name can; check the path.")
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise error(f"{what} {shown!r} is longer than the system allows for a file name; shorten it.") from None
    return path


def refuse_folder_name(value: Any, label: str) -> None:
    """InputError when the output path ``value`` ends in a separator: it names a folder, and ``Path`` would drop
    the separator (``--json newdir/`` wrote a file named newdir)."""
    if isinstance(value, str) and value.endswith(tuple(s for s in (os.sep, os.altsep) if s)):
        raise InputError(f"{label} {value} ends in {value[-1]!r}, which names a folder; {label} needs a file name, "
                         "not a folder.")


def missing_folder(path: Path) -> str:
    """Why the folder of the output ``path`` does not exist, as a message ends: ``path`` is a symbolic link into
    a folder that does not exist, a folder on its way is a file or a dangling link, or the folder is missing."""
    if os.path.islink(path):
        return (f"it is a symbolic link to {os.readlink(path)}, whose folder does not exist; remove the link or "
                "give another path.")
    for folder in path.parents:  # the nearest first, up to the first that exists
        if os.path.isfile(folder):
            return f"{folder} is a file, not a folder; give a path inside a folder."
        if os.path.islink(folder) and not os.path.exists(folder):
            return f"the folder {folder} is a symbolic link to {os.readlink(folder)}, which does not exist."
        if os.path.isdir(folder):
            break
    return f"the folder {path.parent} does not exist."


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
    refuse_folder_name(path, "the output file")
    path = checked_path(path, "the output file")
    # a pipe or a device (/dev/null, a shell's >(...)) is written into, never replaced; it is opened by the name
    # given: /dev/stdout of a pipe resolves to /proc/<pid>/fd/pipe:[n], which no one can open
    special = is_special(path)
    target = path if special else resolved(path)
    for other in protect:
        if _same_file(Path(other), target):
            raise InputError(f"the output file {path} is one of the input files; choose another output path.")
    if not special and not target.parent.is_dir():
        raise InputError(f"cannot write {path}: {missing_folder(path)}")
    mode = "wb" if isinstance(data, bytes) else "w"
    if special:
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


def path_kind(path: str | Path, label: str, error: type[Exception] = InputError) -> str:
    """``"missing"``, ``"folder"``, ``"file"`` or ``"other"`` (a pipe, device or socket); ``error`` (one sentence)
    when a folder on the way may not be entered: ``Path.exists`` then raises PermissionError."""
    import errno
    import stat

    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise error(f"{label} cannot be reached ({exc.strerror}); check the permissions of the folders on its "
                        "path.") from None
        if exc.errno == errno.ELOOP:
            raise error(f"{label} cannot be reached ({exc.strerror}: its symbolic links point at each other); give "
                        "the path of the file itself.") from None
        return "missing"  # a name too long: reading it says so
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


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
