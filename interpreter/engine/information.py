"""What each player knows: who sees a zone, a card, a var, a token count or a log line.

Plain functions over the compiled game and a ``GameState``. Views, observations, information
states and resampled states are all built from the same few questions (``zone_visible``,
``card_visible``, ``reads``), so a secret kept in one place is kept in all of them.

Knowledge of cards lives in ``GameState.known``: card id (as text) -> a bit mask of the players
who know that card beyond what its zone shows (they looked at it, or saw it before it moved
somewhere they cannot see). A shuffle clears it for the cards shuffled.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

import attrs

from .state import (
    _CONTAINERS,
    MASK64,
    Branch,
    BranchStart,
    Frame,
    GameState,
    _copy_frame,
    _copy_value,
    _new,
    rng_next,
    rng_shuffle,
)

if TYPE_CHECKING:
    from .compiler import CompiledGame

EVERYONE = None  # the audience of a log line everyone reads
HIDDEN_CHOICE = "{player} makes a choice"


def zone_visible(g: CompiledGame, key: str, player: int) -> bool:
    """Whether a player sees the cards of a zone (by its key: `name` or `name#owner`)."""
    name, _, owner = key.partition("#")
    decl = g.zone_decls.get(name)
    if decl is None:  # the box: cards out of the game, seen by nobody
        return False
    vis = decl[1]
    return vis == "public" or (vis == "owner" and owner != "" and int(owner) == player)


def viewers(g: CompiledGame, key: str, players: int) -> int:
    """The bit mask of the players who see a zone's cards (remembered per game)."""
    cache = g.viewer_cache
    mask = cache.get((key, players))
    if mask is None:
        mask = sum(1 << p for p in range(players) if zone_visible(g, key, p))
        cache[(key, players)] = mask
    return mask


def card_visible(g: CompiledGame, s: GameState, card: int, player: int) -> bool:
    """Whether a player knows which card this is, where it lies now."""
    if zone_visible(g, s.where[card], player):
        return True
    return bool(s.known.get(str(card), 0) >> player & 1)


def reads(entry: list, player: int) -> bool:
    """Whether a player reads a log entry ([kind, player, text] or [..., audience])."""
    return len(entry) < 4 or entry[3] is None or player in entry[3]


def log_for(s: GameState, player: int) -> list[list]:
    """The log entries a player reads, in order (their own simultaneous part included)."""
    out = [e for e in s.log if reads(e, player)]
    for b in s.branches:
        if b.player == player:
            out += [e for e in b.log if reads(e, player)]
    return out


def var_visible(g: CompiledGame, name: str, owner: int | None, player: int) -> bool:
    vis = g.var_visibility.get(name, "public")
    return vis == "public" or (vis == "owner" and owner == player)


def token_visible(g: CompiledGame, token: str, holder: str, player: int) -> bool:
    """Whether a player sees how many tokens of a kind a holder has."""
    vis = g.token_visibility.get(token, "public")
    if vis == "public":
        return True
    if vis == "hidden" or holder == "supply":  # the supply would give the others' amounts away
        return False
    return holder == f"p{player}" or not holder.startswith("p")


# ---- the view --------------------------------------------------------------------------------


