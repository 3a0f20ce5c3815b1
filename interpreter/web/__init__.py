"""Playing, watching and stepping through games in the browser (``rulelang serve``).

- :mod:`.session`: the game at the table (seats, their tokens, what each seat is sent, refusals,
  computer players, saving) and step-through replays, as plain Python with no web framework;
- :mod:`.server`: the Starlette app that serves the pages and one websocket per seat.
"""
