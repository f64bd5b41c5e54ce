"""v5sim: trace simulator for the version 5 slot container (docs/V5-CONTAINER.md, step S0).

No crypto and no files: it models the public schedule (one file per commit, the
metronome drop, F on the 2^(1/4) grid at epochs), the private cleaner (cover is
cleaning, leaf batching, pacing conditions (1) and (2)), pieces with staged blocks,
lazy growth, depth increases and whole commits, and reports what reaches the public
sequence. See tools/v5sim/README.md.
"""
from .model import Config, Directory, DESIGN, FIXED, grid_ceil, shape, window_F  # noqa: F401
