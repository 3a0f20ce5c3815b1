"""The rulelang language server (`rulelang lsp`): diagnostics, hover, definition, references,
rename, completion and outline for `.rules` and `.scenario` files, in any editor that speaks
the Language Server Protocol. Needs the optional extra: `pip install 'rulelang[lsp]'`.

``rulelang.lsp.analysis`` answers the questions in plain data; ``rulelang.lsp.server`` speaks
the protocol (pygls) and is imported only when the server starts.
"""

from __future__ import annotations


def main() -> int:
    """Start the server on stdin/stdout; exits 1 with a message when pygls is not installed."""
    try:
        from .server import main as serve
    except ImportError as err:
        import sys

        print(f"rulelang lsp needs the optional extra: pip install 'rulelang[lsp]' ({err})", file=sys.stderr)
        return 1
    return serve()
