"""Files: atomic writes (every file the suite writes goes to a hidden temp file beside its target and is renamed into
place, so nothing is ever half-written, and a failed write leaves neither the target nor the temp file) and file
digests."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError

FILE_SYSTEM_ERRNOS = frozenset(
    {
        errno.EACCES,
        errno.EPERM,
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EROFS,
        errno.EIO,
        errno.EFBIG,
        errno.ENAMETOOLONG,
        errno.ENOENT,
        errno.ENOTDIR,
        errno.EISDIR,
    }
)
"""The errors of a file that cannot be written (permissions, a full disk or quota, a read-only or failing disk, a
bad path): an ``OSError`` naming no file is the output's only with one of these."""


def _blames_output(exc: OSError, tmp: Path, out: Path) -> bool:
    """Whether an error raised while the output is written is the output's: it names the temp file, the target or a
    folder above it, or it names no file and is a file-system error (a full disk while the temp file is written).
    A network error (``ConnectionRefusedError``, a client's ``ConnectionError`` without an errno) or a file of the
    writer's own (a scorer's missing tokenizer) is not."""
    if not isinstance(exc.filename, (str, bytes, os.PathLike)):  # no file named (None, or a descriptor)
        return exc.errno in FILE_SYSTEM_ERRNOS
    named = os.path.abspath(os.fsdecode(exc.filename))
    return named in {os.path.abspath(tmp), *(os.path.abspath(p) for p in (out, *out.parents))}


def write_atomic(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Have ``write(tmp)`` write the file, then rename it onto ``path``: ``tmp`` is a hidden file beside the target
    with the target's suffix (the writer may infer the format from it), and the parent folders are created.

    Raises:
        SuiteInputError: ``path`` is a directory or cannot be written (:func:`_blames_output`: permissions, a full
            disk); the target is then unchanged and no temp file is left. Any other error ``write`` raises (a
            network error of a scorer ``write`` runs, say) leaves the same and propagates as it is.
    """
    out = Path(path)
    tmp = out.with_name(f".{out.stem}.tmp-{os.getpid()}{out.suffix}")
    try:
        if out.is_dir():
            raise SuiteInputError(f"Output '{out}' is a directory: pass a file path.")
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise SuiteInputError(
                f"Output '{out}' cannot be written: a file stands where its folder should be."
            ) from None
        write(tmp)
        tmp.replace(out)
    except OSError as exc:
        if not _blames_output(exc, tmp, out):  # not the output's: no reason to blame its path
            raise
        raise SuiteInputError(f"Output '{out}' cannot be written ({exc.strerror or exc}).") from None
    finally:
        with contextlib.suppress(OSError):  # gone after the rename; never made when its folder cannot be
            tmp.unlink(missing_ok=True)
    return out


def write_text_atomic(path: str | Path, text: str | Iterable[str]) -> Path:
    """Write ``text`` (a string or string chunks) to ``path`` as :func:`write_atomic` writes (UTF-8)."""

    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.writelines([text] if isinstance(text, str) else text)

    return write_atomic(path, write)


def write_figure_atomic(fig: Any, path: str | Path, dpi: int = 110, **savefig: Any) -> Path:
    """Save a matplotlib figure at ``path`` as :func:`write_atomic` writes, in the format its suffix names (PNG,
    PDF, SVG, ...); ``savefig`` are further ``Figure.savefig`` arguments (e.g. ``bbox_inches="tight"``)."""
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    return write_atomic(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=dpi, **savefig))


def output_folder(out: str | Path, command: str) -> Path:
    """``out`` as a folder to write into (created), or one sentence naming ``command``'s ``--out``: an existing
    file, or a path that cannot be created or written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SuiteInputError(f"{command}: --out '{out}' is an existing file: pass a folder.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SuiteInputError(f"{command}: --out '{out}' cannot be created ({exc.strerror or exc}).") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise SuiteInputError(f"{command}: --out '{out}' is not writable.")
    return out


def sha256_file(path: str | Path) -> str:
    """The hex sha256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