def view(g: CompiledGame, s: GameState, player: int, decision: dict | None) -> dict:  # noqa: C901
    """What one player may see, as JSON-able data; nothing else goes in."""
    # While players choose at the same time, nobody sees what the others have done so far:
    # the others' own things are shown as they were when the choosing began.
    shown = {b.player: shown_of(g, s, b) for b in s.branches if b.player != player}
    secret = set(shown)
    zones = {}
    for name, (per_player, vis) in g.zone_decls.items():
        keys = [(f"{name}#{p}", p) for p in range(s.num_players)] if per_player else [(name, None)]
        for key, owner in keys:
            cards = s.zones[key]
            visible = zone_visible(g, key, player) and owner not in secret
            entry: dict[str, Any] = {
                "visibility": vis, "owner": owner,
                "count": shown[owner]["zones"].get(key, 0) if owner in secret else len(cards),
                "cards": [card_text(g, s, c, player) for c in cards] if visible else None,
            }
            if not visible and owner not in secret:
                known = [[i, card_text(g, s, c, player)] for i, c in enumerate(cards)
                         if s.known.get(str(c), 0) >> player & 1]
                if known:
                    entry["known"] = known
            if visible and name in g.zone_grids:  # where each card lies: [row, column, facing]
                entry["cells"] = [list(s.cells[str(c)]) for c in cards]
            zones[key] = entry
    tokens: dict[str, dict] = {}
    token_counts = {k: v for k, v in s.tokens.items() if not any(k.startswith(f"p{p}|") for p in secret)}
    for p in secret:
        token_counts.update(shown[p]["tokens"])
    supply = supply_seen(g, s, player) if secret else None
    if supply is not None:  # what the others paid or took in secret is not shown in the supply either
        token_counts = {k: v for k, v in token_counts.items() if not k.startswith("supply|")}
        token_counts.update(supply)
    for key, count in token_counts.items():
        if not count:
            continue
        holder, token, side = key.split("|")
        if not token_visible(g, token, holder, player):
            continue
        if holder.startswith("c") and not card_visible(g, s, int(holder[1:]), player):
            continue  # tokens on a card nobody shows would name the card
        label = holder_label(g, holder)
        entry = tokens.setdefault(label, {})
        if len(g.token_sides[token]) > 1:
            entry.setdefault(token, {})[side] = count
        else:
            entry[token] = count
    values: dict[str, Any] = {}
    for name, (per, _) in g.var_inits.items():
        if per == "player":
            values[name] = {g.player_name(p): _shown_value(g, s, name, shown[p]["vars"][f"{name}#{p}"]
                                                           if p in secret else s.vars[f"{name}#{p}"], player)
                            for p in range(s.num_players) if var_visible(g, name, p, player)}
        elif per is None and var_visible(g, name, None, player):
            values[name] = _shown_value(g, s, name, s.vars[name], player)
    return {
        "game": g.title, "players": s.num_players, "you": player, "active_player": s.active,
        "round": s.round, "turn": s.turn, "zones": zones, "tokens": tokens, "vars": values,
        "modifiers": [x.name for x in s.lasting], "decision": decision, "over": s.over,
        "log": [e[2] for e in log_for(s, player)[-30:]],
    }


def _shown_value(g: CompiledGame, s: GameState, name: str, value: Any, player: int) -> Any:
    """A var's value as a player sees it: cards by name, or "?" for a card they do not know."""
    kind = g.var_card_types.get(name)
    if kind is None:
        return value

    def one(c):
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < len(g.card_names):
            return c
        return g.card_names[c] if card_visible(g, s, c, player) else "?"
    if kind == "card":
        return one(value)
    return [one(c) for c in value] if isinstance(value, list) else value


def card_text(g: CompiledGame, s: GameState, card: int, player: int | None = None) -> str:
    name = g.card_names[card]
    on_card = []
    for t in g.token_sides:
        if player is not None and not token_visible(g, t, f"c{card}", player):
            continue
        n = sum(s.tokens.get(f"c{card}|{t}|{sd}", 0) for sd in g.token_sides[t])
        if n:
            on_card.append(f"{n} {t}")
    return f"{name} (+{', '.join(on_card)})" if on_card else name


def holder_label(g: CompiledGame, key: str) -> str:
    if key == "supply":
        return "the supply"
    if key.startswith("p"):
        return g.player_name(int(key[1:]))
    if key.startswith("c"):
        return g.card_names[int(key[1:])]
    return key[2:] if key.startswith("m:") else key


# ---- information states -------------------------------------------------------------------


def information_state(g: CompiledGame, s: GameState, player: int, decision: dict | None) -> str:
    """A canonical text, equal for two states exactly when the player cannot tell them apart:
    what they see now (the view, without its short log), every log line and choice they read,
    and their own actions."""
    v = view(g, s, player, decision)
    v.pop("log")
    own = [a[1] for a in s.actions if a[0] == player]
    for b in s.branches:
        if b.player == player:
            own += [a[1] for a in b.actions]
    act = s.chance_at[0] if s.chance_at else None
    if act is not None and act[0] == player:  # their decision waits for chance to be carried out
        own.append(["choosing", act[1]])
    doc = {"view": v, "log": [[e[0], e[1], e[2]] for e in log_for(s, player)], "mine": own}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str)


