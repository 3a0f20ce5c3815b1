"""Shared set-up for the Off-Plan tests: loading the game, arranging positions, driving turns.

Positions are arranged only through the public API (``State.place``, ``set_tokens``,
``set_var``, ``run_procedure``), so cards stay in exactly one zone and the 35 Funds tokens
are conserved.

Card values used by the tests are the STAND-IN values of games/off_plan/cards.rules; the
docstrings of the tests say which ones they rely on.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable

from conftest import ROOT

import interpreter
from interpreter.engine.api import State

GAME_PATH = str(ROOT / "games" / "off_plan")
COLOURS = ("red", "blue", "green", "orange")
TOTAL_FUNDS = 35


@functools.cache
def game():
    return interpreter.load(GAME_PATH)


# ---- reading a state ----------------------------------------------------------------


def name(s: State, card: int) -> str:
    return s.game.card_name(card)


def attrs_of(s: State, card: int) -> dict:
    return s.game.compiled.card_attrs[card]


def names(s: State, zone: str) -> list[str]:
    return [name(s, c) for c in s.s.zones[zone]]


def funds(s: State, holder, side: str | None = None) -> int:
    """Funds tokens a holder has (a seat, a colour, "supply", or "c<id>"), on one side or both."""
    key = s.holder_key(holder)
    sides = (side,) if side else ("normal", "black")
    return sum(s.s.tokens.get(f"{key}|funds|{sd}", 0) for sd in sides)


def card_funds(s: State, card: int, side: str | None = None) -> int:
    return funds(s, f"c{card}", side)


def labels(s: State) -> list[str]:
    if s.decision is None:
        return []
    return [a.label for a in s.legal_actions(s.decision.players[0])]


def prompt(s: State) -> str | None:
    return s.decision.prompt if s.decision is not None else None


def log_texts(s: State) -> list[str]:
    return [e.text for e in s.log]


# ---- choosing ----------------------------------------------------------------------


def pick(s: State, text: str, player: int | None = None) -> str:
    """Apply the first legal action whose label contains `text` (exactly equal wins first)."""
    assert s.decision is not None, f"no decision; wanted {text!r}"
    p = s.decision.players[0] if player is None else player
    actions = s.legal_actions(p)
    exact = [a for a in actions if a.label == text]
    hits = exact or [a for a in actions if text in a.label]
    assert hits, f"no action with {text!r} in {[a.label for a in actions]} (prompt {s.decision.prompt!r})"
    s.apply(hits[0])
    return hits[0].label


DECLINE = ("Neither", "Skip", "Do not use it", "Do not save it", "No")


def decline_until(s: State, stop: Callable[[State], bool], limit: int = 200) -> None:
    """Answer every decision with its 'no thanks' option until `stop(s)` (or the game ends)."""
    for _ in range(limit):
        if s.is_over or stop(s):
            return
        acts = s.legal_actions(s.decision.players[0])
        decline = [a for a in acts if a.label in DECLINE]
        s.apply(decline[0] if decline else acts[0])
    raise AssertionError("decline_until did not stop")


def pass_turn(s: State) -> None:
    """The player to act passes the rest of their turn (takes nothing, builds and invests nothing)."""
    player, turn = s.decision.players[0], s.s.turn
    decline_until(s, lambda st: st.s.turn != turn or st.decision.players[0] != player)


# ---- arranging a position ------------------------------------------------------------


# Zones a card can be taken from without disturbing a position being arranged.
POOLS = ("box", "room_deck", "room_discard", "house_deck", "house_discard", "character_deck",
         "character_offer", "public_buildings")


def _by_preference(s: State, ids: Iterable[int], avoid_zone: str | None = None) -> list[int]:
    """Copies in a pool (deck, discard pile, box...) first, then the others; none in avoid_zone."""
    ids = [c for c in ids if s.s.where[c] != avoid_zone]
    return sorted(ids, key=lambda c: (s.s.where[c] not in POOLS, c))


def copy_of(s: State, card_name: str, exclude: Iterable[int] = (), **want) -> int:
    """The id of a copy of `card_name` whose printed values match `want` (e.g. ability=...),
    preferring one that lies in a deck, a discard pile or the box."""
    exclude = set(exclude)
    for c in _by_preference(s, s.find_cards(card_name)):
        if c in exclude:
            continue
        a = attrs_of(s, c)
        if all(a.get(k) == v for k, v in want.items()):
            return c
    raise KeyError(f"no free copy of {card_name!r} with {want}")


def resolve(s: State, card: int | str, zone: str | None = None) -> int:
    """A card id: the id itself, or a copy of that name not in `zone` (from a pool if possible)."""
    if isinstance(card, int):
        return card
    ids = _by_preference(s, s.find_cards(card), zone)
    if not ids:
        raise KeyError(f"every {card!r} is already in {zone}")
    return ids[0]


def move(s: State, card: int | str, zone: str, at: int | None = None) -> int:
    """Move one card; any Funds on it go back to the supply unless it lands in the Room market."""
    c = s.place(resolve(s, card, zone), zone, at)
    if zone != "room_market":
        s.set_tokens(f"c{c}", "funds", 0)
        s.set_tokens(f"c{c}", "funds", 0, "black")
    return c


def clear_player(s: State, p: int) -> None:
    """Empty a player's hand, play area and payment zone (into the box)."""
    for z in ("hand", "play_area", "payment"):
        for c in list(s.s.zones[f"{z}#{p}"]):
            move(s, c, "box")


