"""Adapters that hand a rule-file game to other tools: OpenSpiel (``openspiel.py``) and
PettingZoo (``pettingzoo.py``), both built on the shared encodings in ``encoding.py``.
They use only the public API (``interpreter.engine.api``) and need the optional extras
``rulelang[openspiel]`` / ``rulelang[pettingzoo]``."""
