"""The machine that runs compiled code on a state, and the built-ins' implementations.

A ``Machine`` pairs the compiled game (fixed) with one ``GameState`` (data). ``run`` steps
through the frame stack until the game waits for a decision or ends. Every built-in in
``rulelang.registry`` has exactly one implementation here (``EFFECTS``, ``FUNCTIONS``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulelang.diagnostics import RuleRuntimeError

from . import chance
from .budget import (
    MAX_INT,
    MAX_ITEMS,
    MAX_LASTING,
    MAX_LOG_CHARS,
    MAX_LOG_LINE,
    MAX_LOG_LINES,
    MAX_STEPS_PER_ACTION,
    MAX_TEXT,
    Budget,
    charge_text,
    charge_value,
    check_int,
    log_line,
)
from .information import card_visible, viewers
from .state import Branch, Frame, GameState, Lasting, Pending, _copy_value, _new, rng_shuffle
from .undo import _MISSING

if TYPE_CHECKING:
    from .compiler import CompiledGame
    from .undo import Journal

__all__ = ["MAX_INT", "MAX_LIST_SIZE", "MAX_STEPS_PER_ACTION", "MAX_TEXT", "Budget", "Machine",
           "charge_text", "charge_value", "check_int"]

MAX_STACK = 200
# Procedures called from generated runs are run on the spot (``Machine.enter``) while the
# stack is at most this deep; deeper, the step loop runs them (Python's own stack stays small).
DESCEND_DEPTH = 24
_LOG_LINE_EXTRA = 100  # a choice's line in the log: the player's name before its cut label
# `log` counts a log's characters once its lines could hold more than MAX_LOG_CHARS: from this
# many lines, as `(lines + 1) * (MAX_LOG_LINE + _LOG_LINE_EXTRA) > MAX_LOG_CHARS` says
_LOG_UNCOUNTED = MAX_LOG_CHARS // (MAX_LOG_LINE + _LOG_LINE_EXTRA)
_LOG_CHECKED = min(_LOG_UNCOUNTED, MAX_LOG_LINES)  # below this many lines, `log` checks nothing
MAX_ZONE_SIZE = 100_000
MAX_LIST_SIZE = MAX_ITEMS  # the old name of the limit on a value's items


def _too_deep(pos: Any) -> RuleRuntimeError:
    """The refusal of a procedure called past ``MAX_STACK`` frames (by ``push``, ``enter`` and
    ``call_leaf`` alike: one message, wherever the call is made)."""
    return RuleRuntimeError(
        f"more than {MAX_STACK} procedures and triggers running at once "
        "(endless recursion or a chain of triggers?)", pos)

# Off by default. When a dict, `Machine.push` counts every frame pushed (a procedure called, a
# trigger fired) under its code key; `interpreter.tools.validate` sets it while it plays games.
push_counter: dict[str, int] | None = None


def python_error(err: BaseException) -> str:
    """A Python error inside a rule, in a few words for the author of the rule file."""
    if isinstance(err, RecursionError):
        return "the rules nest too deeply"
    text = str(err)
    return f"{type(err).__name__}: {text[:200]}" if text else type(err).__name__


# Python errors a misbehaving rule can cause inside an op (a value of an unexpected type
# reaching an operator, an index past the end): each becomes a RuleRuntimeError at the op.
RULE_FAULTS = (ArithmeticError, LookupError, TypeError, ValueError, AttributeError, RecursionError)


class SeedPoint(Exception):  # noqa: N818 - a signal, not an error
    """A setup being recorded (``api._record_setup``) reached its first use of the seeded
    generator: everything before it is the same for every seed. ``used``: the budget spent so far;
    ``zone``: the zone about to be shuffled, when that is all the effect does."""

    def __init__(self, used: int, zone: str | None):
        super().__init__(used)
        self.used = used
        self.zone = zone


class Unrecordable(Exception):  # noqa: N818 - a signal, not an error
    """A setup being recorded used the seeded generator where it cannot be stopped cleanly."""


def ended(m: Machine, fr: Frame) -> None:
    """What a run returns where it reaches its code's end (`fr.pc` set there): a run that hands
    over to nothing. Nothing has stopped since the run began (an op that may stop ends a run, a
    procedure call that stopped returns at once, and a run hands over to another only where
    nothing has stopped), so ``Machine.enter`` and ``call_leaf`` take it for "the procedure
    ended" without looking at the state; the step loop calls it, and goes on as after any run."""
    return None


def _op_at(code: list, pc: int) -> Any:
    """The op at `pc`, or None past the end."""
    return code[pc] if 0 <= pc < len(code) else None