def give(s: State, p: int, zone: str, cards: Iterable[int | str]) -> list[int]:
    """Put cards (ids or names) into a player's zone ("hand" or "play_area")."""
    return [move(s, c, f"{zone}#{p}") for c in cards]


def set_room_market(s: State, cards: Iterable[int | str]) -> list[int]:
    """The Room market becomes exactly these cards (left to right), with no Funds on them."""
    for c in list(s.s.zones["room_market"]):
        move(s, c, "room_discard")
    ids = []
    for c in cards:
        c = move(s, resolve(s, c), "room_discard")  # clean of Funds first, wherever it was
        ids.append(s.place(c, "room_market"))
    return ids


def set_house_market(s: State, cards: Iterable[int | str]) -> list[int]:
    """The House market becomes exactly these Houses (left to right); the old ones go to the
    bottom of the House deck."""
    for c in list(s.s.zones["house_market"]):
        s.place(c, "house_deck")
    return [s.place(resolve(s, c, "house_market"), "house_market") for c in cards]


def put_on_house_deck(s: State, cards: Iterable[int | str]) -> list[int]:
    """Put cards on top of the House deck, the first one on top."""
    ids = [resolve(s, c) for c in cards]
    for c in reversed(ids):
        s.place(c, "house_deck", 0)
    return ids


def put_on_room_deck(s: State, cards: Iterable[int | str]) -> list[int]:
    """Put cards on top of the Room deck, the first one on top (their Funds removed)."""
    ids = [move(s, resolve(s, c), "room_deck") for c in cards]
    for c in reversed(ids):
        s.place(c, "room_deck", 0)
    return ids


def set_neighbourhoods(s: State, **amounts: int) -> None:
    for colour, n in amounts.items():
        s.set_tokens(colour, "funds", 0, "black")
        s.set_tokens(colour, "funds", n)


def set_funds(s: State, p, normal: int, black: int = 0) -> None:
    s.set_tokens(p, "funds", normal)
    s.set_tokens(p, "funds", black, "black")


# ---- whole positions --------------------------------------------------------------------

# Characters that change Player 1's first menu (the Scout's draw option, the Banker's extra
# Funds at the start of the turn): they cannot be swapped in after Player 1 has drafted.
FIRST_MENU_CHARACTERS = ("The Scout", "The Banker")


def new_state(players: int = 3, seed: int = 0, characters: dict | None = None,
              arrange: Callable[[State], None] | None = None) -> State:
    """A game at the first decision of the first turn (Player 1's), after the Character draft.

    `characters` maps a seat to the Character it should have (None: no Character at all); a seat
    left out keeps what it drafted. A seat drafts its Character when it is offered; otherwise it
    drafts another one, which is swapped afterwards. `arrange(state)` runs just before the last
    draft pick (Player 1's), so the first turn begins on the arranged position.
    """
    characters = characters or {}
    s = game().new_game(players=players, seed=seed)
    while prompt(s) == "Choose your Character":
        p = s.decision.players[0]
        if p == 0 and arrange is not None:
            arrange(s)
        want = characters.get(p)
        acts = s.legal_actions(p)
        chosen = next((a for a in acts if want is not None and a.label.startswith(want + " (")), None)
        if chosen is None:
            chosen = next(a for a in acts if not a.label.startswith(FIRST_MENU_CHARACTERS))
            if p == 0 and want in FIRST_MENU_CHARACTERS:
                raise ValueError(f"{want} is not offered to Player 1 with seed {seed}")
        s.apply(chosen)
    for p, want in characters.items():
        if want is None:
            for c in list(s.s.zones[f"play_area#{p}"]):
                if s.game.compiled.card_kinds[c] == "character":
                    move(s, c, "box")
        elif want not in names(s, f"play_area#{p}"):
            with_character(s, p, want)
    return s


def bare_state(players: int = 3, seed: int = 0) -> State:
    """A game after the draft with every player's hand and play area emptied (no Character)."""
    s = new_state(players, seed)
    for p in range(players):
        clear_player(s, p)
    return s


def with_character(s: State, p: int, character: str) -> None:
    for c in list(s.s.zones[f"play_area#{p}"]):
        if s.game.compiled.card_kinds[c] == "character":
            move(s, c, "box")
    move(s, character, f"play_area#{p}")


# ---- random play ------------------------------------------------------------------------


def random_playout(s: State, rng: random.Random, limit: int = 5000,
                   each: Callable[[State], None] | None = None) -> int:
    """Play random legal actions to the end; returns the number of decisions taken."""
    steps = 0
    while not s.is_over:
        assert steps < limit, f"the game did not end within {limit} decisions"
        acts = s.legal_actions(s.decision.players[0])
        assert acts, f"no legal action at {s.decision.prompt!r}"
        s.apply(rng.choice(acts))
        steps += 1
        if each is not None:
            each(s)
    return steps