# ---- resampling ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def card_keys(cards: int) -> tuple[str, ...]:
    """Each card's number as text (the keys of ``GameState.known`` and ``cells``)."""
    return tuple(map(str, range(cards)))


_CARD_VAR_KEYS = 50_000  # the most keys of cards' vars remembered per game (else they are searched)


def own_keys(g: CompiledGame, players: int) -> tuple[list[list[str]], list[list[str]], list[tuple[str, ...]] | None]:
    """Per seat, the keys of the player's own zones and of their own vars (``name#p``), in the
    order a game's state holds them, and per var of cards, its key for each card (``name@c``;
    None for a game with too many); remembered per game and player count. Every state has
    exactly these zones and player's vars (the save checks refuse others)."""
    found = g.own_keys.get(players)
    if found is None:
        zones = [[f"{name}#{p}" for name, (per_player, _) in g.zone_decls.items() if per_player]
                 for p in range(players)]
        values = [[f"{name}#{p}" for name, (per, _) in g.var_inits.items() if per == "player"]
                  for p in range(players)]
        names = [name for name, (per, _) in g.var_inits.items() if per == "card"]
        cards = len(g.card_names)
        card_values = ([tuple(f"{name}@{c}" for c in range(cards)) for name in names]
                       if len(names) * cards <= _CARD_VAR_KEYS else None)
        found = g.own_keys[players] = (zones, values, card_values)
    return found


def _seats(s: GameState, players: list) -> bool:
    """Whether `players` are all seats of the game (so ``own_keys`` answers for each)."""
    n = s.num_players
    return all(type(p) is int and 0 <= p < n for p in players)


def branch_starts(s: GameState, players: list[int], first: Frame, g: CompiledGame | None = None
                  ) -> dict[int, BranchStart]:
    """What each of `players` needs to be put back where they stand now, as their part of a
    `simultaneously` begins with the frame `first` (its locals but the player's own): see
    ``BranchStart``. One pass over the vars, cells and knowledge for all of them; the players'
    own zones are read by their keys, known for the game ``g`` (without it, found by a pass
    over all zones: the plain form, which tests compare with)."""
    if g is None or not _seats(s, players):
        return _branch_starts(s, players, first)
    zone_keys, _, card_var_keys = own_keys(g, s.num_players)
    text = card_keys(len(s.where))
    all_zones = s.zones
    zones: dict[int, dict[str, list[int]]] = {}
    owned: dict[int, list[int]] = {}  # the cards in each player's zones
    for p in players:
        own = zones[p] = {}
        mine = owned[p] = []
        for key in zone_keys[p]:
            cards = own[key] = all_zones[key][:]
            mine += cards
    # The cards' vars, cells and knowledge: looked up for each card a player holds (fewer than
    # the entries of the state), by keys made once per game.
    values, all_known, all_cells = s.vars, s.known, s.cells
    card_vars: dict[int, dict[str, Any]] = {}
    known: dict[int, dict[str, int]] = {}
    cells: dict[int, dict[str, list]] = {}
    for p in players:
        mine = owned[p]
        found_vars = card_vars[p] = {}
        if card_var_keys is None:
            held = {text[c] for c in mine}
            for key, value in values.items():
                if "@" in key and key.rpartition("@")[2] in held:
                    found_vars[key] = value
        else:
            for keys in card_var_keys:
                for c in mine:
                    key = keys[c]
                    if key in values:
                        found_vars[key] = values[key]
        found_known = known[p] = {}
        for c in mine:
            key = text[c]
            mask = all_known.get(key)
            if mask is not None:
                found_known[key] = mask
        found_cells = cells[p] = {}
        if all_cells:
            for c in mine:
                cell = all_cells.get(text[c])
                if cell is not None:
                    found_cells[text[c]] = cell[:]
    return _starts(s, players, first, zones, card_vars, cells, known)


