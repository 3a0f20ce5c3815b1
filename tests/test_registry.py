"""One registry drives the checker, the runtime and the docs: they must not drift apart."""

from conftest import ROOT

from interpreter.engine.runtime import EFFECTS, FUNCTIONS
from rulelang import registry
from rulelang.docgen import PAGES


def test_every_effect_and_function_has_one_implementation():
    assert set(EFFECTS) == {b.name for b in registry.EFFECTS}
    assert set(FUNCTIONS) == {b.name for b in registry.FUNCTIONS}


def test_every_builtin_has_a_doc_and_typed_params():
    for b in registry.EFFECTS + registry.FUNCTIONS + registry.NAMES:
        assert b.doc and b.doc.endswith("."), b.name
        for p in b.params:
            assert p.type and p.doc, (b.name, p.name)


def test_generated_reference_pages_are_current():
    for name, make in PAGES.items():
        on_disk = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert on_disk == make() + "\n", f"docs/{name} is stale: run `python -m rulelang.docgen`"


def test_every_error_code_is_documented_and_used():
    from rulelang.diagnostics import CODES
    used = set()
    for path in (ROOT / "rulelang").glob("*.py"):
        text = path.read_text()
        used |= {code for code in CODES if f'"{code}"' in text and path.name != "diagnostics.py"}
    unused = set(CODES) - used
    assert not unused, f"codes never raised: {sorted(unused)}"
