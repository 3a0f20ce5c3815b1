"""Shared test set-up: hypothesis profiles and the games under test.

Profiles: `dev` (default, fast), `ci` (what .ci/run uses), `thorough` (many examples; select
with HYPOTHESIS_PROFILE=thorough, and run the slow marker with `pytest -m slow`).
"""

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings

# The load cache (interpreter/engine/cache.py) of a test run lives apart from the user's own.
os.environ.setdefault("RULELANG_CACHE_DIR", tempfile.mkdtemp(prefix="rulelang-test-cache-"))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"



def define_source(generated, define: str) -> str:
    """The generated function of a define, by its rule-file name. Every body is generated first:
    a load without the cache generates (and names) each one when it is first needed."""
    sources = generated.source
    name = generated.define_names[define]
    return next(src for src in sources if src.startswith(f"def {name}("))


settings.register_profile("dev", max_examples=15, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
