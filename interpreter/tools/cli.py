"""The ``rulelang`` command (also ``python -m interpreter``).

Subcommands: ``check``, ``info``, ``play``, ``serve``, ``simulate``, ``replay``, ``bench``, ``test``,
``validate``, ``explain``, ``lsp`` (the language server for editors); run ``rulelang COMMAND --help``
for each one's arguments.

Exit status: 0 success; 1 an error (rule-file diagnostics, a bad option value, a game
that failed during simulation, a log that does not replay, a failed scenario, an invariant
that `validate` saw broken); 2 bad command-line usage
(from argparse); 130 a game of ``play`` abandoned with ``q``, end of input or Ctrl-C.
Errors are printed as one message without a traceback; set ``RULELANG_DEBUG=1`` to get
the traceback too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from rulelang.printable import printable

from ..agents import AGENT_NAMES, agent_seed, make_agent, parse_agent_spec
from .parallel import default_workers
from .play import QUIT_EXIT_CODE, HumanAgent, QuitGame, format_log_entry, render_result, seat_name
from .progress import Progress
from .simulate import (
    LogError,
    bench,
    format_bench,
    format_summary,
    log_from_state,
    next_player,
    replay,
    save_log,
    simulate,
    why_unplayable,
)

__all__ = ["build_parser", "main", "parse_option"]


def _workers(args: argparse.Namespace) -> int:
    return args.workers if args.workers is not None else default_workers()


# --------------------------------------------------------------------------- argument types


def parse_option(text: str) -> tuple[str, Any]:
    """``K=V`` from the command line: ``true``/``false`` become booleans, whole numbers
    become ints, anything else stays a string (an enum choice)."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    if re.fullmatch(r"-?\d+", value):
        return key, int(value)
    return key, value


def _number(convert: Callable[[str], Any], what: str, allowed: Callable[[Any], bool],
            refusal: str) -> Callable[[str], Any]:
    """An argparse type: the text read by ``convert`` (int or float), then checked by ``allowed``;
    each refusal says what was expected (``refusal`` may name the ``{value}`` given)."""
    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not allowed(value):
            raise argparse.ArgumentTypeError(refusal.format(value=value))
        return value
    return parse


_positive_int = _number(int, "a whole number", lambda v: v >= 1, "expected a number of at least 1, got {value}")
_delay = _number(float, "a number of seconds", lambda v: 0 <= v <= 60, "expected a number of seconds from 0 to 60")
_port = _number(int, "a port number", lambda v: 0 <= v <= 65535, "expected a port from 0 (any free port) to 65535")
_seconds = _number(float, "a number of seconds", lambda v: v > 0, "expected a positive number of seconds")


def _agent_list(text: str) -> list[str]:
    """Agents, one per seat, comma-separated; an agent's parameters follow a colon
    (``mcts:iterations=400,random`` or ``mcts:iterations=400:exploration=1``)."""
    names: list[str] = []
    for part in (n.strip().lower() for n in text.split(",") if n.strip()):
        if names and "=" in part and ":" not in part:
            names[-1] += ":" + part  # another parameter of the agent before
        else:
            names.append(part)
    if not names:
        raise argparse.ArgumentTypeError(
            f"no agent named; choose from {', '.join(AGENT_NAMES)} (comma-separated, one per seat)")
    for name in names:
        try:
            parse_agent_spec(name)
        except ValueError as err:
            raise argparse.ArgumentTypeError(f"{err} (comma-separated, one per seat)") from None
    return names


# --------------------------------------------------------------------------- helpers


class CommandError(Exception):
    """A problem with what was asked (exit 1, message only)."""


def _options(args: argparse.Namespace) -> dict:
    return dict(getattr(args, "option", None) or [])


def _load(path: str, options: dict | None = None, house: list[str] | None = None) -> Any:
    import interpreter

    if not os.path.exists(path):
        raise CommandError(f"{path}: no such game folder or rule file")
    kwargs: dict[str, Any] = {}
    if house:
        kwargs["house"] = list(house)
    return interpreter.load(path, options=options or {}, **kwargs)


def _check_players(game: Any, players: int) -> None:
    """Refuse, before anything is played, a player count or option set the game does not allow."""
    refused = why_unplayable(game, players)
    if refused:
        raise CommandError(refused)


def _seat_agents(names: list[str] | None, players: int, default: list[str],
                 parser: argparse.ArgumentParser) -> list[str]:
    if names is None:
        return default
    if len(names) == 1:
        return names * players
    if len(names) != players:
        parser.error(f"--agents names {len(names)} agents for {players} players "
                     "(give one name for every seat, or a single name for all)")
    return names