def step_parts(s: GameState, players: list[int], key: str, base: dict[str, Any], var: str,
               g: CompiledGame, kept: frozenset[str] | None = None) -> list[Branch] | None:
    """The parts of a `simultaneously` step starting now, in seat order: what ``_shown_all``,
    ``branch_starts`` and a Branch per player give (each part's first frame of code `key`, its
    locals `base` and the player as `var`), in one pass per player over their own zones and
    cards rather than one for each, each object made field by field (the same fields, values and
    key orders; tests/test_fast_paths.py compares). None, for the caller's own way, when
    `players` are not all seats of the game or its cards' vars are too many to list by key.

    `kept`, when not None: the parts' code cannot change a card, and of its player's vars sets
    only those named (``_Compiler.kept_by``). In a seeded game (where reading a zone never fixes
    an order) the players' cards and other vars then stay as they are until the step ends: each
    start's zones, cards' vars, cells and knowledge are left out (None: "as the state holding
    the part shows them"), and so are the shown zones (None) and the vars not named; ``start_of``
    and ``shown_of`` make them when asked. They were most of the work here, done at every such
    step, and are read by views of others, saves, checks of saves and determinisations only."""
    if not _seats(s, players):
        return None
    zone_keys, var_keys, card_var_keys = own_keys(g, s.num_players)
    if card_var_keys is None:
        return None
    text = card_keys(len(s.where))
    all_zones, values, all_known, all_cells = s.zones, s.vars, s.known, s.cells
    # The supply's tokens (shared by every part's start) and each player's own, in one pass
    supply: dict[str, int] = {}
    seats = _seat_heads(s.num_players)
    marks = {seats[p]: {} for p in players}
    heads = _TOKEN_HEADS
    for k, v in s.tokens.items():
        head = heads.get(k)
        if head is None:
            head = _token_head(k)
        if head == "supply":
            supply[k] = v
        else:
            mine = marks.get(head)
            if mine is not None:
                mine[k] = v
    once = s.once[:]
    # The part's first frame as it began: the step's locals, lists copied (as ``_copy_frame``)
    first = {}
    for k, v in base.items():
        if v.__class__ is list:
            first[k] = (v[:] if not v or v[0].__class__ not in _CONTAINERS else _copy_value(v)) if k[0] != "$" else v
        elif v.__class__ is dict:
            first[k] = _copy_value(v)
        else:
            first[k] = v
    if kept is not None and s.chance == "seeded":
        return _kept_parts(players, key, base, var, s, _written_keys(var_keys, kept), supply, marks, seats,
                           once, first)
    one_var = card_var_keys[0] if len(card_var_keys) == 1 else None
    parts = []
    for p in sorted(players):
        shown_vars = {}  # (a loop: a comprehension is a call of its own)
        try:
            for k in var_keys[p]:
                shown_vars[k] = values[k]
        except KeyError:  # (a var missing: not a state the save checks let through)
            return None
        zones: dict[str, list[int]] = {}
        sizes: dict[str, int] = {}
        mine: list[int] = []
        for zk in zone_keys[p]:
            cards = all_zones[zk]
            if cards:
                zones[zk] = cards[:]
                sizes[zk] = len(cards)
                mine += cards
            else:  # (most of a player's zones, most times)
                zones[zk] = []
                sizes[zk] = 0
        card_vars: dict[str, Any] = {}
        known: dict[str, int] = {}
        cells: dict[str, list] = {}
        if one_var is not None:  # one var of cards: its keys and the knowledge in one pass over the cards
            for c in mine:
                vk = one_var[c]
                if vk in values:
                    card_vars[vk] = values[vk]
                t = text[c]
                if t in all_known:
                    known[t] = all_known[t]
        else:
            for keys in card_var_keys:
                for c in mine:
                    vk = keys[c]
                    if vk in values:
                        card_vars[vk] = values[vk]
            for c in mine:
                t = text[c]
                if t in all_known:
                    known[t] = all_known[t]
        if all_cells:
            for c in mine:
                cell = all_cells.get(text[c])
                if cell is not None:
                    cells[text[c]] = cell[:]
        parts.append(_new_part(p, key, base, first, var, zones, card_vars, cells, known, supply, once,
                               {"vars": shown_vars, "zones": sizes, "tokens": marks[seats[p]]}))
    return parts


