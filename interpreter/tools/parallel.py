"""Batches of independent games on every core (a process pool) or on a Ray cluster.

Every long command (``simulate``, ``validate``, ``bench``, ``test``) hands its games to a
:class:`Pool`: a list of tasks, one top-level function, results back **in task order**. Each
game is fixed by its seed, so the results are the same with 1 worker, 2 workers or a cluster;
callers merge them in seed order and never see the difference.

Games are sent as a :class:`GameSpec` (path, options, house rules), never as compiled objects:
a worker loads each spec once and keeps it (:func:`game_for`). On Linux the pool forks, and a
game the parent has already loaded (:func:`remember`) is simply inherited.

- ``workers=1`` runs in this process: no pool, nothing to pickle.
- ``workers=N`` (default: the cores this process may use) runs a ``ProcessPoolExecutor``.
- ``ray=ADDRESS`` (or ``"local"``) runs the same tasks as Ray tasks, in chunks; install the
  extra with ``pip install 'rulelang[ray]'``. On a cluster every node must see the rule files at
  the same path (a shared folder, or Ray's ``runtime_env``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import attrs

__all__ = ["GameSpec", "Pool", "default_workers", "game_for", "remember", "spec_of"]


@attrs.frozen
class GameSpec:
    """What a worker needs to load the same game: the path, the options and the house rules."""

    path: str
    options: tuple[tuple[str, Any], ...] = ()
    house: tuple[str, ...] = ()

    def absolute(self) -> GameSpec:
        """The same spec with absolute paths (for workers that start elsewhere)."""
        return GameSpec(os.path.abspath(self.path), self.options, tuple(os.path.abspath(h) for h in self.house))

    def load(self) -> Any:
        import interpreter

        return interpreter.load(self.path, options=dict(self.options), house=list(self.house) or None)


def spec_of(game: Any) -> GameSpec:
    """The spec of a loaded game, and the game remembered under it (so forked workers reuse it)."""
    spec = GameSpec(str(game.source_path), tuple(sorted(dict(game.option_values).items())),
                    tuple(str(h) for h in getattr(game, "house", None) or ()))
    remember(spec, game)
    return spec


_GAMES: dict[GameSpec, Any] = {}  # per process: each game loaded once


def remember(spec: GameSpec, game: Any) -> None:
    _GAMES[spec] = game


def game_for(spec: GameSpec) -> Any:
    """The game of a spec, loaded on first use in this process."""
    game = _GAMES.get(spec)
    if game is None:
        game = _GAMES[spec] = spec.load()
    return game


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _run_chunk(fn: Callable[[Any], Any], tasks: list) -> list:
    return [fn(t) for t in tasks]


class Pool:
    """Runs ``fn(task)`` for many tasks and gives the results back in task order.

    Use as a context manager; the processes (or the Ray connection) live until it closes, so a
    sequential test can ask for batch after batch without starting workers again."""

    def __init__(self, workers: int | None = None, ray: str | None = None, chunk: int | None = None):
        self.workers = workers if workers is not None else default_workers()
        if self.workers < 1:
            raise ValueError(f"--workers must be at least 1, not {self.workers}")
        self.ray_address = ray
        self.chunk = chunk
        self._executor: ProcessPoolExecutor | None = None
        self._ray: Any = None
        self._remote: Any = None

    # ---- life cycle
    def __enter__(self) -> Pool:
        if self.ray_address is not None:
            self._start_ray()
        elif self.workers > 1:
            self._executor = ProcessPoolExecutor(max_workers=self.workers)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _start_ray(self) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError("--ray needs Ray: pip install 'rulelang[ray]'") from None
        if not ray.is_initialized():
            address = None if self.ray_address in ("", "local") else self.ray_address
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     ignore_reinit_error=True, configure_logging=False)
        self._ray = ray
        self._remote = ray.remote(_run_chunk)
        resources = ray.cluster_resources()
        self.workers = max(1, int(resources.get("CPU", 1)))

    @property
    def backend(self) -> str:
        if self._ray is not None:
            return f"ray ({self.workers} CPUs)"
        return f"{self.workers} worker{'s' if self.workers != 1 else ''}"

    # ---- work
    def _chunk_size(self, count: int) -> int:
        if self.chunk:
            return self.chunk
        # a few chunks per worker: large enough to pay for the trip, small enough to balance
        return max(1, min(16, count // (4 * self.workers) or 1))

    def imap(self, fn: Callable[[Any], Any], tasks: Iterable) -> Iterator:
        """``fn(task)`` for every task, yielded in task order as soon as each is ready."""
        tasks = list(tasks)
        if not tasks:
            return
        if self._ray is not None:
            size = self._chunk_size(len(tasks))
            refs = [self._remote.remote(fn, tasks[i:i + size]) for i in range(0, len(tasks), size)]
            for ref in refs:
                yield from self._ray.get(ref)
        elif self._executor is not None:
            yield from self._executor.map(fn, tasks, chunksize=self._chunk_size(len(tasks)))
        else:
            for t in tasks:
                yield fn(t)

    def map(self, fn: Callable[[Any], Any], tasks: Iterable) -> list:
        return list(self.imap(fn, tasks))