class Machine:
    __slots__ = ("game", "s", "budget", "branch", "memo", "log_chars", "journal", "chance_ok", "tape_pos", "calls",
                 "seed_mode", "runs_of")

    def __init__(self, game: CompiledGame, state: GameState, budget: Budget | None = None,
                 chance_ok: bool = False):
        self.game = game
        self.s = state
        self.budget = budget if budget is not None else Budget()  # one per action unless shared
        # Explicit chance: whether this machine carries out play (and may stop at a chance node)
        # and how many outcomes of the state's tape it has used (interpreter/engine/chance.py).
        self.chance_ok = chance_ok
        self.tape_pos = 0
        # Results of defines (and grid layouts, bag counts) while the state stays as it is: kept
        # from op to op within one action, forgotten after every op that may change what a define
        # reads (`op.changes`, see compiler._changes_state), at the start of every action
        # (api._carry_out) and of every `simultaneously` part, and within an op wherever it
        # changes the state and then works out more (an event raised, a card laid on a grid, a
        # menu's cost paid). A machine belongs to one state: a clone or a restored state gets its
        # own (api._carry_out makes a new one when the state is not the machine's).
        self.memo: dict = {}
        # While a pure define of the generated code is worked out, the calls of pure defines it
        # makes (codegen.MAX_PURE_KEPT); None otherwise.
        self.calls: list | None = None
        self.branch: Branch | None = None  # the simultaneous branch being run, if any
        self.log_chars: int | None = None  # characters in the game's log, once counted (see `log`)
        self.journal: Journal | None = None  # set by State.apply: what to undo if the action fails
        # A new game's setup recorded once and replayed (api._record_setup): None in play; "record"
        # stops the run at the first effect that may draw from the seeded generator (`seed_point`);
        # a number replays from there, the budget set to what the recorded run had spent by then.
        self.seed_mode: str | int | None = None
        # The generated runs it plays, by code key: ``game.runs``, or the fast ones
        # (``game.fast_runs``, codegen._StepsGen.run), which pay an op's step with others, so an
        # error in them tells neither where it happened nor whether the budget ran out first.
        # Only an action that is put back and carried out again by the careful runs should
        # anything be raised (api.State._carry_out) plays them.
        self.runs_of: dict = game.runs

    def renew(self, state: GameState) -> None:
        """Serve `state` as a machine made for it now would (with ``chance_ok`` as it was):
        every field set again here, next to ``__init__``, and its own budget paid afresh (a
        spare machine of an ended game, api.Game._spare_machines)."""
        self.s = state
        self.budget.used = 0
        self.tape_pos = 0
        self.memo = {}
        self.calls = None
        self.branch = None
        self.log_chars = None
        self.journal = None
        self.seed_mode = None
        self.runs_of = self.game.runs

    # ---- the step loop
    def run(self) -> None:
        """Run until the game waits for decisions or ends."""
        s = self.s
        while not s.over:
            if s.branches:
                self._run_branches()
                if s.over:
                    break
                for b in s.branches:  # (any part waiting for its player: a loop, no generator made)
                    if b.pending is not None:
                        break
                else:
                    self._join_branches()
                    continue
                break
            if s.pending is not None:
                break
            if not s.stack:
                s.over = True
                break
            self._steps(s.stack, s, False)
        if s.over:
            s.stack.clear()
            s.pending = None
            s.branches = []

    def _steps(self, stack: list[Frame], waits: Any, in_branch: bool) -> None:
        """Run the ops of `stack` until it is empty, a decision waits (on `waits`: the state or
        the branch), the game ends, or a `simultaneously` starts (or, in a branch, ends).

        One op is one step: it costs one unit of the budget and, when it may have changed the
        state (`op.changes`), forgets the defines' results remembered so far. Where the game has generated runs (``game.runs``, made by
        codegen.code_runs), the run starting at the frame's pc does that for many ops in a
        row, in place; an op without one is called here. The ops of the frame on top run in an
        inner loop, which looks the frame's code up once rather than once per op.

        Called only where there is something to run: `stack` not empty, nothing waiting on
        `waits`, the game not over, and a `simultaneously` running exactly when `in_branch` (the
        callers know it already; the loop looks again each time the inner loop stops)."""
        s = self.s
        runs_of = self.runs_of
        b = self.budget
        while True:  # (the callers have seen to it that the loop has something to run, as below)
            frame = stack[-1]
            try:  # (a lookup without dict.get's call: a code's runs are there but the first time)
                code, end, runs = runs_of[frame.code]
            except KeyError:
                code, end, runs = self.code_runs(frame.code)
            depth = len(stack)
            op = None
            try:
                while True:
                    pc = frame.pc
                    if pc >= end:
                        stack.pop()
                        if not stack:
                            break
                        # On with the frame below, in this loop: nothing has stopped (the loop
                        # looked after the last op, or the outer loop before the first)
                        frame = stack[-1]
                        try:
                            code, end, runs = runs_of[frame.code]
                        except KeyError:
                            code, end, runs = self.code_runs(frame.code)
                        depth -= 1
                        continue
                    run = runs[pc]
                    if run is not None:
                        op = None  # on an error, the run leaves the pc of the op that raised in frame.pc
                        run = run(self, frame)
                        while run is not None:  # a run that ends where another starts hands it on
                            if run is ended:  # the frame's end, nothing stopped: on with the one below
                                break
                            run = run(self, frame)
                        else:
                            if waits.pending is not None:  # a decision waits (most times): nothing more to run
                                return
                            # `(not s.branches) is in_branch`: a `simultaneously` started (or, in a branch, ended)
                            if s.over or len(stack) != depth or (not s.branches) is in_branch:
                                break
                        continue
                    op = code[pc]
                    b.used += 1
                    if b.used > b.limit:
                        b.charge(0, getattr(op, "pos", None))
                    op(self, frame)
                    if op.changes and self.memo:
                        self.memo = {}
                    if waits.pending is not None:  # (as after a run)
                        return
                    if s.over or len(stack) != depth or (not s.branches) is in_branch:
                        break
            except RuleRuntimeError as err:
                pos = getattr(op if op is not None else _op_at(code, frame.pc), "pos", None)
                if err.pos is None and pos is not None:
                    raise RuleRuntimeError(err.bare_message, pos) from None
                raise
            except RULE_FAULTS as err:
                raise RuleRuntimeError(f"this rule cannot be carried out ({python_error(err)})",
                                       getattr(op if op is not None else _op_at(code, frame.pc), "pos", None)) from None
            if not (stack and waits.pending is None and not s.over and (not s.branches) is not in_branch):
                return

    def enter(self, key: str, local_values: dict, pos=None) -> bool:
        """A procedure called from a generated run: push its frame (``push``) and run it on the
        spot, as the step loop would, so the caller's run can go on after the call rather than
        return to the loop twice (for the call and for the end of the procedure).

        True when the procedure ended (its frame popped) and nothing stops the caller; False
        when the loop must go on from where things are: the procedure waits for a decision (an
        op without a run, a choice most often, is called here as the loop would call it), pushed
        a frame (a trigger), called deeper than ``DESCEND_DEPTH``, ended the game or started a
        `simultaneously`. An error gets the position of the procedure's op, as the loop gives it."""
        branch = self.branch
        s = self.s
        if branch is None:
            stack = s.stack
            depth = len(stack)
        else:
            stack = branch.stack
            depth = len(stack) + len(s.stack)
        if depth >= DESCEND_DEPTH:  # (MAX_STACK is deeper: checked there, first, as `push` does)
            self._push_deep(key, local_values, pos, stack, depth)
            return False
        if push_counter is not None:
            push_counter[key] = push_counter.get(key, 0) + 1
        frame = _new(Frame)  # (Frame(key, 0, local_values), without the call of its __init__)
        frame.code = key
        frame.pc = 0
        frame.locals = local_values
        stack.append(frame)
        try:  # (as in _steps)
            code, end, runs = self.runs_of[key]
        except KeyError:
            code, end, runs = self.code_runs(key)
        op = None  # (the op called here, if any: an error raised in a run has its pc in frame.pc)
        try:
            pc = 0
            while pc < end:
                run = runs[pc]
                if run is None:  # an op without a run (a choice, most often): called as the loop calls it
                    op = code[pc]
                    b = self.budget
                    b.used += 1
                    if b.used > b.limit:
                        b.charge(0, getattr(op, "pos", None))
                    op(self, frame)
                    if op.changes and self.memo:
                        self.memo = {}
                    op = None
                else:
                    run = run(self, frame)
                    while run is not None:  # (as in _steps)
                        if run is ended:  # the end of the procedure, reached with nothing stopped
                            stack.pop()
                            return True
                        run = run(self, frame)
                # the procedure waits, the game ended, a frame was pushed, a `simultaneously`
                # started (or, in a part, ended): the loop goes on from here
                if branch is None:
                    if s.pending is not None or s.over or stack[-1] is not frame or s.branches:
                        return False
                elif branch.pending is not None or s.over or stack[-1] is not frame or not s.branches:
                    return False
                pc = frame.pc
            stack.pop()
            return True
        except RuleRuntimeError as err:
            pos = getattr(op if op is not None else _op_at(code, frame.pc), "pos", None)
            if err.pos is None and pos is not None:
                raise RuleRuntimeError(err.bare_message, pos) from None
            raise
        except RULE_FAULTS as err:
            raise RuleRuntimeError(f"this rule cannot be carried out ({python_error(err)})",
                                   getattr(op if op is not None else _op_at(code, frame.pc), "pos", None)) from None

    def _push_deep(self, key: str, local_values: dict, pos: Any, stack: list[Frame], depth: int) -> None:
        """``enter``'s push of a procedure called `depth` frames deep (from ``DESCEND_DEPTH``
        on), which the step loop runs: refused past ``MAX_STACK``, as ``push`` refuses it."""
        if depth >= MAX_STACK:  # (push, written out)
            raise _too_deep(pos)
        if push_counter is not None:
            push_counter[key] = push_counter.get(key, 0) + 1
        stack.append(Frame(key, 0, local_values))

    def code_runs(self, key: str) -> tuple[list, int, list]:
        """A code's ops, how many, and their runs (``game_runs``), kept in ``game.runs`` (the
        fast ones in ``game.fast_runs``: see ``runs_of``)."""
        game = self.game
        code = game.codes[key]
        found = self.runs_of[key] = (code, len(code), self.game_runs(key, code, self.runs_of is game.fast_runs))
        return found

    def game_runs(self, key: str, code: list, fast: bool = False) -> list:
        """The generated runs of a code, made the first time it runs (none with the reference)."""
        if self.game.backend != "codegen":
            return [None] * len(code)
        from .codegen import code_runs, leaf_code, quiet_effects  # codegen imports this module

        game = self.game

        def leaves(callee: str) -> bool:
            found = game.codes.get(callee)
            return found is not None and leaf_code(quiet_effects(found, game.triggers))
        return code_runs(quiet_effects(code, game.triggers), leaves, fast, game.generated, key)

    def call_leaf(self, key: str, local_values: dict, pos=None) -> bool:
        """``enter`` of a procedure that cannot stop (``codegen.leaf_code``: no choice, no call,
        no event a trigger answers, no `return`, no end of the game): its runs are made on a
        frame of its own that is never pushed, since nothing looks at the stack while it runs
        and it always ends; so neither the push and pop nor the checks after each run that
        ``enter`` makes. The same depth limit and the same positions of errors as ``enter``.
        True as from ``enter``; should it stop all the same, its frame is pushed where ``enter``
        would have left it, and False tells the caller's run to hand over to the loop.

        A setup being recorded or replayed (``seed_mode``) calls it as ``enter`` does: a
        recording stops at its first use of the seeded generator, maybe inside the procedure,
        and keeps the stack as it is there, this procedure's frame included."""
        if self.seed_mode is not None:
            return self.enter(key, local_values, pos)
        branch = self.branch
        s = self.s
        depth = len(s.stack) if branch is None else len(branch.stack) + len(s.stack)
        if depth >= MAX_STACK:  # (as `enter`)
            raise _too_deep(pos)
        if push_counter is not None:
            push_counter[key] = push_counter.get(key, 0) + 1
        frame = _new(Frame)
        frame.code = key
        frame.pc = 0
        frame.locals = local_values
        try:  # (as in _steps)
            code, end, runs = self.runs_of[key]
        except KeyError:
            code, end, runs = self.code_runs(key)
        try:
            run = runs[0]
            while run is not None:
                if run is ended:  # (see `enter`)
                    return True
                run = run(self, frame)
        except RuleRuntimeError as err:
            op_pos = getattr(_op_at(code, frame.pc), "pos", None)
            if err.pos is None and op_pos is not None:
                raise RuleRuntimeError(err.bare_message, op_pos) from None
            raise
        except RULE_FAULTS as err:
            raise RuleRuntimeError(f"this rule cannot be carried out ({python_error(err)})",
                                   getattr(_op_at(code, frame.pc), "pos", None)) from None
        if frame.pc >= end:
            return True
        (branch.stack if branch is not None else s.stack).append(frame)  # pragma: no cover - see above
        return False  # pragma: no cover

    def charge(self, units: int, pos=None) -> None:
        """Pay for work done (see ``budget.py``): no loop, huge list or long text can hang the game."""
        b = self.budget
        b.used += units
        if b.used > b.limit:
            b.charge(0, pos)

    @property
    def steps(self) -> int:
        return self.budget.used

    def _run_branches(self) -> None:
        """Advance, in seat order, every branch that is not waiting for its player."""
        s = self.s
        for b in s.branches:
            if b.pending is not None:  # waiting for its player: nothing to run (most parts, most times)
                continue
            if not b.stack or s.over or not s.branches:
                # an ended part, or one after a part that ended the game: nothing to run either
                # (the memo forgotten, as below; `_steps` runs only where there is something to run)
                if self.memo:
                    self.memo = {}
                continue
            # Each part starts and ends with the define memo forgotten, so what a part pays
            # never depends on which parts ran before it in the same action
            self.branch = b
            self.memo = {}
            try:
                self._steps(b.stack, b, True)
            finally:
                self.branch = None
                self.memo = {}

    def _join_branches(self) -> None:
        """Everyone has chosen: merge the branches' logs in seat order and go on."""
        s = self.s
        for b in s.branches:
            s.log.extend(b.log)
            s.actions.extend(b.actions)
        s.branches = []
        s.stack[-1].pc += 1

    @property
    def stack(self) -> list[Frame]:
        return self.branch.stack if self.branch is not None else self.s.stack

    def current_player(self) -> int | None:
        return self.branch.player if self.branch is not None else self.s.active

    def wait(self, player: Any, prompt: str, kind: str, values: list, labels: list[str]) -> None:
        """``park(Pending(player, prompt, kind, values, labels))`` in one call, for a decision of
        a seat outside a `simultaneously` step (most decisions) or of the player of the part being
        run inside one: the Pending made field by field (every field of the class;
        tests/test_state_copy.py checks), numbered and parked as `park` numbers and parks it."""
        s = self.s
        b = self.branch
        if player.__class__ is not int or not 0 <= player < s.num_players or (b is not None and b.player != player):
            self.park(Pending(player, prompt, kind, values, labels))  # (refused there)
            return
        pending = _new(Pending)
        pending.player = player
        pending.prompt = prompt
        pending.kind = kind
        pending.values = values
        pending.labels = labels
        if b is None:
            pending.serial = s.decisions = s.decisions + 1
            s.pending = pending
        else:  # (a serial of the part's own: see `park`)
            b.count += 1
            pending.serial = s.decisions * 1000 + b.count
            b.pending = pending

    def park(self, pending: Pending) -> None:
        """A decision op waits for its player."""
        s = self.s
        player = pending.player
        if player.__class__ is not int or not 0 <= player < s.num_players:  # (a seat, most times)
            if not isinstance(player, int) or not (0 <= player < s.num_players):
                raise RuleRuntimeError(f"no player to make this choice ({player!r})")
        b = self.branch
        if b is not None:
            if pending.player != b.player:
                raise RuleRuntimeError(f"inside `simultaneously`, only {self.game.player_name(b.player)} "
                                       "can choose in their part")
            # Serials in a branch depend only on that branch, so the order in which the
            # players' choices arrive leaves no trace in the state.
            b.count += 1
            pending.serial = self.s.decisions * 1000 + b.count
            b.pending = pending
        else:
            pending.serial = s.decisions = s.decisions + 1
            s.pending = pending

    def shared_change(self, what: str, pos=None) -> None:
        """Inside a simultaneous branch, refuse changes to things other players share.

        A branch may change only its own player's things; so the result cannot depend on the
        order in which the players' choices arrive. Shared changes belong after the block.
        """
        if self.branch is not None:
            raise RuleRuntimeError(f"inside `simultaneously`, a player's part cannot {what}; "
                                   "record the choice and apply it after the block", pos)

    def push(self, code: str, local_values: dict, pos=None) -> None:
        branch = self.branch  # self.stack, without the property
        stack = branch.stack if branch is not None else self.s.stack
        if len(stack) + (len(self.s.stack) if branch is not None else 0) >= MAX_STACK:
            raise _too_deep(pos)
        if push_counter is not None:
            push_counter[code] = push_counter.get(code, 0) + 1
        stack.append(Frame(code, 0, local_values))

    # ---- events and lasting modifiers
    def emit(self, event: str, args: list, pos=None) -> None:
        if self.memo:
            self.memo = {}  # the op that raises an event may have changed the state already
        triggers = self.game.triggers.get(event)
        if not triggers:  # most events of most games start nothing (and pay nothing)
            return
        self.charge(len(triggers), pos)
        for code_key, names, when in reversed(triggers):
            local_values = dict(zip(names, args, strict=False))
            if when is None or when(self, local_values):
                self.push(code_key, local_values, pos)

    def expire(self, unit: str, player: int | None) -> None:
        if not self.s.lasting:  # no lasting modifier in force (most turns of most games)
            return
        self.charge(len(self.s.lasting))
        keep = []
        for m in self.s.lasting:
            if m.unit == unit and (m.player == -1 or player is None or m.player == player):
                m.remaining -= 1
                if m.remaining <= 0:
                    self.log("event", None, f"{m.name} ends")
                    continue
            keep.append(m)
        self.s.lasting = keep

    def start_lasting(self, name: str, player: int | None, unit: str, count: int) -> None:
        self.shared_change("start a lasting modifier")
        if len(self.s.lasting) >= MAX_LASTING:
            raise RuleRuntimeError(f"more than {MAX_LASTING} lasting modifiers in force at once "
                                   "(started in a loop?)")
        self.s.lasting.append(Lasting(name, -1 if player is None else player, unit, count))

    def log(self, kind: str, player: int | None, text: str, audience: list[int] | None = None) -> None:
        """A log line; `audience` lists the players who read it (None: everyone)."""
        b = self.budget  # charge_text(self, text), written out: a log line is made most steps
        n = len(text)
        b.used += n
        if b.used > b.limit:
            b.charge(0)
        if n > MAX_LOG_LINE:  # (log_line and the cut of charge_text, only for a line that needs them)
            text = log_line(text if n <= MAX_TEXT else text[:MAX_TEXT] + "...")
        s = self.s
        log = s.log
        lines = len(log)
        for b in s.branches:  # (the parts' lines too: a loop, no generator made)
            lines += len(b.log)
        if lines >= _LOG_CHECKED:  # (both checks below, only for a log that long)
            if lines >= MAX_LOG_LINES:
                raise RuleRuntimeError(f"the game's log is full ({MAX_LOG_LINES} lines): a log in a loop?")
            # Characters are counted only once the lines could hold more than the limit (every line
            # is cut to MAX_LOG_LINE), so an ordinary game never pays for counting them.
            if lines >= _LOG_UNCOUNTED:
                if self.log_chars is None:
                    self.log_chars = sum(len(e[2]) for part in [s.log] + [b.log for b in s.branches] for e in part)
                self.log_chars += len(text)
                if self.log_chars > MAX_LOG_CHARS:
                    raise RuleRuntimeError(f"the game's log is full ({MAX_LOG_CHARS} characters): a log in a loop?")
        if self.branch is not None:
            log = self.branch.log
        log.append([kind, player, text] if audience is None else [kind, player, text, audience])

    # ---- vars
    def set_var(self, key: str, value: Any) -> None:
        """Set a var. A list is stored as its own copy: a var never shares a zone's list (which
        moves would change), so states may share var values, and clones copy no values."""
        values = self.s.vars
        j = self.journal
        if j is not None and key not in j.vars:  # Journal.var, written out: a var is set most steps
            j.vars[key] = values.get(key, _MISSING)
        values[key] = _copy_value(value) if isinstance(value, list) else value

    # ---- zones
    def read_zone(self, key: str) -> list[int]:
        """A zone's cards as a value the rules read: in order (fixed by chance if nobody knew it)."""
        if self.s.unordered and key in self.s.unordered:
            return chance.ordered(self, key)
        return self.s.zones[key]

    def zone(self, key: str) -> list[int]:
        try:
            return self.s.zones[key]
        except KeyError:
            raise RuleRuntimeError(f"there is no zone `{key}`") from None

    def move_card(self, card: int, key: str, position: Any = None, cell: list | None = None) -> None:
        b = self.budget  # self.charge(1), written out: this runs for every card moved
        b.used += 1
        if b.used > b.limit:
            b.charge(0)
        s = self.s
        grids = self.game.zone_grids
        if grids:
            if cell is None and key.split("#")[0] in grids:
                raise RuleRuntimeError(f"`{key}` is a grid: lay cards on it with `place CARD onto {key} at SPOT`")
            if self.memo:
                self.memo = {}  # remembered grid layouts and define results are out of date
            if self.journal is not None:
                self.journal.cell(str(card), s.cells)
            if cell is not None:
                s.cells[str(card)] = cell
            else:
                s.cells.pop(str(card), None)
        if self.branch is not None:
            own = f"#{self.branch.player}"
            if not (s.where[card].endswith(own) and key.endswith(own)):
                self.shared_change("move cards in or out of shared zones or other players' zones")
        # (Journal.zone, .card and .knowledge and the viewers' cache, written out: this runs for
        # every card moved, and is a tenth of some games)
        where = s.where
        zones = s.zones
        src_key = where[card]
        src = zones[src_key]
        dst = zones.get(key)
        j = self.journal
        if j is not None:
            noted = j.zones
            if src_key not in noted:
                noted[src_key] = src[:]
            if card not in j.where:
                j.where[card] = src_key
            if dst is not None and key not in noted:
                noted[key] = dst[:]
        if dst is None:
            raise RuleRuntimeError(f"there is no zone `{key}`")
        # Whoever saw the card where it was can follow it to where it goes.
        game = self.game
        seen = game.viewer_cache.get((src_key, s.num_players))
        if seen is None:
            seen = viewers(game, src_key, s.num_players)
        if seen:
            k = str(card)
            known = s.known
            if j is not None and k not in j.known:
                j.known[k] = known.get(k, _MISSING)
            known[k] = known.get(k, 0) | seen
        if s.unordered:
            position = chance.before_move(self, card, src_key, key, position)
        src.remove(card)
        slots = game.zone_slots
        if slots:
            limit = slots.get(key.partition("#")[0])
            if limit is not None and len(dst) >= limit:
                raise RuleRuntimeError(f"zone `{key}` is full ({limit} slots)")
        if len(dst) >= MAX_ZONE_SIZE:
            raise RuleRuntimeError(f"zone `{key}` would hold more than {MAX_ZONE_SIZE} cards")
        if position is None or position == "bottom":
            dst.append(card)
        elif position == "top":
            dst.insert(0, card)
        else:
            dst.insert(max(0, min(int(position), len(dst))), card)
        where[card] = key

    def move_cards(self, cards: list[int], key: str, draws: int = 0) -> None:
        """``move_card(c, key)`` for each card in turn (to the bottom, not onto a grid), with the
        lookups made once for all of them: the effect of most `move`s and `draw`s. ``draws`` (0
        or 1): the step a `draw` pays for each card before its move's. Where a card's move
        needs more (a grid, a `simultaneously` part, cards nobody knows the order of), each
        goes through ``move_card``."""
        s = self.s
        game = self.game
        if len(cards) == 1 and self.journal is None and self.branch is None and not s.unordered \
                and not game.zone_grids and not game.zone_slots:
            # One card (most moves: `move c to ...`), nothing noted for an undo, no grid, no
            # zone with slots, no part of a `simultaneously` step, every order known: when
            # neither the budget nor the zone can run out, the card-by-card loop below for its
            # one card, tested first and without the lookups it makes once for many
            dst = s.zones.get(key)
            b = self.budget
            used = b.used + 1 + draws
            if dst is not None and used <= b.limit and len(dst) < MAX_ZONE_SIZE:
                b.used = used
                card = cards[0]
                where = s.where
                src_key = where[card]
                seen = game.viewer_cache.get((src_key, s.num_players))
                if seen is None:
                    seen = viewers(game, src_key, s.num_players)
                if seen:
                    known = s.known
                    k = game.card_texts[card]
                    known[k] = known.get(k, 0) | seen
                s.zones[src_key].remove(card)
                dst.append(card)
                where[card] = key
                return
        elif not cards:  # nothing moves: nothing is paid, noted or looked at
            return
        if game.zone_grids or self.branch is not None or s.unordered:
            b = self.budget
            for c in cards:
                if draws:
                    b.used += 1
                    if b.used > b.limit:
                        b.charge(0)
                self.move_card(c, key)
            return
        b = self.budget
        zones = s.zones
        dst = zones.get(key)
        j = self.journal
        where = s.where
        known = s.known
        players = s.num_players
        seen_from = game.viewer_cache
        slots = game.zone_slots
        limit = slots.get(key.partition("#")[0]) if slots else None
        step = 1 + draws
        if j is not None:
            noted = j.zones
            if dst is not None and key not in noted and cards:  # (before anything moves, as move_card notes it)
                noted[key] = dst[:]
        last_key = seen = None
        if (j is None and dst is not None and limit is None and b.used + step * len(cards) <= b.limit
                and len(dst) + len(cards) <= MAX_ZONE_SIZE):
            # Nothing noted for an undo, and neither the budget nor the zone's size can run out
            # on the way (the checks below would pass for every card): each card's move alone,
            # all paid at once (the same sum)
            b.used += step * len(cards)
            texts = game.card_texts
            last_key = src_key = where[cards[0]]
            src = zones[src_key]
            seen = seen_from.get((src_key, players))
            if seen is None:
                seen = viewers(game, src_key, players)
            if src_key != key and src[:len(cards)] == cards:
                # The first cards of a zone move, in its order (a draw, a zone emptied into another, a pile
                # shuffled back): card by card, each leaves the front of `src` and joins the
                # bottom of `dst`, so `src` loses them and `dst` gains them in their order;
                # done so at once, `src` changed in place (a rule's local may hold that list).
                if seen:
                    for card in cards:
                        k = texts[card]
                        known[k] = known.get(k, 0) | seen
                for card in cards:
                    where[card] = key
                dst += cards
                del src[:len(cards)]
                return
            if len(cards) >= _MANY_CARDS and len(set(cards)) == len(cards):
                _move_many(self, cards, key, dst)
                return
            for card in cards:
                src_key = where[card]
                if src_key is not last_key:  # (most moves take their cards from one zone)
                    last_key = src_key
                    src = zones[src_key]
                    seen = seen_from.get((src_key, players))
                    if seen is None:
                        seen = viewers(game, src_key, players)
                if seen:
                    k = texts[card]
                    known[k] = known.get(k, 0) | seen
                src.remove(card)
                dst.append(card)
                where[card] = key
            return
        for card in cards:
            b.used += step  # (the draw's step, then the move's: an overrun stops at the same one)
            if b.used > b.limit:
                if draws and b.used - 1 > b.limit:
                    b.used -= 1
                b.charge(0)
            src_key = where[card]
            src = zones[src_key]
            if j is not None:
                if src_key not in noted:
                    noted[src_key] = src[:]
                if card not in j.where:
                    j.where[card] = src_key
            if dst is None:
                raise RuleRuntimeError(f"there is no zone `{key}`")
            if src_key is not last_key:  # (most moves take their cards from one zone)
                last_key = src_key
                seen = seen_from.get((src_key, players))
                if seen is None:
                    seen = viewers(game, src_key, players)
            if seen:
                k = str(card)
                if j is not None and k not in j.known:
                    j.known[k] = known.get(k, _MISSING)
                known[k] = known.get(k, 0) | seen
            src.remove(card)
            if limit is not None and len(dst) >= limit:
                raise RuleRuntimeError(f"zone `{key}` is full ({limit} slots)")
            if len(dst) >= MAX_ZONE_SIZE:
                raise RuleRuntimeError(f"zone `{key}` would hold more than {MAX_ZONE_SIZE} cards")
            dst.append(card)
            where[card] = key

    def seed_point(self, shuffles: str | None = None) -> None:
        """Called before an effect that may draw from the seeded generator, before it changes
        anything (``shuffles``: the zone it shuffles, when that is all it does): a setup being
        recorded stops here (everything so far is the same for every seed); one being replayed
        from here takes the budget the recorded run had spent."""
        mode = self.seed_mode
        if mode == "record":
            if self.branch is not None:
                raise Unrecordable
            raise SeedPoint(self.budget.used, shuffles)
        if mode is not None:
            self.budget.used = mode
            self.seed_mode = None

    def shuffle(self, key: str) -> None:
        if self.seed_mode is not None:
            if self.seed_mode == "record":  # reached without a seed point before the op changed anything
                raise Unrecordable
            self.seed_point()
        if self.branch is not None:
            self.shared_change("shuffle (the shared random generator would make the order matter)")
        s = self.s
        cards = s.zones.get(key)
        if cards is None:
            cards = self.zone(key)  # (its error)
        b = self.budget  # (self.charge(len(cards)), written out: a month of some games shuffles a bag)
        b.used += len(cards)
        if b.used > b.limit:
            b.charge(0)
        if self.journal is not None:
            self.journal.zone(key, cards)
        known = s.known
        if known:
            j = self.journal
            texts = self.game.card_texts  # (each card's str(), made once)
            for c in cards:
                k = texts[c]
                if k in known:
                    if j is not None:
                        j.knowledge(k, known)
                    del known[k]  # a shuffled card is lost track of
        if self.s.chance == "explicit":
            chance.shuffled(self, key)  # nobody knows the order: it is picked card by card when read
        else:
            self.s.rng = rng_shuffle(self.s.rng, cards)

    def reveal(self, cards: list[int], players: list[int] | None) -> None:
        """Let players (all, when None) know these cards."""
        n = self.s.num_players
        mask = (1 << n) - 1 if players is None else sum(1 << p for p in set(players) if 0 <= p < n)
        known = self.s.known
        j = self.journal
        for c in cards:
            k = str(c)
            if j is not None:
                j.knowledge(k, known)
            known[k] = known.get(k, 0) | mask

    # ---- tokens
    def token_count(self, holder: str, token: str, side: str | None = None) -> int:
        t = self.s.tokens
        if side is not None:
            if side not in self.game.token_sides[token]:
                raise RuleRuntimeError(f"{token} has no side {side!r}")
            return t.get(f"{holder}|{token}|{side}", 0)
        sides = self.game.token_sides[token]
        if len(sides) == 1:  # most tokens have one side: its count, without a generator
            return t.get(f"{holder}|{token}|{sides[0]}", 0)
        total = 0
        for sd in sides:  # a loop, not a generator: this is read in many conditions
            total += t.get(f"{holder}|{token}|{sd}", 0)
        return total

    def transfer(self, amount: int, token: str, src: str, dst: str, side: str | None, strict: bool,
                 arrive_side: str | None = None) -> int:
        """Move tokens; spends sides from the last declared to the first. Returns how many moved."""
        if amount < 0:
            raise RuleRuntimeError(f"cannot move a negative number of {token} ({amount})")
        t = self.s.tokens
        if self.branch is not None:
            mine = (f"p{self.branch.player}", "supply")
            if src not in mine or dst not in mine:
                self.shared_change("move tokens between other holders than its player and the supply")
        if self.journal is not None:
            self.journal.all_tokens(t)
        for sd in (side, arrive_side):
            if sd is not None and sd not in self.game.token_sides[token]:
                raise RuleRuntimeError(f"{token} has no side {sd!r}")
        sides = [side] if side else list(reversed(self.game.token_sides[token]))
        have = 0
        for sd in sides:  # (a loop, no generator made)
            have += t.get(f"{src}|{token}|{sd}", 0)
        if have < amount:
            if strict:
                raise RuleRuntimeError(f"{self.holder_label(src)} has {have} {token}, not {amount}")
            amount = have
        left = amount
        for sd in sides:
            if not left:
                break
            k = f"{src}|{token}|{sd}"
            take = min(left, t.get(k, 0))
            if take:
                t[k] -= take
                arrive = arrive_side or (sd if src != "supply" else self.game.token_sides[token][0])
                if dst == "supply":
                    arrive = self.game.token_sides[token][0]
                dk = f"{dst}|{token}|{arrive}"
                t[dk] = t.get(dk, 0) + take
                left -= take
        return amount

    def transfer_plain(self, amount: int, token: str, src: str, dst: str, strict: bool) -> int:
        """``transfer`` of tokens of one side, no side named (most `gain`s and `pay`s): the count
        read once rather than per side. Any other, through ``transfer``."""
        sides = self.game.token_sides[token]
        if len(sides) != 1 or self.branch is not None:
            return self.transfer(amount, token, src, dst, None, strict)
        if amount < 0:
            raise RuleRuntimeError(f"cannot move a negative number of {token} ({amount})")
        t = self.s.tokens
        if self.journal is not None:
            self.journal.all_tokens(t)
        k = f"{src}|{token}|{sides[0]}"
        have = t.get(k, 0)
        if have < amount:
            if strict:
                raise RuleRuntimeError(f"{self.holder_label(src)} has {have} {token}, not {amount}")
            amount = have
        if amount:
            t[k] -= amount
            dk = f"{dst}|{token}|{sides[0]}"
            t[dk] = t.get(dk, 0) + amount
        return amount

    def holder_label(self, key: str) -> str:
        if key == "supply":
            return "the supply"
        if key.startswith("p"):
            return self.game.player_name(int(key[1:]))
        if key.startswith("c"):
            return self.game.card_names[int(key[1:])]
        return key[2:] if key.startswith("m:") else key


