"""The docs show rule text that parses: every ```rules block in docs/ is a valid fragment."""

import re

import pytest
from conftest import ROOT

from rulelang.parser import parse_text

BLOCKS = []
for path in sorted((ROOT / "docs").glob("*.md")):
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"```rules\n(.*?)```", text, re.S):
        BLOCKS.append((f"{path.name}:{text[: m.start()].count(chr(10)) + 1}", m.group(1)))


@pytest.mark.parametrize("where, block", BLOCKS, ids=[w for w, _ in BLOCKS] or None)
def test_rules_block_parses(where, block):
    parse_text(block, where)
