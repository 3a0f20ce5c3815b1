"""rulelang: the language. Source text -> parse tree -> checked syntax tree.

Entry points: ``parse_text`` (one file), ``load_sources`` (a game and its includes),
``check`` (the checker). Errors are ``RuleError`` with diagnostics.
"""

from .diagnostics import Diagnostic, RuleError, RuleRuntimeError
from .parser import load_sources, parse_text

__all__ = ["Diagnostic", "RuleError", "RuleRuntimeError", "load_sources", "parse_text"]
