"""``from interpreter.openspiel import load_game``: a rule-file game as an OpenSpiel game.

Needs the optional extra ``rulelang[openspiel]``; see interpreter/adapters/openspiel.py."""

from .adapters.openspiel import RulesGame, RulesState, load_game

__all__ = ["RulesGame", "RulesState", "load_game"]
