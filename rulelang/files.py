"""Reading files that someone else wrote: rule files, game logs, saves.

Every file the project reads on behalf of a user goes through ``read_regular``: a regular file
only (never a device such as /dev/zero, a named pipe that would block, or a folder), at most
``limit`` bytes, UTF-8 text without NUL bytes. Every JSON document goes through ``strict_json``:
no duplicate keys (the last one would silently win), no NaN or Infinity, no number of more than
``MAX_JSON_DIGITS`` digits, no nesting deeper than ``MAX_JSON_DEPTH``.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any

MAX_JSON_DIGITS = 24  # seeds and generator states are below 2**64 (20 digits)
MAX_JSON_DEPTH = 64


class FileRefused(ValueError):
    """A file or document that is not read, with the reason in plain words."""


def read_regular(path: str, limit: int) -> str:
    """The text of a regular file of at most ``limit`` bytes; FileRefused says why not."""
    try:
        info = os.stat(path)
    except (OSError, ValueError) as e:
        raise FileRefused(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"cannot read {path}: not a regular file")
    if info.st_size > limit:
        raise FileRefused(f"the file is {info.st_size} bytes; the limit is {limit}")
    try:
        # O_NONBLOCK: if the file was swapped for a named pipe since the stat, opening it does not block.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise FileRefused(f"cannot read {path}: not a regular file")
            raw = f.read(limit + 1)
    except OSError as e:
        raise FileRefused(f"cannot read {path}: {e.strerror or e}") from None
    if len(raw) > limit:
        raise FileRefused(f"the file is over the limit of {limit} bytes")
    if b"\x00" in raw:
        raise FileRefused("the file is not UTF-8 text")
    try:
        return raw.decode("utf-8-sig")  # a byte-order mark, as some editors write, is dropped
    except UnicodeDecodeError:
        raise FileRefused("the file is not UTF-8 text") from None


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise FileRefused(f"the key {json.dumps(key)[:60]} appears twice in one object")
        out[key] = value
    return out


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise FileRefused(f"a number of {len(text)} digits (at most {MAX_JSON_DIGITS})")
    return int(text)


def _constant(name: str) -> Any:
    raise FileRefused(f"{name} is not a number JSON allows")


def _too_deep(value: Any) -> bool:
    """Whether a parsed document nests deeper than MAX_JSON_DEPTH (walked without recursion)."""
    todo = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        items = v.values() if isinstance(v, dict) else v
        todo.extend((x, depth + 1) for x in items if isinstance(x, (list, dict)))
    return False


def strict_json(text: str) -> Any:
    """Parse JSON strictly (see the module's doc); FileRefused or FileRefused-like errors say why."""
    try:
        doc = json.loads(text, object_pairs_hook=_pairs, parse_int=_int, parse_constant=_constant)
    except FileRefused:
        raise
    except json.JSONDecodeError as e:
        raise FileRefused(f"not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise FileRefused(f"nested more than {MAX_JSON_DEPTH} levels deep") from None
    except (TypeError, ValueError) as e:
        raise FileRefused(f"not JSON ({str(e)[:200]})") from None
    if isinstance(doc, (list, dict)) and _too_deep(doc):
        raise FileRefused(f"nested more than {MAX_JSON_DEPTH} levels deep")
    return doc