def _new_part(p: int, key: str, base: dict[str, Any], first: dict[str, Any], var: str,
              zones: dict | None, card_vars: dict | None, cells: dict | None, known: dict | None,
              supply: dict[str, int], once: list[str], shown: dict[str, Any]) -> Branch:
    """Player `p`'s part of a `simultaneously` step as ``step_parts`` makes it, with its start
    (first frame from the locals `first`, the player's things as given) and what others were
    `shown`: each object made field by field (every field; tests/test_fast_paths.py compares)."""
    frame = _new(Frame)
    frame.code = key
    frame.pc = 0
    frame.locals = {**first, var: p}
    start = _new(BranchStart)
    start.frame = frame
    start.zones = zones
    start.vars = card_vars
    start.cells = cells
    start.known = known
    start.supply = supply
    start.once = once
    running = _new(Frame)
    running.code = key
    running.pc = 0
    running.locals = {**base, var: p}
    part = _new(Branch)
    part.player = p
    part.stack = [running]
    part.pending = None
    part.count = 0
    part.log = []
    part.actions = []
    part.shown = shown
    part.start = start
    return part


def _kept_parts(players: list[int], key: str, base: dict[str, Any], var: str, s: GameState,
                var_keys: list[list[str]], supply: dict[str, int], marks: dict[str, dict[str, int]],
                seats: tuple[str, ...], once: list[str], first: dict[str, Any]) -> list[Branch] | None:
    """The rest of ``step_parts`` for parts that cannot change a card and set only the player's
    vars `var_keys` (per seat): the same parts, but each start's zones, vars, cells and
    knowledge, the shown zones and the shown vars not in `var_keys` left out."""
    values = s.vars
    parts = []
    for p in sorted(players):
        shown_vars = {}  # (a loop: a comprehension is a call of its own)
        try:
            for k in var_keys[p]:
                shown_vars[k] = values[k]
        except KeyError:  # (a var missing: not a state the save checks let through)
            return None
        parts.append(_new_part(p, key, base, first, var, None, None, None, None, supply, once,
                               {"vars": shown_vars, "zones": None, "tokens": marks[seats[p]]}))
    return parts


# (each seat's keys of the player vars a step's parts may set, per step and player count)
_WRITTEN_KEYS: dict[tuple[int, frozenset[str]], list[list[str]]] = {}


def _written_keys(var_keys: list[list[str]], names: frozenset[str]) -> list[list[str]]:
    """Each seat's keys among `var_keys` of the vars `names` (in their order), remembered."""
    key = (id(var_keys), names)
    found = _WRITTEN_KEYS.get(key)
    if found is None or found[0] is not var_keys:
        if len(_WRITTEN_KEYS) > 256:
            _WRITTEN_KEYS.clear()
        found = _WRITTEN_KEYS[key] = [var_keys, [[k for k in keys if k.partition("#")[0] in names] for keys in var_keys]]
    return found[1]


def start_of(g: CompiledGame, s: GameState, b: Branch) -> BranchStart | None:
    """How part `b` of state `s` began, whole: ``b.start`` with its zones, cards' vars, cells and
    knowledge made from `s` when ``step_parts`` left them out (its parts cannot change a card,
    so `s`, holding the part, shows them as they were when the step began), else as it is."""
    st = b.start
    if st is None or st.zones is not None:
        return st
    zone_keys, _, card_var_keys = own_keys(g, s.num_players)
    text = card_keys(len(s.where))
    values, all_known, all_cells = s.vars, s.known, s.cells
    zones: dict[str, list[int]] = {}
    mine: list[int] = []
    for zk in zone_keys[b.player]:
        cards = s.zones[zk]
        zones[zk] = cards[:]
        mine += cards
    card_vars: dict[str, Any] = {}
    if card_var_keys is None:
        held = {text[c] for c in mine}
        for k, v in values.items():
            if "@" in k and k.rpartition("@")[2] in held:
                card_vars[k] = v
    else:
        for keys in card_var_keys:
            for c in mine:
                if keys[c] in values:
                    card_vars[keys[c]] = values[keys[c]]
    known = {text[c]: all_known[text[c]] for c in mine if text[c] in all_known}
    cells = {text[c]: all_cells[text[c]][:] for c in mine if text[c] in all_cells}
    return BranchStart(st.frame, zones, card_vars, cells, known, st.supply, st.once)