def echo(*parts: object, file: Any = None, **kwargs: Any) -> None:
    """`print`, with control characters escaped (``rulelang.printable``): rule files, logs and
    saves may hold ESC or BEL, and every command prints through this."""
    print(*(printable(p) for p in parts), file=file if file is not None else sys.stdout, **kwargs)


def _players(n: int) -> str:
    return f"{n} player{'s' if n != 1 else ''}"


def _dump_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


# --------------------------------------------------------------------------- commands


def cmd_check(args: argparse.Namespace) -> int:
    game = _load(args.path, _options(args), args.house)
    span = f"{game.min_players}" if game.min_players == game.max_players else \
        f"{game.min_players}-{game.max_players}"
    extra = f", {len(args.house)} house rule file(s)" if args.house else ""
    echo(f"{args.path}: ok ({game.name}, {span} players, {len(game.options)} options{extra})")
    return 0


def _option_domain(opt: Any) -> str:
    kind = getattr(opt, "kind", "")
    choices = list(getattr(opt, "choices", []) or [])
    if kind == "bool":
        return "true | false"
    if kind == "range" and choices:
        return f"{min(choices)} to {max(choices)}"
    if kind == "int" or not choices:
        return "a whole number"
    return " | ".join(str(c) for c in choices)


def _fmt_default(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def cmd_info(args: argparse.Namespace) -> int:
    game = _load(args.path, house=args.house)
    if args.json:
        _dump_json({
            "name": game.name,
            "source_path": getattr(game, "source_path", args.path),
            "min_players": game.min_players,
            "max_players": game.max_players,
            "options": [{"name": o.name, "kind": o.kind, "choices": list(o.choices),
                         "default": o.default, "doc": o.doc} for o in game.options],
        })
        return 0
    echo(game.name)
    echo(f"  rules:   {getattr(game, 'source_path', args.path)}")
    span = f"{game.min_players}" if game.min_players == game.max_players else \
        f"{game.min_players} to {game.max_players}"
    echo(f"  players: {span}")
    if not game.options:
        echo("  options: none")
        return 0
    echo("  options (set with --option NAME=VALUE):")
    for opt in game.options:
        echo(f"    {opt.name}: {_option_domain(opt)}  (default {_fmt_default(opt.default)})")
        if getattr(opt, "doc", ""):
            echo(f"        {opt.doc}")
    return 0


def cmd_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    game = _load(args.path, _options(args), args.house)
    _check_players(game, args.players)
    names = _seat_agents(args.agents, args.players, ["human"] + ["random"] * (args.players - 1), parser)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    hotseat = names.count("human") > 1
    plain = True if args.plain else None
    agents = [HumanAgent(hotseat=hotseat, title=game.name, plain=plain, confirm_forced=args.confirm_forced)
              if n == "human" else make_agent(n, agent_seed(seed, i)) for i, n in enumerate(names)]
    humans = [i for i, n in enumerate(names) if n == "human"]
    who = ", ".join(f"{seat_name(i)} {n}" for i, n in enumerate(names))
    echo(f"{game.name}: {_players(args.players)} ({who}), seed {seed}")
    state = game.new_game(players=args.players, seed=seed)
    shown = 0
    try:
        while not state.is_over:
            player = next_player(state)
            action = agents[player].choose(state, player)
            state.apply(action)
            if not humans:  # watching computer players: print the log as it grows
                for entry in state.log[shown:]:
                    echo(format_log_entry(entry))
                shown = len(state.log)
    finally:
        if args.save_log:
            save_log(args.save_log, log_from_state(game, state, args.path, names))
            echo(f"game log saved to {args.save_log}")
    if humans:
        recap = agents[humans[0]].recap(state, humans[0])
        if recap:
            echo("Since your last decision:")
            echo("\n".join(recap))
    echo(render_result(state))
    return 0


def _known_agent(name: Any) -> bool:
    """Whether a name read from a log names an agent (a log is untrusted: anything else is ignored)."""
    try:
        parse_agent_spec(name)
    except (ValueError, AttributeError, TypeError):
        return False
    return True


def _serve_table(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    """The game to serve: a new one, or one resumed from a game log (``--resume``)."""
    from ..web.session import Table, restore_from_log

    if args.resume:
        game, states, log, path = restore_from_log(args.resume, args.path, args.house)
        state = states[-1]
        logged = log.get("agents")
        default = logged if isinstance(logged, list) and len(logged) == state.num_players and all(
            _known_agent(n) for n in logged) else ["human"] * state.num_players
        names = _seat_agents(args.agents, state.num_players, default, parser)
        return Table.start(game, state, names, path, log["seed"], args.save_log or args.resume,
                           autosave=bool(args.save_log))
    if args.path is None:
        parser.error("give a game folder (or --resume LOG or --replay LOG)")
    if args.players is None:
        parser.error("--players is required for a new game")
    game = _load(args.path, _options(args), args.house)
    _check_players(game, args.players)
    names = _seat_agents(args.agents, args.players, ["human"] + ["random"] * (args.players - 1), parser)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    state = game.new_game(players=args.players, seed=seed)
    save = args.save_log or f"{os.path.basename(os.path.normpath(args.path))}-seed{seed}.log.json"
    return Table.start(game, state, names, args.path, seed, save, autosave=bool(args.save_log))


def cmd_serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        from ..web import server
        from ..web.session import Replay
    except ImportError as err:
        raise CommandError(f"rulelang serve needs the web extra ({err.name} is missing): "
                           "pip install 'rulelang[web]'") from None
    if args.resume and args.replay:
        parser.error("--resume and --replay cannot be used together")
    table = replay = None
    if args.replay:
        replay = Replay.from_log(args.replay, args.path, args.house)
    else:
        table = _serve_table(args, parser)
    app = server.make_app(table, replay, bot_delay=args.bot_delay)
    try:
        sock = server.listen(args.host, args.port)
    except OSError as err:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    base = server.base_url(sock)
    urls = []
    if replay is not None:
        echo(f"{replay.game.name}: replay of {args.replay}, {replay.steps} moves")
        urls.append(("Replay", f"{base}/replay/{replay.token}"))
    else:
        assert table is not None
        who = ", ".join(f"{seat_name(i)} {n}" for i, n in enumerate(table.agents))
        state = table.state
        status = "game over" if state.is_over else f"{len(state.actions_taken)} moves played" \
            if state.actions_taken else "new game"
        echo(f"{table.game.name}: {_players(state.num_players)} ({who}), seed {table.seed}, {status}")
        humans = table.human_seats
        for seat in humans:
            urls.append((seat_name(seat), f"{base}/seat/{table.token_of(seat)}"))
        if table.hotseat_token:
            urls.append(("Hot-seat (every human seat in one browser)", f"{base}/hotseat/{table.hotseat_token}"))
        if not humans:
            for seat in range(state.num_players):
                urls.append((f"Watch as {seat_name(seat)}", f"{base}/seat/{table.token_of(seat)}"))
        echo(f"Save writes the game log to {table.save_path}"
             + (" (also after every move)" if table.autosave else ""))
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how a server is stopped: not an error
        for label, url in urls:
            echo(f"  {label}: {url}")
        print("Each URL is private to its seat. Ctrl-C stops the server.", flush=True)
        if args.open and urls:
            import webbrowser

            webbrowser.open(urls[0][1])
        server.run(app, sock)
    if table is not None and table.autosave and table.save_path:
        table.save()
    print("server stopped")
    return 0


def cmd_simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    game = _load(args.path, _options(args), args.house)
    _check_players(game, args.players)
    names = _seat_agents(args.agents, args.players, ["random"] * args.players, parser)
    if "human" in names:
        parser.error("simulate runs without people: use random, greedy or mcts agents")
    progress = Progress(args.games, label="games", quiet=args.quiet or args.json)
    summary = simulate(game, args.players, args.games, seed=args.seed, agent_names=names,
                       progress=progress, save_logs=args.save_logs, game_path=args.path,
                       workers=_workers(args), ray=args.ray)
    if args.json:
        _dump_json(summary.to_dict())
    else:
        echo(format_summary(summary))
        if args.save_logs:
            echo(f"game logs saved in {args.save_logs}")
    if summary.errors:
        echo(f"rulelang: {len(summary.errors)} of {summary.games} games stopped with an error",
              file=sys.stderr)
        return 1
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    result = replay(args.log, game_path=args.game, house=args.house or None)
    echo(f"{args.log}: {result.message}", file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 1


def cmd_test(args: argparse.Namespace) -> int:
    from .scenario import format_report, run_paths, scenario_files

    missing = [p for p in args.paths + args.check if not os.path.exists(p)]
    if missing:
        raise CommandError(f"no such file or folder: {', '.join(missing)}")
    if args.mutate:
        return cmd_mutate(args)
    if not scenario_files(args.paths):
        raise CommandError("no scenario files found (they end in .scenario)")
    start = time.perf_counter()
    progress = Progress(len(scenario_files(args.paths)), label="files", quiet=args.quiet,
                        description="Scenario files")
    results = run_paths(args.paths, args.house or None, workers=_workers(args), ray=args.ray, progress=progress)
    echo(format_report(results, time.perf_counter() - start))
    return 0 if all(r.passed for r in results) else 1


def cmd_mutate(args: argparse.Namespace) -> int:
    from .mutate import MutationError, format_mutation_report, run_mutation

    files = [p for p in args.paths if p.endswith(".rules")]
    paths = [p for p in args.paths if not p.endswith(".rules")]
    if not files:
        raise CommandError("--mutate needs the rule files to mutate (ending in .rules)")
    bar: list[Progress] = []  # made at the first mutant, when their number is known

    def progress(k: int, n: int, result) -> None:
        if not bar:
            bar.append(Progress(n, label="mutants", quiet=args.quiet, description="Mutants"))
        bar[0].update(k)

    start = time.perf_counter()
    try:
        report = run_mutation(files, paths or None, checks=args.check, house=args.house or None,
                              timeout=args.timeout, progress=progress)
    except MutationError as err:
        raise CommandError(str(err)) from None
    finally:
        for b in bar:
            b.close()
    echo(format_mutation_report(report, time.perf_counter() - start))  # it quotes paths and rules
    if args.fail_under is not None and any(100 * report.kill_rate(f) < args.fail_under for f in files):
        echo(f"rulelang: a kill rate is under {args.fail_under:g}%", file=sys.stderr)
        return 1
    return 0


VALIDATE_PARTS = ("static", "dynamic", "balance", "matchups")


def _effects(items: list[tuple[str, Any]]) -> dict[str, float]:
    from .sequential import QUESTION_KEYS

    out = {}
    for key, value in items:
        if key not in QUESTION_KEYS:
            raise CommandError(f"--effect {key}=...: no such question; the questions are {', '.join(QUESTION_KEYS)}")
        try:
            size = float(str(value).rstrip("%")) / (100 if str(value).endswith("%") else 1)
        except ValueError:
            raise CommandError(f"--effect {key}={value}: expected a number (0.1 or 10%)") from None
        if not 0 < size < 10:
            raise CommandError(f"--effect {key}={value}: expected a positive size such as 0.1 or 10%")
        out[key] = size
    return out


def cmd_validate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from . import validate as v

    if not os.path.exists(args.path):
        raise CommandError(f"{args.path}: no such game folder or rule file")
    parts = set(args.only or VALIDATE_PARTS)
    house = list(args.house)
    warnings, sources, program = v.static_warnings(args.path, house)
    base = _load(args.path, _options(args))
    game = _load(args.path, _options(args), house) if house else base
    players = args.players or v.default_players(game)
    _check_players(game, players)
    agents = _seat_agents(args.agents, players, [], parser) or None
    if agents and "human" in agents:
        parser.error("validate runs without people: use random, greedy or mcts agents")
    effects = _effects(args.effect)
    workers = _workers(args)
    v_agents = list(dict.fromkeys(args.matchup_agents or _matchup_agents()))
    if "human" in v_agents or len(v_agents) < 2:
        parser.error("--matchup-agents needs two or more computer agents")
    seeds = range(args.seed, args.seed + args.games)
    name = game.name + (f" with {', '.join(os.path.basename(h) for h in house)}" if house else "")
    failed = False
    sections: list[tuple[str, str]] = []  # (title, text), printed after the verdict
    warnings_text = None
    if "static" in parts:
        warnings_text = v.format_static(warnings, sources)
        sections.append(("Static analysis", warnings_text))
    validator = v.Validator(game, program, max_decisions=args.max_decisions)
    checked: list = []  # the invariant-checked random games, per variant
    violations: list = []
    note = None
    shown = None
    if "dynamic" in parts:
        runs = [("with house rules" if house else "base", game, validator)]
        if house:
            base_program = v.static_warnings(args.path)[2]
            runs.insert(0, ("base", base, v.Validator(base, base_program, max_decisions=args.max_decisions)))
        checked = v.balance(runs, players, seeds, agents=agents)
        for var in checked:
            violations += [(var.label, x) for x in var.violations]
        lines = []
        mine = [x for label, x in violations if label != "base"]
        lines.append(f"random games: {len(seeds)} played, {len(mine)} broke an invariant")
        examples = args.examples or args.games
        try:
            found, tried = v.explore(game, players, seeds, validator, examples=examples, search_seed=args.seed)
            lines.append(f"exploring choices with hypothesis: {tried} games tried")
        except ImportError:
            found = None
            lines.append("hypothesis is not installed (pip install hypothesis): only random games were checked")
        shown = found or (mine[0] if mine else None)
        base_broken = [x for label, x in violations if label == "base"]
        if shown is None and base_broken:
            shown = base_broken[0]
            lines.append("the base game itself breaks an invariant:")
        if shown is None:
            note = "every invariant held after every decision"
            lines.append(note)
        else:
            failed = True
            note = f"an invariant broke: {shown.name}"
            lines.append(v.format_violation(shown))
        sections.append((f"Invariants ({len(program.invariants)} declared, and the built-in ones)", "\n".join(lines)))
    result = None
    variants: list = []
    if "balance" in parts:
        from .progress import Progress
        from .sequential import compare, format_details, format_verdict

        bar = Progress(2 * args.budget if house else args.budget, label="games", quiet=args.quiet,
                       description="Balance games")
        result = compare(base, game if house else None, players, agents=agents, seed=args.seed,
                         budget=args.budget, effects=effects, workers=workers, ray=args.ray, progress=bar,
                         max_decisions=args.max_decisions)
        variants = [v.variant_from_measures("base", base, players, result.base)]
        if house:
            variants.append(v.variant_from_measures("with house rules", game, players, result.house_games))
        for var in variants:  # the invariant-checked games' findings join the table
            var.violations = next((c.violations for c in checked if c.label == var.label), [])
        sections.append(("Balance: the sequential tests", format_details(result)))
        sections.append(("Balance: the numbers", v.format_balance(variants, range(args.seed, args.seed + result.pairs),
                                                                 agents)))
    matchup_table = None
    if "matchups" in parts:
        from .matchups import format_matchups, matchups
        from .progress import Progress

        pairings = len(v_agents) * (len(v_agents) - 1)
        variants_m = [("base", base)] + ([("with house rules", game)] if house else [])
        bar = Progress(pairings * args.matchup_games * len(variants_m), label="games", quiet=args.quiet,
                       description="Matchups")
        matchup_table = matchups(variants_m, players, v_agents, games=args.matchup_games, seed=args.seed,
                                 workers=workers, ray=args.ray, progress=bar, max_decisions=args.max_decisions)
        sections.append(("Matchups", format_matchups(matchup_table)))

    # the verdict first, then the details
    echo(f"Validating {name}: {players} player{'s' if players != 1 else ''}")
    verdict = []
    if result is not None:
        verdict.append(format_verdict(result))
    if note is not None:
        verdict.append(f"Invariants: {note}.")
    if warnings_text is not None:
        count = len(warnings)
        verdict.append(f"Static analysis: {count or 'no'} warning{'s' if count != 1 else ''}.")
    if verdict:
        echo("\n== Verdict")
        echo("\n".join(verdict))
    for title, text in sections:
        echo(f"\n== {title}")
        echo(text)
    if args.report:
        from .report import html_report

        meta = {"game": args.path, "house rules": ", ".join(house) or "none", "players": players,
                "agents": ", ".join(agents) if agents else "random",
                "invariant-checked random games": len(seeds) if "dynamic" in parts else 0,
                "paired games (sequential tests)": result.pairs if result else 0,
                "seeds": f"from {args.seed}"}
        page = html_report(f"rulelang validate: {name}", meta, warnings_text, variants, shown,
                           v.format_violation(shown) if shown else None, note, sequential=result,
                           matchups=matchup_table, verdict=verdict)
        with open(args.report, "w", encoding="utf-8") as fh:
            fh.write(page)
        echo(f"\nreport written to {args.report}")
    return 1 if failed else 0


def _matchup_agents() -> list[str]:
    from .matchups import computer_agents

    return computer_agents()


def cmd_explain(args: argparse.Namespace) -> int:
    from .cardtext import card_text
    from .explain import explain_card, explain_game

    if not os.path.exists(args.path):
        raise CommandError(f"{args.path}: no such game folder or rule file")
    if args.card and args.full:
        echo(explain_card(args.path, args.card, args.house))
    elif args.card:
        echo(card_text(args.path, args.card, args.house))
    else:
        echo(explain_game(args.path, args.house))
    return 0


def cmd_lsp(args: argparse.Namespace) -> int:
    from rulelang.lsp import main as serve

    return serve()


def cmd_bench(args: argparse.Namespace) -> int:
    if args.profile:
        return _bench_profile(args)
    game = _load(args.path, _options(args), args.house)
    _check_players(game, args.players)
    total = args.games if args.games is not None else (None if args.seconds else 20)
    progress = Progress(total, label="playouts", quiet=args.quiet or args.json)
    result = bench(game, args.players, games=total, seconds=args.seconds, seed=args.seed, progress=progress,
                   workers=_workers(args), ray=args.ray)
    if args.json:
        _dump_json(result.to_dict())
    else:
        echo(format_bench(result))
    return 1 if result.errors else 0


def _bench_profile(args: argparse.Namespace) -> int:
    """`bench --profile`: the playouts in this process (the profiler sees no other), the game
    loaded once, by the profile itself (without the cache, see tools/profile.py)."""
    from .profile import format_profile, profile_playouts

    if args.seconds is not None or args.ray is not None or args.workers is not None:
        raise CommandError("--profile plays --games playouts in this process: not with --seconds, --workers or --ray")
    if not os.path.exists(args.path):
        raise CommandError(f"{args.path}: no such game folder or rule file")
    profile = profile_playouts(args.path, args.players, args.games or 20, args.seed, _options(args), args.house)
    if args.json:
        _dump_json(profile.to_dict())
    else:
        echo(format_profile(profile))
    return 0


# --------------------------------------------------------------------------- parser


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("rulelang")
    except Exception:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulelang",
        description="Check, inspect, play, simulate and benchmark games written in rulelang.",
        epilog="Exit status: 0 ok, 1 error, 2 bad usage, 130 game abandoned.")
    parser.add_argument("--version", action="version", version=f"rulelang {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_option_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--option", action="append", type=parse_option, metavar="NAME=VALUE", default=[],
                       help="set a game option (repeatable); see `rulelang info PATH`")

    path_help = "a game folder (holding game.rules) or a .rules file"

    def add_parallel_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                       help="processes playing games at once (default: every core, here "
                            f"{default_workers()}); the results are the same for any N")
        p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                       help="play on a Ray cluster at ADDRESS (alone: start a local one); "
                            "needs pip install 'rulelang[ray]'")
        p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")

    def add_house_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--house", action="append", default=[], metavar="FILE",
                       help="a house-rule file applied on top of the game (repeatable, in order)")

    p = sub.add_parser("check", help="check rule files and report every error")
    p.add_argument("path", metavar="PATH", help=path_help)
    add_house_arg(p)
    add_option_arg(p)
    p.set_defaults(run=lambda a: cmd_check(a))

    p = sub.add_parser("info", help="show a game's name, player counts and options")
    p.add_argument("path", metavar="PATH", help=path_help)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_house_arg(p)
    p.set_defaults(run=lambda a: cmd_info(a))

    p = sub.add_parser("play", help="play at the terminal against computer players")
    p.add_argument("path", metavar="PATH", help=path_help)
    p.add_argument("--players", type=_positive_int, required=True, metavar="N")
    p.add_argument("--seed", type=int, metavar="S", help="random seed (default: a fresh one, printed)")
    p.add_argument("--agents", type=_agent_list, metavar="A,B,...",
                   help="one agent per seat from human, random, greedy, mcts[:iterations=N|ms=N] (default: human,random,...)")
    p.add_argument("--save-log", metavar="FILE", help="write the game log to FILE when the game stops")
    p.add_argument("--confirm-forced", action="store_true",
                   help="ask even when a decision has only one legal action (default: take it and say so)")
    p.add_argument("--plain", action="store_true",
                   help="no colours (also when the output is not a terminal, or NO_COLOR is set)")
    add_house_arg(p)
    add_option_arg(p)
    p.set_defaults(run=lambda a, p=p: cmd_play(a, p))

    p = sub.add_parser("serve", help="play, watch or step through a game in the browser",
                       description="Start a local web server and print one private URL per human seat "
                                   "(and a hot-seat URL for several people at one browser). --resume LOG "
                                   "goes on with a saved game; --replay LOG steps through a game log.")
    p.add_argument("path", metavar="PATH", nargs="?",
                   help=path_help + " (with --resume or --replay: the game of the log; a log never chooses "
                   "which files are read, except a relative path inside its own folder)")
    p.add_argument("--players", type=_positive_int, metavar="N")
    p.add_argument("--seed", type=int, metavar="S", help="random seed (default: a fresh one, printed)")
    p.add_argument("--agents", type=_agent_list, metavar="A,B,...",
                   help="one agent per seat from " + ", ".join(AGENT_NAMES) + " (default: human,random,...)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--bot-delay", type=_delay, default=0.8, metavar="SECONDS",
                   help="pause before each computer player's move, to follow it (default 0.8)")
    p.add_argument("--save-log", metavar="FILE", help="write the game log to FILE after every move "
                   "(the Save button writes there too)")
    p.add_argument("--resume", metavar="LOG", help="go on with the game saved in LOG")
    p.add_argument("--replay", metavar="LOG", help="step through the game in LOG, forward and back")
    p.add_argument("--open", action="store_true", help="open the first URL in the web browser")
    add_house_arg(p)
    add_option_arg(p)
    p.set_defaults(run=lambda a, p=p: cmd_serve(a, p))

    p = sub.add_parser("simulate", help="play many games between computer agents and sum them up")
    p.add_argument("path", metavar="PATH", help=path_help)
    p.add_argument("--players", type=_positive_int, required=True, metavar="N")
    p.add_argument("--games", type=_positive_int, required=True, metavar="K")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game; game i uses S+i")
    p.add_argument("--agents", type=_agent_list, metavar="A,B,...",
                   help="one agent per seat from random, greedy, mcts[:iterations=N|ms=N] (default: random everywhere)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (and no progress bar)")
    p.add_argument("--save-logs", metavar="DIR", help="write one game log per game into DIR")
    add_house_arg(p)
    add_option_arg(p)
    add_parallel_args(p)
    p.set_defaults(run=lambda a, p=p: cmd_simulate(a, p))

    p = sub.add_parser("replay", help="replay a game log and check it gives the recorded result")
    p.add_argument("log", metavar="LOG", help="a game log written by simulate --save-logs or play --save-log")
    p.add_argument("--game", metavar="PATH", help="the game to replay (a log never chooses which files are "
                                                  "read; without --game, only a relative path inside the "
                                                  "log's folder is used)")
    add_house_arg(p)
    p.set_defaults(run=lambda a: cmd_replay(a))

    p = sub.add_parser("bench", help="measure random playouts, decisions per second, clone cost, memory")
    p.add_argument("path", metavar="PATH", help=path_help)
    p.add_argument("--players", type=_positive_int, required=True, metavar="N")
    p.add_argument("--games", type=_positive_int, metavar="K", help="number of playouts (default 20)")
    p.add_argument("--seconds", type=_seconds, metavar="T", help="play for T seconds instead")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--profile", action="store_true",
                   help="play --games playouts (default 20) in this process under Python's profiler and show "
                        "which defines and procedures take the time")
    add_house_arg(p)
    add_option_arg(p)
    add_parallel_args(p)
    p.set_defaults(run=lambda a: cmd_bench(a))

    p = sub.add_parser("test", help="run scenario files (tests written in the rules' own terms)",
                       description="Run scenario files. With --mutate, give rule files (.rules) to mutate "
                                   "one small change at a time, and optionally the scenario files or folders "
                                   "to run against each mutant (default: the scenarios under each rule "
                                   "file's folder); the mutants no scenario kills are listed.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="scenario files, or folders searched for *.scenario (with --mutate, also the .rules files to mutate)")
    p.add_argument("--house", action="append", default=[], metavar="FILE",
                   help="a house-rule file applied on top of each scenario's game (repeatable)")
    p.add_argument("--mutate", action="store_true",
                   help="mutation testing: mutate the .rules files given and run the scenarios against each mutant")
    p.add_argument("--check", action="append", default=[], metavar="FILE.py",
                   help="with --mutate: a Python file whose check_*(game_dir) functions also run on each mutant")
    p.add_argument("--fail-under", type=float, metavar="PCT",
                   help="with --mutate: exit 1 when a file's kill rate is under PCT percent")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="with --mutate: seconds a mutant may run before it counts as killed (default 60)")
    add_parallel_args(p)
    p.set_defaults(run=lambda a: cmd_test(a))

    p = sub.add_parser("validate", help="find dead rules, check invariants over explored games, compare balance",
                       description="Static warnings (rules that can never matter), invariants checked after "
                                   "every decision of random games and of choices explored and shrunk by "
                                   "hypothesis, and the balance of the base game against the game with the "
                                   "house rules. Exit status 1 when an invariant breaks.")
    p.add_argument("path", metavar="PATH", help=path_help)
    add_house_arg(p)
    p.add_argument("--games", type=_positive_int, default=50, metavar="K",
                   help="random games per variant whose every state is checked against the invariants "
                        "(default 50)")
    p.add_argument("--examples", type=_positive_int, metavar="N",
                   help="games hypothesis explores (default: as many as --games)")
    p.add_argument("--players", type=_positive_int, metavar="N", help="players (default: 2 where allowed)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game; game i uses S+i")
    p.add_argument("--max-decisions", type=_positive_int, default=2000, metavar="N",
                   help="a game still running after N decisions breaks \"the game ends\" (default 2000)")
    p.add_argument("--agents", type=_agent_list, metavar="A,B,...",
                   help="agents for the balance games: random (default) or greedy, one per seat or one for all")
    p.add_argument("--only", action="append", choices=VALIDATE_PARTS, metavar="PART",
                   help="run only this part: static, dynamic, balance or matchups (repeatable)")
    p.add_argument("--budget", type=_positive_int, default=1000, metavar="K",
                   help="the most paired games the sequential tests may play (default 1000)")
    p.add_argument("--effect", action="append", type=parse_option, default=[], metavar="QUESTION=SIZE",
                   help="the smallest change worth detecting, per question: balance=0.1 (win rate), "
                        "length=10%%, spread=20%%, half_time=0.1 (the defaults)")
    p.add_argument("--matchup-games", type=_positive_int, default=20, metavar="K",
                   help="games per matchup cell (default 20)")
    p.add_argument("--matchup-agents", type=_agent_list, metavar="A,B,...",
                   help="the agents of the matchups (default: random,greedy; a searching agent such as "
                        "mcts:iterations=50 joins when named, as its games are far slower)")
    p.add_argument("--report", metavar="FILE.html", help="also write a self-contained HTML report")
    add_option_arg(p)
    add_parallel_args(p)
    p.set_defaults(run=lambda a, p=p: cmd_validate(a, p))

    p = sub.add_parser("explain", help="the rules in plain English: turn structure, procedures, card effects")
    p.add_argument("path", metavar="PATH", help=path_help)
    p.add_argument("--card", metavar="NAME", help="explain one card as it reads: its printed values and text, "
                                                  "then what the rules do with it, in short sentences")
    p.add_argument("--full", action="store_true",
                   help="with --card: every rule that tests the card's values, in full, with file:line:col")
    add_house_arg(p)
    p.set_defaults(run=lambda a: cmd_explain(a))

    p = sub.add_parser("lsp", help="the language server for editors (LSP over stdin/stdout)",
                       description="Serve the Language Server Protocol over stdin and stdout: diagnostics as "
                                   "you type, hover, go to definition, references, rename, completion and "
                                   "outline for .rules and .scenario files. Needs `pip install 'rulelang[lsp]'`.")
    p.set_defaults(run=lambda a: cmd_lsp(a))
    return parser