# ---- effects -----------------------------------------------------------------------------


_MANY_CARDS = 32  # from this many cards a move takes them out of each zone in one pass


def _move_many(m: Machine, cards: list[int], key: str, dst: list[int]) -> None:
    """``Machine.move_cards``' card by card, for many distinct cards once paid for: each zone they
    leave loses them in one pass rather than a search and a shift for each (moving a deck of N
    cards was N times its length), then they join `dst` at the bottom in the same order. The
    same zones, order and knowledge as one by one: the cards `dst` already held go to its bottom
    too, after the ones that stay."""
    s = m.s
    game = m.game
    where, zones, known, texts = s.where, s.zones, s.known, game.card_texts
    leaving: dict[str, set[int]] = {}  # zone key -> the cards leaving it
    seen_from: dict[str, int] = {}  # zone key -> who saw its cards
    for card in cards:
        src_key = where[card]
        gone = leaving.get(src_key)
        if gone is None:
            gone = leaving[src_key] = set()
            seen = game.viewer_cache.get((src_key, s.num_players))
            seen_from[src_key] = seen if seen is not None else viewers(game, src_key, s.num_players)
        gone.add(card)
        seen = seen_from[src_key]
        if seen:
            k = texts[card]
            known[k] = known.get(k, 0) | seen
        where[card] = key
    for src_key, gone in leaving.items():
        src = zones[src_key]
        src[:] = [c for c in src if c not in gone]  # (in place: a rule's local may hold this list)
    dst.extend(cards)