def shown_of(g: CompiledGame, s: GameState, b: Branch) -> dict[str, Any]:
    """What others see of part `b`'s player in state `s` (``Branch.shown``), whole: its zones'
    sizes and the vars the part cannot set made from `s` when ``step_parts`` left them out
    (a start without its zones says so), else ``b.shown`` as it is."""
    shown, st = b.shown, b.start
    if st is None or st.zones is not None:
        return shown
    zone_keys, var_keys, _ = own_keys(g, s.num_players)
    values = {k: s.vars[k] for k in var_keys[b.player]}
    values.update(shown["vars"])  # (the vars the part may set, as they were: in the same order)
    return {"vars": values, "zones": {k: len(s.zones[k]) for k in zone_keys[b.player]}, "tokens": shown["tokens"]}


def make_whole(g: CompiledGame, s: GameState, b: Branch) -> None:
    """Part `b` of state `s` (its own copy) with its shown things and start whole."""
    b.shown = shown_of(g, s, b)  # (first: it reads whether the start is whole)
    b.start = start_of(g, s, b)


def with_starts(g: CompiledGame, s: GameState) -> GameState:
    """`s`, or a copy of it whose parts' shown things and starts are whole (``make_whole``)
    when some were left out: what saves write and equal states compare."""
    if not any(b.start is not None and b.start.zones is None for b in s.branches):
        return s
    t = s.copy()
    for b in t.branches:
        make_whole(g, t, b)
    return t


# Each token key's holder (`p2` of `p2|t|`), kept: the same few keys come back at every
# `simultaneously` step, and a kept text needs neither a split nor a new hash
_TOKEN_HEADS: dict[str, str] = {}
_TOKEN_HEADS_MAX = 20_000


def _token_head(key: str) -> str:
    """A token key's holder (its text before the first `|`), kept in ``_TOKEN_HEADS``."""
    head = key.partition("|")[0]
    if len(_TOKEN_HEADS) >= _TOKEN_HEADS_MAX:
        _TOKEN_HEADS.clear()
    _TOKEN_HEADS[key] = head
    return head


@functools.lru_cache(maxsize=16)
def _seat_heads(players: int) -> tuple[str, ...]:
    """Each seat's holder in token keys (`p0`, `p1`, ...)."""
    return tuple(f"p{p}" for p in range(players))


def _branch_starts(s: GameState, players: list[int], first: Frame) -> dict[int, BranchStart]:
    """``branch_starts`` by a pass over every zone (any players, any state)."""
    wanted = {str(p): p for p in players}
    zones: dict[int, dict[str, list[int]]] = {p: {} for p in players}
    owner: dict[int, int] = {}  # card -> the player whose zone holds it
    for key, cards in s.zones.items():
        p = wanted.get(key.rpartition("#")[2]) if "#" in key else None
        if p is not None:
            zones[p][key] = cards[:]
            for c in cards:
                owner[c] = p
    card_vars: dict[int, dict[str, Any]] = {p: {} for p in players}
    for key, value in s.vars.items():
        if "@" in key:
            p = owner.get(int(key.rpartition("@")[2]))
            if p is not None:
                card_vars[p][key] = value
    cells: dict[int, dict[str, list]] = {p: {} for p in players}
    for key, cell in s.cells.items():
        p = owner.get(int(key))
        if p is not None:
            cells[p][key] = cell[:]
    known: dict[int, dict[str, int]] = {p: {} for p in players}
    for key, mask in s.known.items():
        p = owner.get(int(key))
        if p is not None:
            known[p][key] = mask
    return _starts(s, players, first, zones, card_vars, cells, known)


def _starts(s: GameState, players: list[int], first: Frame, zones: dict, card_vars: dict, cells: dict,
            known: dict) -> dict[int, BranchStart]:
    """Each player's BranchStart from what was found of their own things, with the supply, the
    `once` marks and a copy of the step's first frame (shared by both ways of finding them)."""
    supply = {k: v for k, v in s.tokens.items() if k.startswith("supply|")}
    once = s.once[:]
    out = {}
    for p in players:
        frame = _copy_frame(first)
        frame.locals = {**frame.locals}
        out[p] = BranchStart(frame, zones[p], card_vars[p], cells[p], known[p], supply, once)
    return out


