"""python3 -m tools.v5sim [--config design|fixed|r31] [--items N] [--s K] [--traces a,b] [--set K=V] [--cycles C]"""
from __future__ import annotations

import argparse
import json
import sys
import time

from .report import run_all, render, gates

ap = argparse.ArgumentParser(prog="python3 -m tools.v5sim")
ap.add_argument("--config", default="design",
                help="design (revision 2 as written), fixed (S0's fixes), r3 (revision 3 as written) or r31 (revision 3.1)")
ap.add_argument("--items", type=int, default=100_000, help="the largest real vault's items")
ap.add_argument("--s", type=int, default=4, help="trace length multiplier (4 = full)")
ap.add_argument("--traces", default="", help="comma-separated subset of trace names")
ap.add_argument("--set", action="append", default=[], help="override a constant: B=64, EPS=0.25 ...")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--cycles", type=float, default=0,
                help="deletes and mixed-with-batches run this many window cycles after creation")
ap.add_argument("--json", default="", help="write the figures as JSON here")
a = ap.parse_args()
t0 = time.time()
res = run_all(a.config, a.items, a.s, [x for x in a.traces.split(",") if x], a.set, a.seed, a.cycles)
print(render(res))
ok = gates(res)
print("\nwall: %.1f s" % (time.time() - t0))
if a.json:
    with open(a.json, "w") as fh:
        json.dump(res, fh, indent=1, default=str)
sys.exit(0 if ok else 1)