def _eff_move(m: Machine, cards, zone, position=None) -> None:
    for c in list(cards):
        m.move_card(c, zone, position)


def _eff_draw(m: Machine, count, source, zone, position=None, name=None, frame=None) -> None:
    drawn = _draw(m, count, source, zone, position)
    if name is not None and frame is not None:
        frame.locals[name] = drawn


def _draw(m: Machine, count, source, zone, position=None) -> list[int]:
    drawn = []
    src = m.zone(source)
    zone_name, _, owner = source.partition("#")
    refill = m.game.zone_refill.get(zone_name)
    if refill and m.seed_mode is not None:
        m.seed_point()  # a refill shuffles
    if refill and owner:
        refill = f"{refill}#{owner}"  # a player's pile refills from that player's own zone
    for _ in range(max(0, count)):
        m.charge(1)
        if not src and refill:
            other = m.zone(refill)
            if other:
                for c in list(other):
                    m.move_card(c, source)
                m.shuffle(source)
                _log_refill(m, refill, zone_name, owner)
        if not src:
            break
        if m.s.unordered and source in m.s.unordered:
            chance.resolve(m, source, 1)  # the top card, picked now among the cards nobody knows
        c = src[0]
        m.move_card(c, zone, position)
        drawn.append(c)
    return drawn


