"""Files: atomic text writes (every file the suite writes goes to a temp file beside its target and is renamed
into place, so nothing is ever half-written) and file digests."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def write_text_atomic(path: str | Path, text: str | Iterable[str]) -> Path:
    """Write ``text`` (a string or string chunks) to ``path`` via ``<path>.tmp`` and a rename, creating the
    parent folders."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.writelines([text] if isinstance(text, str) else text)
    tmp.replace(out)
    return out


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` as :func:`write_text_atomic` writes text."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(out)
    return out


def sha256_file(path: str | Path) -> str:
    """The hex sha256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