# --------------------------------------------------------------------------- entry point


def _rule_error_types() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(errors in rule files found at load time, errors raised by rules while a game runs)."""
    try:
        from rulelang.diagnostics import RuleError
    except ImportError:
        return (), ()
    try:
        from rulelang.diagnostics import RuleRuntimeError
    except ImportError:
        return (RuleError,), ()
    return (RuleError,), (RuleRuntimeError,)


def _fail(message: str) -> int:
    echo(f"rulelang: error: {message}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status. Bad usage exits 2 via argparse."""
    args = build_parser().parse_args(argv)
    rule_errors, runtime_errors = _rule_error_types()
    debug = bool(os.environ.get("RULELANG_DEBUG"))
    try:
        return args.run(args)
    except QuitGame:
        echo("\nGame abandoned.", file=sys.stderr)
        return QUIT_EXIT_CODE
    except BrokenPipeError:  # output piped into a program that stopped reading (head, less)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        echo("\nInterrupted.", file=sys.stderr)
        return QUIT_EXIT_CODE
    except Exception as exc:
        if debug:
            traceback.print_exc()
        if rule_errors and isinstance(exc, rule_errors):
            echo(str(exc), file=sys.stderr)
            return 1
        if runtime_errors and isinstance(exc, runtime_errors):
            return _fail(f"the rules failed while the game ran: {exc}")
        if isinstance(exc, (CommandError, LogError, ValueError)):
            return _fail(str(exc))
        if isinstance(exc, OSError):
            return _fail(f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
        return _fail(f"{type(exc).__name__}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
