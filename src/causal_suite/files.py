"""Files: atomic writes (every file the suite writes goes to a temp file beside its target and is renamed into
place, so nothing is ever half-written, and a failed write leaves neither the target nor the temp file) and file
digests."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError


def _write_atomic(path: str | Path, chunks: Iterable[str] | Iterable[bytes], binary: bool) -> Path:
    out = Path(path)
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    try:
        if out.is_dir():
            raise SuiteInputError(f"Output '{out}' is a directory: pass a file path.")
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise SuiteInputError(
                f"Output '{out}' cannot be written: a file stands where its folder should be."
            ) from None
        with tmp.open("wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            fh.writelines(chunks)
        tmp.replace(out)
    except OSError as exc:
        raise SuiteInputError(f"Output '{out}' cannot be written ({exc.strerror or exc}).") from None
    finally:
        with contextlib.suppress(OSError):  # gone after the rename; never made when its folder cannot be
            tmp.unlink(missing_ok=True)
    return out


def write_text_atomic(path: str | Path, text: str | Iterable[str]) -> Path:
    """Write ``text`` (a string or string chunks) to ``path`` via a temp file beside it and a rename, creating the
    parent folders.

    Raises:
        SuiteInputError: ``path`` is a directory or cannot be written (permissions, a full disk); the target is
            then unchanged and no temp file is left. Any error raised while ``text`` is produced leaves the same.
    """
    return _write_atomic(path, [text] if isinstance(text, str) else text, binary=False)


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` as :func:`write_text_atomic` writes text."""
    return _write_atomic(path, [data], binary=True)


def write_figure_atomic(fig: Any, path: str | Path, dpi: int = 110) -> Path:
    """Save a matplotlib figure as PNG at ``path`` through a hidden file beside it and a rename."""
    out = Path(path)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        fig.savefig(tmp, format="png", dpi=dpi)
        tmp.replace(out)
    except OSError as exc:
        raise SuiteInputError(f"Output '{out}' cannot be written ({exc.strerror or exc}).") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
    return out


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