def _log_refill(m: Machine, refill: str, zone_name: str, owner: str) -> None:
    g = m.game
    whose = f"{g.player_name(int(owner))}'s " if owner else "the "
    m.log("event", None, f"{whose}{g.display_name(refill.split('#')[0])} is shuffled into "
                         f"{'their' if owner else 'the'} {g.display_name(zone_name)}")


def draw_cards(m: Machine, count, source, zone) -> list[int]:
    """``_eff_draw`` to the bottom of another zone, of cards whose order is known: the cards
    between two refills moved together (``Machine.move_cards``), each paid as the draw and its
    move pay for it."""
    src = m.zone(source)
    if source == zone or m.s.unordered or type(count) is not int or m.seed_mode is not None:
        return _draw(m, count, source, zone)
    if count <= len(src):  # (most draws: no refill on the way, so none looked up) the loop below, once
        if count <= 0:
            return []
        cards = src[:count]
        m.move_cards(cards, zone, draws=1)
        return cards
    zone_name, _, owner = source.partition("#")
    refill = m.game.zone_refill.get(zone_name)
    if refill:
        if count > len(src) and m.s.chance == "explicit":  # a refill leaves an order nobody knows
            return _draw(m, count, source, zone)
        if owner:
            refill = f"{refill}#{owner}"  # a player's pile refills from that player's own zone
    drawn: list[int] = []
    left = count
    while left > 0:
        k = min(left, len(src))
        if k:
            cards = src[:k]
            m.move_cards(cards, zone, draws=1)
            drawn += cards
            left -= k
            if not left:
                break
        m.charge(1)  # the step of the draw that finds the source empty
        if not refill:
            break
        other = m.zone(refill)
        if not other:
            break
        m.move_cards(list(other), source)
        m.shuffle(source)
        _log_refill(m, refill, zone_name, owner)
        c = src[0]  # that draw goes on, with the step it has paid
        m.move_cards([c], zone)
        drawn.append(c)
        left -= 1
    return drawn


