"""The progress bar of long commands: games done, rate and time left, drawn by ``rich`` on stderr.

It draws only when stderr is a terminal (and not with ``--quiet``), so pipes, logs and the
tests' captured output stay clean. Without a known total (``bench --seconds``) it shows the
count and the rate.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress
from rich.text import Text

__all__ = ["Progress"]


class _RateColumn(ProgressColumn):
    """Items per second, in the bar's own unit (games/s, playouts/s)."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text(f"- {self.unit}/s", style="progress.data.speed")
        return Text(f"{speed:,.1f} {self.unit}/s", style="progress.data.speed")


class Progress:
    """``update(done, note)`` after each item, ``close()`` at the end (or use ``with``).

    ``total=None``: no bar, just the count and rate. ``force`` draws even when ``stream`` is not
    a terminal (the tests use it); ``quiet`` never draws."""

    def __init__(self, total: int | None, stream: TextIO | None = None, label: str = "games",
                 force: bool = False, quiet: bool = False, description: str = "") -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.enabled = not quiet and (force or bool(isatty()))
        self.done = 0
        self._bar: RichProgress | None = None
        self._task: Any = None
        if self.enabled:
            console = Console(file=self.stream, force_terminal=force or None, stderr=self.stream is sys.stderr)
            columns: list = [TextColumn("[progress.description]{task.description}")]
            if total is not None:
                columns += [BarColumn(), MofNCompleteColumn(), TextColumn(label), _RateColumn(label),
                            TextColumn("eta"), TimeRemainingColumn()]
            else:
                columns += [TextColumn("{task.completed} " + label), _RateColumn(label), TimeElapsedColumn()]
            columns.append(TextColumn("{task.fields[note]}"))
            self._bar = RichProgress(*columns, console=console, transient=False, refresh_per_second=8)
            self._bar.start()
            self._task = self._bar.add_task(description or label.capitalize(), total=total, note="")

    def update(self, done: int, note: str = "") -> None:
        self.done = done
        if self._bar is not None:
            self._bar.update(self._task, completed=done, note=note)

    def advance(self, count: int = 1, note: str = "") -> None:
        self.update(self.done + count, note)

    def set_total(self, total: int | None) -> None:
        self.total = total
        if self._bar is not None:
            self._bar.update(self._task, total=total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
