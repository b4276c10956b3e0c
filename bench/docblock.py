"""Replace a measured block of a docs page: the text between `<!-- NAME:begin ... -->` and
`<!-- NAME:end -->`, so that the command that measures a table is the one that writes it."""

from __future__ import annotations

import re
import sys
from pathlib import Path


def write_block(doc: Path, name: str, command: str, body: str) -> int:
    """Write ``body`` into ``doc``'s block ``name`` (with ``command`` in its opening
    marker); 0, or 1 with one line on stderr when the page has no such block."""
    block = f"<!-- {name}:begin (written by `{command}`) -->\n{body}\n<!-- {name}:end -->"
    text = doc.read_text(encoding="utf-8")
    new, n = re.subn(rf"<!-- {name}:begin.*?<!-- {name}:end -->", lambda _: block, text, flags=re.S)
    if n != 1:
        print(f"error: {doc}: no {name} block to replace", file=sys.stderr)
        return 1
    doc.write_text(new, encoding="utf-8")
    return 0
