"""Output files that appear complete or not at all.

Every file tcplab writes (summary.json, parquet files, plots, reports, sweep manifests) goes
to a temporary name in the same directory (``.NAME.tmp-PID-N.EXT``) and is renamed into
place when complete: a process killed mid-write (SIGKILL, power aside) leaves the earlier
file or none, never half of one. A write error (e.g. disk full) removes the temporary file
and raises :class:`OSError` whose ``filename`` is the file meant, not the temporary one.
Packet captures are written the same way by the core (``stats/pcap.rs``).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

__all__ = ["PARQUET_OPTIONS", "atomic_path", "copy_file", "is_temporary", "remove_stale_temporaries", "write_bytes",
           "write_parquet", "write_text"]  # fmt: skip

#: Fixed parquet writer settings: identical frames give identical bytes.
PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "compression_level": 3, "statistics": True}

_counter = itertools.count()
_TEMP = re.compile(r"^\..+\.tmp-(\d+)(-\d+)?(\.[^.]*)?$")


def is_temporary(name: str) -> bool:
    """Whether a file name is one of the temporary names used here (or by the core's pcap
    writer): such a file is never a result."""
    return _TEMP.match(name) is not None


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path`` (same suffix, so writers that pick the format
    from it still work); when the block ends without error it is renamed to ``path``.
    A ``path`` that exists and is not a regular file (a FIFO, ``/dev/stdout``) is yielded
    as it is."""
    path = Path(path)
    if path.exists() and not path.is_file():  # a FIFO, a device (/dev/stdout): write it directly
        yield path
        return
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}-{next(_counter)}{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise OSError(e.errno, e.strerror or str(e), str(path)) from e
        raise


def write_text(path: str | Path, text: str) -> None:
    """Write UTF-8 text to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write bytes to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_parquet(df: pl.DataFrame, path: str | Path) -> None:
    """Write ``df`` to ``path`` atomically, with :data:`PARQUET_OPTIONS`.

    The file is encoded in memory and written as bytes: polars reports a failed write
    (disk full) as a ``ComputeError`` without an errno, which would reach the user as a
    traceback; written here it is an :class:`OSError` naming the file."""
    buf = io.BytesIO()
    df.rechunk().write_parquet(buf, **PARQUET_OPTIONS)
    write_bytes(path, buf.getbuffer())


def copy_file(src: str | Path, dst: str | Path) -> None:
    """Copy ``src`` to ``dst`` atomically."""
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)


def remove_stale_temporaries(directory: str | Path) -> None:
    """Remove temporary files in ``directory`` left by processes that no longer run (a
    killed run's leftovers)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for e in entries:
        m = _TEMP.match(e.name)
        if m is None or not e.is_file(follow_symlinks=False):
            continue
        pid = int(m.group(1))
        if pid != os.getpid() and not _alive(pid):
            with contextlib.suppress(OSError):
                os.unlink(e.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
