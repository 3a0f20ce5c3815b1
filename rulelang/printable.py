"""Text from rule files, logs and saves made safe to print on a terminal.

A game name, an option's doc, a prompt, a label or a log line may hold raw control characters
(ESC starts a terminal escape sequence that can rewrite the screen or the window title, BEL
rings, a carriage return hides what came before it, a bidi override reverses what follows).
``printable`` writes each as a visible escape (``\\x1b``, ``\\u202e``); every command prints
through it (``interpreter/tools/cli.py`` ``echo``, the terminal player's output).
"""

from __future__ import annotations

import re

# C0 controls but newline and tab, DEL, C1 controls, and the Unicode bidi and line controls.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, one_line: bool = False) -> str:
    """`text` with every control character written as a visible escape (newlines and tabs kept,
    unless `one_line`)."""
    s = text if isinstance(text, str) else str(text)
    return (_CONTROL_LINE if one_line else _CONTROL).sub(_escape, s)