def supply_seen(g: CompiledGame, s: GameState, player: int) -> dict[str, int] | None:
    """The supply's tokens as `player` knows them while others choose at the same time: as the
    step began, changed by the player's own part only (None when nobody else is choosing, or
    a save does not say how the step began). A part trades tokens with the supply only for its
    own player's, so the player's own net change per kind of token is what their part moved
    (taken from the supply's sides as `pay` takes them, returned to its first side)."""
    others = [b for b in s.branches if b.player != player]
    if not others or any(b.start is None for b in others):
        return None
    supply = dict(others[0].start.supply)
    mine = next((b for b in s.branches if b.player == player), None)
    if mine is None:
        return supply
    before, now = mine.shown.get("tokens", {}), s.tokens
    mark = f"p{player}|"
    for token, sides in g.token_sides.items():
        net = (sum(now.get(f"{mark}{token}|{sd}", 0) for sd in sides)
               - sum(before.get(f"{mark}{token}|{sd}", 0) for sd in sides))
        if net < 0:
            k = f"supply|{token}|{sides[0]}"
            supply[k] = supply.get(k, 0) - net
        for sd in reversed(sides):
            if net <= 0:
                break
            k = f"supply|{token}|{sd}"
            take = min(net, supply.get(k, 0))
            if take:
                supply[k] -= take
                net -= take
    return supply


def _put_back(t: GameState, b: Any) -> None:
    """Put another player's part of a `simultaneously` back where it stood when the step began:
    their own zones, cards' vars, cells and knowledge, vars and tokens, `once` marks, and the
    part itself (its first frame, no decision, nothing logged). ``t`` is the resampler's own copy."""
    start, p = b.start, b.player
    own: set[int] = set()
    for key, cards in start.zones.items():  # the same cards: a part moves its player's cards among their zones
        t.zones[key] = cards[:]
        for c in cards:
            t.where[c] = key
        own.update(cards)
    names = {str(c) for c in own}
    t.cells = {k: v for k, v in t.cells.items() if k not in names}
    t.cells.update({k: v[:] for k, v in start.cells.items()})
    t.known = {k: v for k, v in t.known.items() if k not in names}
    t.known.update(start.known)
    t.vars = {k: v for k, v in t.vars.items() if "@" not in k or int(k.rpartition("@")[2]) not in own}
    t.vars.update(start.vars)
    t.vars.update(b.shown["vars"])
    mark = f"p{p}|"
    t.tokens = {k: v for k, v in t.tokens.items() if not k.startswith(mark)}
    t.tokens.update(b.shown["tokens"])
    before = set(start.once)
    t.once = [k for k in t.once if k in before or k.split("|")[1:2] != [str(p)]]
    b.stack, b.pending, b.count, b.log, b.actions = [_copy_frame(start.frame)], None, 0, [], []


def unknown_cards(g: CompiledGame, s: GameState, player: int) -> list[int]:
    """The cards a player does not know, in zone order (their places are what they know of them).

    While others choose at the same time, a zone of theirs is left alone ("frozen") only when a
    save does not say how their part began (``Branch.start``); ``resample`` puts every other
    part back first, so nothing is frozen."""
    secret = {b.player for b in s.branches if b.player != player and b.start is None}
    out = []
    for key, cards in s.zones.items():
        owner = key.partition("#")[2]
        frozen = owner != "" and int(owner) in secret  # shown as it was: leave it alone
        if frozen:
            continue
        for c in cards:
            if not card_visible(g, s, c, player):
                out.append(c)
    return out


def resample(g: CompiledGame, s: GameState, player: int, seed: int) -> GameState:
    """A full state consistent with what the player knows: the cards they do not know dealt again
    among the places they cannot see (each kind of card among the places of its kind), every
    reference to a card following its place, and a fresh random generator."""
    t = s.copy()
    for b in t.branches:  # (whole: they are put back, and their cards renamed, below)
        make_whole(g, t, b)
    # What the others have done so far in a `simultaneously` is theirs alone: put their parts
    # back to where the step began (the caller runs them again to their first decision, in the
    # new deal: ``State.resample``), and the supply as the player knows it.
    others = [b for b in t.branches if b.player != player and b.start is not None]
    if others:
        supply = supply_seen(g, s, player)
        for b in others:
            _put_back(t, b)
        if supply is not None:
            t.tokens = {k: v for k, v in t.tokens.items() if not k.startswith("supply|")}
            t.tokens.update(supply)
    rng = (int(seed) * 0x9E3779B97F4A7C15 + 0x5851F42D4C957F2D) & MASK64
    rng, _ = rng_next(rng)
    by_kind: dict[str, list[int]] = {}
    for c in unknown_cards(g, t, player):
        by_kind.setdefault(g.card_kinds[c], []).append(c)
    mapping: dict[int, int] = {}
    for kind in sorted(by_kind):
        old = by_kind[kind]
        # Dealt from the cards sorted, not from where they lie: a determinisation depends on what
        # the player knows and the seed only, never on the real order it replaces.
        new = sorted(old)
        rng = rng_shuffle(rng, new)
        mapping.update({a: b for a, b in zip(old, new, strict=True) if a != b})
    t.rng = rng
    if mapping:
        _rename_cards(g, t, mapping)
    return t


