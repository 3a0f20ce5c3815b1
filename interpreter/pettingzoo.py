"""``from interpreter.pettingzoo import env``: a rule-file game as a PettingZoo AEC environment.

Needs the optional extra ``rulelang[pettingzoo]``; see interpreter/adapters/pettingzoo.py."""

from .adapters.pettingzoo import RulesEnv, env

__all__ = ["RulesEnv", "env"]
