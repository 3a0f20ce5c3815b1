"""interpreter: the checked program -> compiled game -> running state -> agents and commands.

The public API is ``load`` and the classes it leads to; see ``interpreter.engine.api``.
"""

from .engine.api import Action, Decision, Game, IllegalAction, LogEntry, OptionInfo, SaveError, State, load

__all__ = ["Action", "Decision", "Game", "IllegalAction", "LogEntry", "OptionInfo", "SaveError", "State", "load"]