def _rename_cards(g: CompiledGame, t: GameState, mapping: dict[int, int]) -> None:
    """Put card mapping[x] where x was, and let every reference to x point at it."""
    def card(x):
        return mapping.get(x, x) if type(x) is int else x

    def deep(v):
        if type(v) is int:
            return mapping.get(v, v)
        if isinstance(v, list):
            return [deep(x) for x in v]
        return v
    for key, cards in t.zones.items():
        t.zones[key] = [card(c) for c in cards]
    for key, cards in t.zones.items():
        for c in cards:
            t.where[c] = key
    t.known = {str(card(int(k))): v for k, v in t.known.items()}
    t.cells = {str(card(int(k))): v for k, v in t.cells.items()}  # where cards lie on grids
    t.tokens = {_rename_holder(k, mapping): v for k, v in t.tokens.items()}
    t.vars = {_rename_var(k, mapping): v for k, v in t.vars.items()}
    # Values that may hold cards (vars, locals, pending choices) are renamed only where they are
    # typed as cards; a number that merely equals a card id is left alone.
    for k in list(t.vars):
        if k.split("#")[0].split("@")[0] in g.var_card_types:
            t.vars[k] = deep(t.vars[k])
    for b in t.branches:  # how each part began and what others saw of it, in the new deal too
        b.shown = {**b.shown, "vars": {k: deep(v) if k.split("#")[0] in g.var_card_types else v
                                       for k, v in b.shown["vars"].items()}}
        st = b.start
        if st is not None:
            frame = _copy_frame(st.frame)
            typed = g.card_locals.get(frame.code, ())
            frame.locals = {k: deep(v) if k in typed else v for k, v in frame.locals.items()}
            b.start = attrs.evolve(
                st, frame=frame, zones={k: [card(c) for c in cards] for k, cards in st.zones.items()},
                vars={(r := _rename_var(k, mapping)): deep(v) if r.split("@")[0] in g.var_card_types else v
                      for k, v in st.vars.items()},
                cells={str(card(int(k))): v for k, v in st.cells.items()},
                known={str(card(int(k))): v for k, v in st.known.items()})
    stacks = [t.stack] + [b.stack for b in t.branches]
    for stack in stacks:
        for f in stack:
            typed = g.card_locals.get(f.code, ())
            for name in list(f.locals):
                if name in typed:
                    f.locals[name] = deep(f.locals[name])
    # A pending decision is shared by a state and its copies (GameState.copy): a new one for the view.
    if t.pending is not None and t.stack and getattr(g.codes[t.stack[-1].code][t.stack[-1].pc], "cards", False):
        t.pending = attrs.evolve(t.pending, values=[card(v) for v in t.pending.values])
    for b in t.branches:
        if b.pending is not None and b.stack and getattr(g.codes[b.stack[-1].code][b.stack[-1].pc], "cards", False):
            b.pending = attrs.evolve(b.pending, values=[card(v) for v in b.pending.values])


def _rename_holder(key: str, mapping: dict[int, int]) -> str:
    if key.startswith("c"):
        holder, _, rest = key.partition("|")
        c = int(holder[1:])
        return f"c{mapping.get(c, c)}|{rest}"
    return key


def _rename_var(key: str, mapping: dict[int, int]) -> str:
    if "@" in key:
        name, _, c = key.partition("@")
        return f"{name}@{mapping.get(int(c), int(c))}"
    return key