def _eff_shuffle(m: Machine, zone, into=None) -> None:
    if m.seed_mode is not None:
        m.seed_point(zone if into is None else None)
    if into is not None:
        for c in list(m.zone(zone)):
            m.move_card(c, into)
        m.shuffle(into)
    else:
        m.shuffle(zone)


def _eff_reveal(m: Machine, cards, players=None) -> None:
    if isinstance(players, int):
        players = [players]
    m.reveal(list(cards), players)


def _eff_gain(m: Machine, amount, token, holder, source="supply", side=None) -> None:
    m.transfer(amount, token, source or "supply", holder, None, strict=False, arrive_side=side)


def _eff_pay(m: Machine, amount, token, holder, target="supply", side=None) -> None:
    m.transfer(amount, token, holder, target or "supply", side, strict=True)


def _eff_flip(m: Machine, amount, token, holder, side) -> None:
    t = m.s.tokens
    if m.journal is not None:
        m.journal.all_tokens(t)
    for sd in reversed(m.game.token_sides[token]):
        if sd == side or amount <= 0:
            continue
        k = f"{holder}|{token}|{sd}"
        n = min(amount, t.get(k, 0))
        if n:
            t[k] -= n
            dk = f"{holder}|{token}|{side}"
            t[dk] = t.get(dk, 0) + n
            amount -= n


