"""Games on several processes and on Ray give exactly what one process gives (issue 14)."""

from __future__ import annotations

import io
import json

import pytest
from conftest import FIXTURES, ROOT

import interpreter
from interpreter.tools.cli import main
from interpreter.tools.parallel import GameSpec, Pool, default_workers, game_for, spec_of
from interpreter.tools.progress import Progress
from interpreter.tools.scenario import run_paths
from interpreter.tools.simulate import bench, simulate

TINY = str(FIXTURES / "tiny")


def _square(x: int) -> int:
    return x * x


def test_a_pool_gives_results_in_task_order_for_any_number_of_workers():
    tasks = list(range(37))
    with Pool(1) as one, Pool(2, chunk=3) as two:
        assert one.map(_square, tasks) == two.map(_square, tasks) == [x * x for x in tasks]
    assert default_workers() >= 1


def test_a_pool_refuses_zero_workers():
    with pytest.raises(ValueError, match="at least 1"):
        Pool(0)


def test_a_spec_loads_the_same_game_and_is_remembered():
    game = interpreter.load(TINY, options={"speed": "fast"})
    spec = spec_of(game)
    assert spec.options == (("bonus", False), ("speed", "fast"))
    assert game_for(spec) is game
    fresh = GameSpec(spec.path, spec.options).load()
    assert fresh.fingerprint == game.fingerprint


def _summary(workers: int, **kw) -> dict:
    game = interpreter.load(TINY)
    s = simulate(game, 2, 24, seed=5, agent_names=["greedy", "random"], workers=workers, **kw)
    data = s.to_dict()
    data.pop("seconds")
    return data | {"records": [(r.seed, r.actions, r.scores, r.winners, r.error) for r in s.records]}


def test_simulate_with_two_workers_is_identical_to_one():
    one, two = _summary(1), _summary(2)
    assert one == two
    assert len(one["records"]) == 24 and one["records"][0][0] == 5


def test_saved_logs_are_identical_with_two_workers(tmp_path):
    game = interpreter.load(TINY)
    for workers in (1, 2):
        simulate(game, 2, 6, seed=1, save_logs=str(tmp_path / str(workers)), workers=workers)
    for k in range(1, 7):
        name = f"game-{k:04d}.json"
        assert (tmp_path / "1" / name).read_text() == (tmp_path / "2" / name).read_text()


def test_bench_counts_every_playout_of_every_worker():
    game = interpreter.load(TINY)
    r = bench(game, 2, games=10, workers=2)
    assert r.playouts == 10 and r.errors == 0 and r.decisions_per_playout > 0


def test_bench_for_some_seconds_grows_its_batches_so_workers_do_not_wait_on_each_batch(monkeypatch):
    # each batch waits for its slowest game: batches of a few games (as before) left the
    # other workers idle, and two workers played 1.57x one worker's Off-Plan games, not 1.9x
    batches: list[int] = []
    imap = Pool.imap

    def counted(self, fn, tasks):
        tasks = list(tasks)
        batches.append(len(tasks))
        return imap(self, fn, tasks)

    monkeypatch.setattr(Pool, "imap", counted)
    r = bench(interpreter.load(TINY), 2, seconds=1.0, workers=2)
    assert r.playouts == sum(batches) and r.errors == 0
    assert batches[0] == 4 and max(batches) > 4 * batches[0]  # (the tiny game plays thousands a second)
    assert len(batches) < 30


def test_scenarios_with_two_workers_give_the_same_results_in_the_same_order():
    paths = [str(ROOT / "examples" / "house_rules" / "plunderbund")]
    strip = lambda rs: [(r.file, r.name, r.passed, r.message) for r in rs]  # noqa: E731
    assert strip(run_paths(paths, workers=1)) == strip(run_paths(paths, workers=2))


def test_the_command_line_takes_workers_and_prints_the_same(capsys):
    outs = []
    for w in ("1", "2"):
        assert main(["simulate", TINY, "--players", "2", "--games", "12", "--json", "--workers", w]) == 0
        data = json.loads(capsys.readouterr().out)
        data.pop("seconds")
        outs.append(data)
    assert outs[0] == outs[1]


def test_the_progress_bar_shows_games_done_rate_and_time_left():
    out = io.StringIO()
    with Progress(40, stream=out, label="games", force=True) as bar:
        for i in range(1, 41):
            bar.update(i)
    text = out.getvalue()
    assert "40/40" in text and "games/s" in text and "eta" in text


def test_the_progress_bar_stays_off_when_not_a_terminal_or_quiet():
    out = io.StringIO()
    for bar in (Progress(10, stream=out), Progress(10, stream=out, force=True, quiet=True)):
        bar.update(5)
        bar.close()
    assert out.getvalue() == ""


def test_ray_runs_the_same_batch_as_one_process():
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'rulelang[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        assert _summary(1) == _summary(1, ray="local")
    finally:
        ray.shutdown()
