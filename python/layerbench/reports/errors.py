"""Bad input in a results file: ResultsError, whose text is one line naming the file and what
is wrong (the command line prints it and exits 2)."""
from __future__ import annotations

import re
from pathlib import Path




def one_line(text: str) -> str:
    """Text for a one-line message: control characters (a line break in a quoted name, a NUL) as
    \\xNN escapes."""
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


class ResultsError(Exception):
    """Bad input: the message is one line, starting with the file's name."""

    def __init__(self, path: str | Path, what: str):
        super().__init__(one_line(f"{path}: {what}"))
        self.path = str(path)
        self.what = one_line(what)