def _eff_place(m: Machine, card, zone, spot) -> None:
    if zone.split("#")[0] not in m.game.zone_grids:
        raise RuleRuntimeError(f"`{zone}` is not a grid zone: declare it `zone {zone.split('#')[0]}: public, grid`")
    if card is None:
        raise RuleRuntimeError("no card to place")
    m.move_card(card, zone, None, cell=_check_spot(spot))


EFFECTS = {
    "move": _eff_move,
    "place": _eff_place,
    "draw": _eff_draw,
    "shuffle": _eff_shuffle,
    "gain": _eff_gain,
    "pay": _eff_pay,
    "flip": _eff_flip,
    "reveal": _eff_reveal,
}


# ---- grids --------------------------------------------------------------------------------
# A card laid on a grid zone has a cell (row, column) and a facing; rows grow southward and
# columns eastward. A spot is the list [row, column, facing]. Cards may be stacked on a cell;
# the one laid last is on top, and only top cards make lines, ends and neighbours.

FACINGS = ("north", "east", "south", "west")
STEPS = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
MAX_COORDINATE = 10_000


def _check_spot(spot) -> list:
    if (not isinstance(spot, list) or len(spot) != 3 or type(spot[0]) is not int or type(spot[1]) is not int
            or spot[2] not in STEPS):
        raise RuleRuntimeError(f"not a spot (a row, a column and a facing): {spot!r}"[:200])
    if abs(spot[0]) > MAX_COORDINATE or abs(spot[1]) > MAX_COORDINATE:
        raise RuleRuntimeError(f"a cell past row or column {MAX_COORDINATE}")
    return [spot[0], spot[1], spot[2]]


def _grid(m: Machine, key: str) -> dict:
    """(row, column) -> the cards on that cell, bottom first; remembered in the define memo, until
    the state may change (a card laid or moved on a grid forgets it at once, see move_card)."""
    memo_key = ("$grid", key)
    found = m.memo.get(memo_key)
    if found is None:
        if key.split("#")[0] not in m.game.zone_grids:
            raise RuleRuntimeError(f"`{key}` is not a grid zone")
        cards = m.zone(key)
        m.charge(len(cards))
        found = {}
        cells = m.s.cells
        for c in cards:
            cell = cells.get(str(c))
            if cell is not None:
                found.setdefault((cell[0], cell[1]), []).append(c)
        m.memo[memo_key] = found
    return found


def _laid(m: Machine, card) -> tuple[dict, list]:
    """The grid a card lies on, and its cell."""
    if card is None:
        raise RuleRuntimeError("no card here")
    cell = m.s.cells.get(str(card))
    if cell is None:
        raise RuleRuntimeError(f"{m.game.card_names[card]} is not laid on a grid")
    return _grid(m, m.s.where[card]), cell


def _top(grid: dict, r: int, c: int):
    cards = grid.get((r, c))
    return cards[-1] if cards else None


def _across(facing: str) -> tuple[int, int]:
    """The axis of cards side by side: across a facing (north or south: along the row)."""
    return (0, 1) if facing in ("north", "south") else (1, 0)


def _run(m: Machine, grid: dict, r: int, c: int, facing: str) -> tuple[list, list, tuple, tuple]:
    """The cards facing `facing` side by side on both sides of a cell (the cell left out), and the
    cells just past each end."""
    dr, dc = _across(facing)
    cells = m.s.cells
    runs = []
    for sign in (-1, 1):
        run = []
        rr, cc = r + sign * dr, c + sign * dc
        while (t := _top(grid, rr, cc)) is not None and cells[str(t)][2] == facing:
            m.charge(1)
            run.append(t)
            rr, cc = rr + sign * dr, cc + sign * dc
        runs.append((run, (rr, cc)))
    (before, end0), (after, end1) = runs
    return list(reversed(before)), after, end0, end1


def _open_spots(m: Machine, zone):
    grid = _grid(m, zone)
    if not grid:
        return [[0, 0, f] for f in FACINGS]
    empty = set()
    for (r, c) in grid:
        for dr, dc in STEPS.values():
            if (r + dr, c + dc) not in grid:
                empty.add((r + dr, c + dc))
    m.charge(len(empty))
    return [[r, c, f] for r, c in sorted(empty) for f in FACINGS]


def _where(m: Machine, x, part: int):
    if isinstance(x, list):
        return _check_spot(x)[part]
    if x is None:
        return None
    cell = m.s.cells.get(str(x))
    return cell[part] if cell is not None else None


def _spot_of(m: Machine, card):
    cell = m.s.cells.get(str(card)) if card is not None else None
    return list(cell) if cell is not None else None


def _step(m: Machine, spot, toward):
    r, c, f = _check_spot(spot)
    dr, dc = STEPS[toward]
    return _check_spot([r + dr, c + dc, f])


def _rotated(m: Machine, facing, turns):
    return FACINGS[(FACINGS.index(facing) + turns) % 4]


def _cards_at(m: Machine, zone, r, c):
    return list(_grid(m, zone).get((r, c), ()))


def _beside(m: Machine, card):
    grid, (r, c, _) = _laid(m, card)
    found = (_top(grid, r + dr, c + dc) for dr, dc in STEPS.values())
    return [x for x in found if x is not None]


