"""Explicit chance: every random event waits for an outcome with its probability.

In a game started with ``chance="explicit"`` a shuffle draws no random numbers: it only records
that nobody knows the order of the zone's cards (``GameState.unordered``: zone key -> [first
position, how many]). When the rules read that order (a draw takes the top card, `first`,
`position`, a loop over the zone), the next unknown place is filled by a chance outcome: one
uniform pick among the cards whose order nobody knows, copies alike counted as one outcome.
So a 60-card deck costs one small chance node per card drawn, never 60! outcomes.

How an outcome is taken without making every op restartable: a decision (or the setup) is
carried out from the state before it, with the outcomes chosen so far on a tape
(``GameState.tape``). The first place with no outcome on the tape stops the run
(``NeedChance``); the state goes back to before the decision and waits at a chance node. Applying
an outcome adds it to the tape and carries the decision out again, which now gets one place
further. Runs are deterministic, so each replay retraces the same steps.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from rulelang.diagnostics import RuleRuntimeError

if TYPE_CHECKING:
    from .runtime import Machine

CHANCE = -1  # the seat number of chance in actions and decisions


class NeedChance(Exception):  # noqa: N818 - a signal, not an error
    """The run reached a place of unknown order that has no outcome on the tape yet."""

    def __init__(self, key: str, cards: list[int]):
        super().__init__(key)
        self.key = key
        self.cards = cards


def shuffled(m: Machine, key: str) -> None:
    n = len(m.s.zones[key])
    if n > 1:
        m.s.unordered[key] = [0, n]
    else:
        m.s.unordered.pop(key, None)


def resolve(m: Machine, key: str, upto: int) -> None:
    """Fix, by chance outcomes, the order of the first `upto` places of a zone."""
    s = m.s
    blk = s.unordered.get(key)
    while blk is not None and blk[0] < upto:
        if not m.chance_ok:  # a question asked outside play (a score, a view): any order will do
            return
        zone = s.zones[key]
        start, n = blk
        cards = zone[start:start + n]
        if m.tape_pos >= len(s.tape):
            raise NeedChance(key, cards)
        card = s.tape[m.tape_pos]
        m.tape_pos += 1
        if card not in cards:
            raise RuleRuntimeError(f"chance outcome {card!r} is not one of the cards of `{key}` in play")
        i = zone.index(card, start)
        zone[start], zone[i] = zone[i], zone[start]
        blk[0] += 1
        blk[1] -= 1
        if blk[1] <= 1:
            del s.unordered[key]
            return


def ordered(m: Machine, key: str) -> list[int]:
    """A zone's cards in their order, fixing whatever part of it nobody knew yet."""
    if key in m.s.unordered:
        resolve(m, key, len(m.s.zones[key]))
    return m.s.zones[key]


def before_move(m: Machine, card: int, src_key: str, dst_key: str, position):
    """Keep the unknown block of each zone in place as a card leaves one zone for another."""
    s = m.s
    u = s.unordered
    blk = u.get(src_key)
    if blk is not None:
        i = s.zones[src_key].index(card)
        if i < blk[0]:
            blk[0] -= 1
        elif i < blk[0] + blk[1]:
            blk[1] -= 1
            if blk[1] <= 1:
                del u[src_key]
    blk = u.get(dst_key)
    if blk is not None:
        n = len(s.zones[dst_key]) - (1 if dst_key == src_key else 0)
        if position is None or position == "bottom":
            at = n
        elif position == "top":
            at = 0
        else:
            at = max(0, min(int(position), n))
        if at <= blk[0]:
            blk[0] += 1
        elif at < blk[0] + blk[1]:
            # A known card placed among cards of unknown order: fix that order first.
            resolve(m, dst_key, blk[0] + blk[1])
    return position


def outcomes(g, s, cards: list[int]) -> list[tuple[int, Fraction]]:
    """The outcomes of the next pick among these cards: copies alike are one outcome."""
    groups: dict[tuple, list[int]] = {}
    marked = {k.split("|")[0] for k, v in s.tokens.items() if v and k.startswith("c")}
    marked |= {f"c{k.split('@')[1]}" for k in s.vars if "@" in k}
    for c in sorted(cards):
        key = (g.card_kinds[c], g.card_names[c], id(g.card_attrs[c])) if f"c{c}" not in marked else (c,)
        groups.setdefault(key, []).append(c)
    total = len(cards)
    return [(members[0], Fraction(len(members), total)) for members in groups.values()]