def _neighbours(m: Machine, card):
    grid, (r, c, _) = _laid(m, card)
    found = (_top(grid, r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
    return [x for x in found if x is not None]


def _around(m: Machine, zone, spot):
    r, c, _ = _check_spot(spot)
    grid = _grid(m, zone)
    found = (_top(grid, r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
    return [x for x in found if x is not None]


def _line(m: Machine, card):
    grid, (r, c, f) = _laid(m, card)
    before, after, _, _ = _run(m, grid, r, c, f)
    return before + [card] + after


def _ends(m: Machine, card):
    grid, (r, c, f) = _laid(m, card)
    _, _, end0, end1 = _run(m, grid, r, c, f)
    found = (_top(grid, *end0), _top(grid, *end1))
    return [x for x in found if x is not None]


def _line_at(m: Machine, zone, spot):
    r, c, f = _check_spot(spot)
    before, after, _, _ = _run(m, _grid(m, zone), r, c, f)
    return before + after


def _faces(m: Machine, a, b):
    ca, cb = m.s.cells.get(str(a)), m.s.cells.get(str(b))
    if ca is None or cb is None or m.s.where[a] != m.s.where[b]:
        return False
    dr, dc = STEPS[ca[2]]
    return (ca[0] + dr, ca[1] + dc) == (cb[0], cb[1])


# ---- functions ---------------------------------------------------------------------------


def _items(x) -> list:
    return list(x) if x is not None else []


def _index_of(m, xs, x):
    if xs.__class__ is list:  # most often (`index_of(players, p)`): no copy of the list first
        return xs.index(x) if x in xs else -1
    return _items(xs).index(x) if x in (xs or ()) else -1


def _max(m, *xs):
    vals = list(xs[0]) if len(xs) == 1 and isinstance(xs[0], list) else list(xs)
    return max(vals) if vals else 0


def _min(m, *xs):
    vals = list(xs[0]) if len(xs) == 1 and isinstance(xs[0], list) else list(xs)
    return min(vals) if vals else 0


def _flatten(m, xs):
    out = []
    for x in xs:
        if isinstance(x, list):
            out.extend(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                if len(out) + v > MAX_LIST_SIZE:
                    raise RuleRuntimeError(f"`flatten` would make a list of more than {MAX_LIST_SIZE} items")
                out.extend([k] * v)
        else:
            out.append(x)
        if len(out) > MAX_LIST_SIZE:
            raise RuleRuntimeError(f"`flatten` would make a list of more than {MAX_LIST_SIZE} items")
    return out


def _bag(m, xs):
    out: dict = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def _shortfall(m, need, have):
    return check_int(sum(max(0, v - have.get(k, 0)) for k, v in need.items()))


def _range(m, lo, hi):
    if hi - lo > MAX_LIST_SIZE:
        raise RuleRuntimeError(f"range({lo}, {hi}) is too long")
    return list(range(lo, hi + 1))


def _lookup(m, table, i):
    if not table:
        return 0
    return table[max(0, min(i, len(table) - 1))]


def _named(m, name):
    m.charge(len(m.game.card_names))
    ids = [i for i, n in enumerate(m.game.card_names) if n == name]
    if not ids:
        raise RuleRuntimeError(f"no card is named {name!r}")
    return ids


def _zone_of(m, card) -> list:
    z = m.read_zone(m.s.where[card])  # its order, fixed by chance if nobody knew it
    m.charge(len(z))
    return z


def _position(m, card):
    return _zone_of(m, card).index(card)


def _left_of(m, card):
    z = _zone_of(m, card)
    return z[: z.index(card)]


def _right_of(m, card):
    z = _zone_of(m, card)
    return z[z.index(card) + 1:]


def _adjacent(m, a, b):
    if a is None or b is None or m.s.where[a] != m.s.where[b]:
        return False
    z = _zone_of(m, a)
    return abs(z.index(a) - z.index(b)) == 1


def _owner(m, card):
    key = m.s.where[card]
    return int(key.split("#")[1]) if "#" in key else None


def _players_from(m, p):
    n = m.s.num_players
    return [(p + i) % n for i in range(n)]


def _others(m, p):
    n = m.s.num_players
    return [(p + i) % n for i in range(1, n)]


def _top_scorers(m, lowest: bool = False):
    g = m.game
    sign = -1 if lowest else 1  # the lowest total wins; a tie still goes to the higher tiebreak
    keys = [(sign * check_int(sum(f(m, p) for _, f in g.score_lines)), *(f(m, p) for f in g.tiebreaks))
            for p in range(m.s.num_players)]
    best = max(keys)
    return [p for p, k in enumerate(keys) if k == best]


def _score_part(m, player, label):
    for name, f in m.game.score_lines:
        if name == label:
            return f(m, player)
    raise RuleRuntimeError(f"there is no score line {label!r}")


def _active(m, name, player=None):
    if not m.s.lasting:  # (most often none lasts: no generator made)
        return False
    return any(x.name == name and (player is None or x.player in (-1, player)) for x in m.s.lasting)


FUNCTIONS = {
    "count": lambda m, xs: len(xs) if xs is not None else 0,
    "sum": lambda m, xs: check_int(sum(x for x in xs if x is not None)),
    "max": _max,
    "min": _min,
    "any": lambda m, xs: any(xs),
    "all": lambda m, xs: all(xs),
    "abs": lambda m, x: abs(x),
    "rank_high": lambda m, v, vs: 1 + sum(1 for x in vs if x > v),
    "rank_low": lambda m, v, vs: sum(1 for x in vs if x >= v),
    "rank_dense": lambda m, v, vs: 1 + len({x for x in vs if x > v}),
    "first": lambda m, xs: xs[0] if xs else None,
    "last": lambda m, xs: xs[-1] if xs else None,
    "reversed": lambda m, xs: list(reversed(_items(xs))),
    "distinct": lambda m, xs: list(dict.fromkeys(_items(xs))),
    "flatten": _flatten,
    "range": _range,
    "lookup": _lookup,
    "take": lambda m, xs, k: _items(xs)[: max(0, k)],
    "index_of": _index_of,
    "bag": _bag,
    "size": lambda m, b: check_int(sum(b.values())),
    "shortfall": _shortfall,
    "cards": lambda m, kind: list(m.game.cards_of_kind.get(kind, ())),
    "card_named": lambda m, name: _named(m, name)[0],
    "cards_named": lambda m, name: _named(m, name),
    "position": _position,
    "left_of": _left_of,
    "right_of": _right_of,
    "adjacent": _adjacent,
    "owner": _owner,
    "zone_name": lambda m, c: m.s.where[c].split("#")[0],
    "knows": lambda m, p, c: p is not None and c is not None and card_visible(m.game, m.s, c, p),
    "players_from": _players_from,
    "next_player": lambda m, p: (p + 1) % m.s.num_players,
    "previous_player": lambda m, p: (p - 1) % m.s.num_players,
    "others": _others,
    "tokens": lambda m, holder, token, side=None: m.token_count(holder, token, side),
    "active": _active,
    "top_scorers": lambda m: _top_scorers(m),
    "lowest_scorers": lambda m: _top_scorers(m, lowest=True),
    "score_of": lambda m, p: check_int(sum(f(m, p) for _, f in m.game.score_lines)),
    "score_part": lambda m, p, label: _score_part(m, p, label),
    "open_spots": _open_spots,
    "spot_at": lambda m, r, c, f: _check_spot([r, c, f]),
    "spot": _spot_of,
    "row": lambda m, x: _where(m, x, 0),
    "column": lambda m, x: _where(m, x, 1),
    "facing": lambda m, x: _where(m, x, 2),
    "step": _step,
    "rotated": _rotated,
    "card_at": lambda m, z, r, c: _top(_grid(m, z), r, c),
    "cards_at": _cards_at,
    "beside": _beside,
    "neighbours": _neighbours,
    "around": _around,
    "line": _line,
    "ends": _ends,
    "line_at": _line_at,
    "faces": _faces,
}
