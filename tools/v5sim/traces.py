"""Vault model (synthetic J ∪ D traces) and the S0 traces.

The real paged catalog is not run here (no Swift): J per operation is synthesised from
the figures V5-CONTAINER.md and V4-CONTAINER.md §7 give (a favourite ≈ 5 logical
blocks at 100,000 items and their leaves ≈ 10; a delete ≈ 24; a password change ≈ 10;
≈ 0.164 pages per item: 1,638 blocks at 10,000 items). README.md lists the choices.
"""
from __future__ import annotations

import math
import random

from .model import Config, Directory, FANOUT, grid_ceil, pad_batch, pad_import

PAGES_PER_ITEM = 0.1638


class Vault:
    def __init__(self, items: int, rng: random.Random):
        self.items = items
        self.pages = max(1, round(items * PAGES_PER_ITEM))
        self.frac = 0.0
        self.rng = rng

    def rand_pages(self, k):
        if self.pages <= 1:
            return set()
        return {self.rng.randrange(1, self.pages) for _ in range(k)}

    def depth_ops(self):
        return 2 + math.ceil(math.log(max(self.pages, 2), 128))

    # --- J of each operation kind (data ids of this vault; the union over slots) ---
    def favourite(self):
        return {0} | self.rand_pages(self.depth_ops())

    def delete(self):
        return {0} | self.rand_pages(2 * self.depth_ops() + 3)

    def passwd(self):
        return {0, 1} | self.rand_pages(3)

    def create(self):
        return set(range(33))

    def import_(self, k):
        J = {0}
        for _ in range(k):
            J |= self.rand_pages(2)                  # index / B-tree pages of the item
            J.add(max(self.pages - 1, 0))            # the append leaf of the item table
            self.frac += PAGES_PER_ITEM
            while self.frac >= 1:
                J.add(self.pages)                    # a new page (lazy growth)
                self.pages += 1
                self.frac -= 1
        self.items += k
        return J

    def batch(self, kind, m):
        """R3-5(1,2): a batch operation on m items scattered over the vault (a search result,
        a date range): per item, the J of the single-item operation (bdel: a delete, bmove: a
        move, modelled as a favourite); the batch's J is their union. Returns the per-item
        sets, so that the inner layer can split the batch into transactions."""
        one = self.delete if kind == "bdel" else self.favourite
        return [one() for _ in range(m)]

    def scattered(self, m):
        """Adversarial: m changed blocks on distinct leaves (a batch delete or move)."""
        nleaves = max(1, self.pages // FANOUT)
        leaves = self.rng.sample(range(nleaves), min(m, nleaves))
        return {min(self.pages - 1, l * FANOUT + self.rng.randrange(FANOUT)) for l in leaves}


class Sim:
    """A directory with three real vaults and seven decoys (n = 10)."""

    def __init__(self, cfg: Config, sizes, seed=1):
        self.cfg = cfg
        self.rng = random.Random(seed)
        self.vaults = [Vault(s, self.rng) for s in sizes]
        self.dr = Directory(cfg, self.rng)
        for v in self.vaults:
            self.dr.set_need(v.pages)
        # the directory is made by a whole commit (creation, or migration from version 4)
        self._seed_layout()
        self.ops = []          # (kind, vault index, items at the time, commits)
        self.after_whole = []  # whether the operation started within F commits of a whole commit
        self.active = list(range(len(self.vaults)))   # real vaults (a destroy removes one)
        self.ctime_obs = []    # R3-4: (kind, vault, what one copy's ctime order shows of an import)
        self.cycles = 0        # R3-5(3): traces that support it run for this many window cycles

    def _seed_layout(self):
        dr = self.dr
        P = max(v.pages for v in self.vaults)
        for j in range(P):
            dr.loc[j] = (0, 0)
        dr.files[0] = [None] * self.cfg.B
        dr.fsize[0] = 0
        dr.whole_commit()

    def size_class(self, vi):
        return self.vaults[vi].items

    def do(self, kind, vi, k=0, interleave=None, no_pad=False):
        v = self.vaults[vi]
        cls = v.items
        if kind == "favourite":
            J = v.favourite()
        elif kind == "delete":
            J = v.delete()
        elif kind == "passwd":
            J = v.passwd()
        elif kind == "create":
            J = v.create()
        elif kind == "import":
            J = None
        elif kind == "scatter":
            J = v.scattered(k)
        elif kind in ("bdel", "bmove"):
            return self._batch(kind, vi, k)
        else:
            raise ValueError(kind)
        if kind == "import":
            chunk = max(1, int((self.dr.F - 1) * (self.cfg.B - self.cfg.U_AVG)
                               / (4 * self.cfg.split_per_photo)))
            if self.cfg.split_imports and k > chunk:
                # N3(4): the importer bounds a transaction by the window (public: F)
                ns, left = [], k
                while left:
                    c = min(chunk, left)
                    ns.append(self.do(kind, vi, c, interleave, no_pad=True))
                    self.ops.pop()
                    self.after_whole.pop()
                    self.ctime_obs.pop()
                    left -= c
                n = sum(ns)
                if self.cfg.pad_imports:
                    # P(k) pads the import as a whole, whatever F split it into
                    n = self.dr.pad(n, pad_import(k, self.cfg))
                # R3-4: what one copy's ctime order shows. per_txn: each transaction's pool
                # files precede its pieces, so the commits between two batches of pool files are
                # that transaction's commits; the padding follows the last one. all_first: every
                # pool file precedes the import's first commit.
                if self.cfg.import_pool == "all_first":
                    obs = (n,)
                else:
                    obs = tuple(ns[:-1]) + (n - sum(ns[:-1]),)
                self.ops.append(("%s%d" % (kind, k), vi, cls, n))
                self.after_whole.append(False)
                self.ctime_obs.append(("%s%d" % (kind, k), vi, obs))
                return n
            J = v.import_(k)
        self.dr.set_need(v.pages)
        pad = 0
        if kind == "import" and self.cfg.pad_imports and not no_pad:
            pad = max(1, math.ceil((k + self.cfg.pad_c) / self.cfg.pad_div))
        after_whole = self.dr.f - self.dr.last_whole_f < self.dr.F
        n = self.dr.run_op(J, interleave=interleave, pad_to=pad)
        self.ops.append((kind if not k else "%s%d" % (kind, k), vi, cls, n))
        self.after_whole.append(after_whole)
        if kind == "import":
            self.ctime_obs.append(("%s%d" % (kind, k), vi, (n,)))
        return n

    def _batch(self, kind, vi, m):
        """R3-5(2): a batch operation on m scattered items. The inner layer splits it into
        transactions of at most (F - 1)(B - U_AVG)/4 positions of need (V5 §7.1), run back
        to back; with pad_batches the batch takes exactly P_b(m) commits. Its pool files (a
        batch delete's) are unlinked after its last commit, so one copy's ctimes show nothing
        of it; between two copies the pool shows m, as it shows k for an import."""
        v = self.vaults[vi]
        cls = v.items
        dr, cfg = self.dr, self.cfg
        after_whole = dr.f - dr.last_whole_f < dr.F
        d = dr.target_L()[1]
        n = 0
        bound = dr.txn_bound()
        cur, curD = set(), set()
        for Ji in v.batch(kind, m):
            newJ = Ji - cur
            newD = set(a for j in newJ for a in dr.anc(j, d)) - curD
            if cur and len(cur) + len(curD) + len(newJ) + len(newD) > bound:
                n += dr.run_op(cur)            # one transaction; the next is bounded afresh
                bound = dr.txn_bound()
                cur, curD = set(), set()
                newJ = Ji
                newD = set(a for j in Ji for a in dr.anc(j, d))
            cur |= newJ
            curD |= newD
        n += dr.run_op(cur)
        if cfg.pad_batches:
            n = dr.pad(n, pad_batch(m, cfg))
        self.ops.append(("%s%d" % (kind, m), vi, cls, n))
        self.after_whole.append(after_whole)
        return n

    # ---------------- R3-1, R3-5(4): sweeps ----------------
    def destroy_sweep(self, vi):
        """Destroy vault vi as a sweep: the first commit writes a new paged decoy into its slot
        (ids 0-32, FORMAT.md §9.7; revision 3 as written: block 0 replaced by random bytes)."""
        v = self.vaults[vi]
        J = {0} if self.cfg.sweep_rule == "rev3" else set(range(33))
        rec = self.dr.run_sweep(J, slot=vi, slot_pages=v.pages)
        self.active.remove(vi)
        self.ops.append(("destroy-sweep", -1, 0, rec["commits"]))
        self.after_whole.append(False)
        return rec

    def purge_sweep(self, vi):
        rec = self.dr.run_sweep(self.vaults[vi].passwd())
        self.ops.append(("purge-sweep", -1, 0, rec["commits"]))
        self.after_whole.append(False)
        return rec

    def create_from_decoy(self, items=200):
        """A new real vault in a decoy's slot (a new index, so its operations are not mixed
        with the destroyed vault's)."""
        self.vaults.append(Vault(items, self.rng))
        vi = len(self.vaults) - 1
        self.active.append(vi)
        self.do("create", vi)
        return vi

    def whole(self, kind):
        self.dr.whole_commit()
        self.ops.append((kind, -1, 0, 1))
        self.after_whole.append(False)


# ---------------------------------------------------------------- traces
# Each trace: (name, sizes of the three real vaults, function(sim, scale)).

def _mix(sim, n, kinds, weights):
    rng = sim.rng
    for _ in range(n):
        kind = rng.choices(kinds, weights)[0]
        vi = rng.choice(sim.active)
        if kind.startswith("import"):
            sim.do("import", vi, int(kind[6:]))
        else:
            sim.do(kind, vi)


def t_favourites(sim, s):
    _mix(sim, 3000 * s // 4, ["favourite"], [1])


def t_deletes(sim, s):
    if sim.cycles:
        _until(sim, sim.cycles, lambda: _mix(sim, 1, ["delete"], [1]))
        return
    _mix(sim, 2000 * s // 4, ["delete"], [1])


def t_imports(sim, s):
    _mix(sim, 600 * s // 4, ["import1", "import10", "import100"], [3, 3, 2])


def t_passwd(sim, s):
    _mix(sim, 1000 * s // 4, ["passwd", "favourite"], [1, 1])


def t_destroy(sim, s):
    for _ in range(3):
        _mix(sim, 300 * s // 4, ["favourite", "delete"], [3, 1])
        sim.whole("destroy/purge")
    _mix(sim, 300 * s // 4, ["favourite", "delete", "import10"], [3, 1, 1])


def t_first_import(sim, s):
    # a first import of 10,000 items into an empty vault, batches of 100 (N10, growth)
    for _ in range(100 * s // 4):
        sim.do("import", 0, 100)


def t_growth_small(sim, s):
    # growth run from small F by single photos and tens (N10)
    for i in range(1500 * s // 4):
        sim.do("import", 0, 10 if i % 4 == 0 else 1)


def t_interleave(sim, s):
    # imports of 100 on vault 0 while vaults 1 and 2 favourite between its pieces
    rng = sim.rng

    def other():
        if rng.random() < 0.5:
            return sim.vaults[1 + rng.randrange(2)].favourite()
        return None
    for _ in range(60 * s // 4):
        sim.do("import", 0, 100, interleave=other)
        _mix(sim, 10, ["favourite", "delete", "passwd"], [5, 2, 1])


def t_mixed(sim, s):
    _mix(sim, 2500 * s // 4, ["favourite", "delete", "passwd", "import1", "import10",
                              "import100", "create"], [60, 20, 3, 8, 4, 1, 1])


def _until(sim, cycles, step):
    goal = sim.dr.st.commits + int(cycles * sim.dr.F)
    while sim.dr.st.commits < goal:
        step()


def t_adversarial(sim, s):
    # batch deletes/moves that scatter every changed block over distinct leaves, on the
    # largest vault, sustained for s/2 window cycles (pacing binds)
    _until(sim, s / 2, lambda: sim.do("scatter", 0, 48))


def t_whole_then_heavy(sim, s):
    # N1 case 2: whole-commit data files under a sustained heavy load right after it
    sim.whole("migration")

    def step():
        sim.do("delete", 0)
        sim.do("scatter", 0, 24)
    _until(sim, s / 2, step)


def t_depth(sim, s):
    # N1 case 3: the largest vault grows across L = 20,787 (d = 1 -> 2) under load
    def step():
        sim.do("import", 0, 100)
        for _ in range(5):
            sim.do("scatter", 0, 24)
    _until(sim, s / 2, step)


def t_grid(sim, s):
    _mix(sim, 2000 * s // 4, ["favourite", "delete", "passwd"], [6, 3, 1])


MIXED_KINDS = ["favourite", "delete", "passwd", "import1", "import10", "import100", "create"]
MIXED_WEIGHTS = [60, 20, 3, 8, 4, 1, 1]
BATCH_SIZES = [10, 20, 50, 100, 200]


def t_mixed_batches(sim, s):
    # R3-5(1): ordinary use with batch operations (delete or move of 10-200 scattered items)
    # on every real vault, about one operation in 50; not exempt from any gate
    rng = sim.rng

    def step():
        if rng.random() < 0.02:
            sim.do(rng.choice(["bdel", "bmove"]), rng.choice(sim.active), rng.choice(BATCH_SIZES))
        else:
            _mix(sim, 1, MIXED_KINDS, MIXED_WEIGHTS)
    if sim.cycles:
        _until(sim, sim.cycles, step)
        return
    for _ in range(2500 * s // 4):
        step()


def t_batches(sim, s):
    # R3-5(2): batch operations of 10, 50 and 200 items on every real vault (N2 by vault size
    # needs >= 20 samples per kind and vault), single-item operations between them
    rng = sim.rng
    for _ in range(480 * s // 4):
        sim.do(rng.choice(["bdel", "bmove"]), rng.choice(sim.active), rng.choice([10, 50, 200]))
        _mix(sim, 2, ["favourite", "delete"], [3, 1])


def t_batch_sizing(sim, s):
    # R3-5(2), R3-6: the commits a batch takes on the largest vault, unpadded, to size P_b(m)
    # (run with --set pad_batches=false; a measurement, not a gated workload)
    for _ in range(max(1, s)):
        for m in (10, 50, 200):
            for kind in ("bdel", "bmove"):
                sim.do(kind, 0, m)
                _mix(sim, 20, ["favourite"], [1])


def t_sweep(sim, s):
    # R3-1, R3-5(4): a destroy sweep with a window growth inside it, a vault created from the
    # new decoy, then a purge sweep, with ordinary operations between
    from .model import epoch_of
    dr = sim.dr
    n = 300 * s // 4
    _mix(sim, n, ["favourite", "delete", "passwd"], [6, 3, 1])
    # the largest vault sits exactly at a grid value: an import of 10 photos steps L, and F
    # follows at the next epoch boundary, which this places inside the sweep
    while (dr.f + 1) % epoch_of(dr.F, dr.cfg) != 48 % epoch_of(dr.F, dr.cfg):
        sim.do("favourite", 0)
    sim.do("import", 0, 10)
    sim.destroy_sweep(1)
    _mix(sim, n, ["favourite", "delete", "passwd"], [6, 3, 1])
    sim.create_from_decoy()
    _mix(sim, n, ["favourite", "delete", "passwd", "import10"], [6, 3, 1, 1])
    sim.purge_sweep(0)
    _mix(sim, n, ["favourite", "delete", "passwd"], [6, 3, 1])


def sizes_for(scale_items):
    """Three real vaults of different sizes: the largest, 1/10 and 1/100 of it."""
    return [scale_items, max(10, scale_items // 10), max(10, scale_items // 100)]


def grid_sizes(big, pos):
    """The largest vault just at a grid value (W/Q ≈ 2.0, 'low') or just above one
    (≈ 2.4, 'high')."""
    P = round(big * 0.1638)
    L, j = grid_ceil(P)
    if pos == "low":
        items = int(L * 0.995 / 0.1638)
    else:
        Lp = 64 * math.ceil(4 * 2 ** ((j - 1) / 4))
        items = int(Lp * 1.01 / 0.1638)
    return [items, items // 10, items // 100]


def exact_grid_sizes(big):
    """The largest vault's pages exactly a grid value: the next import steps L."""
    L, _ = grid_ceil(round(big * PAGES_PER_ITEM))
    items = int(L / PAGES_PER_ITEM)
    while round(items * PAGES_PER_ITEM) < L:
        items += 1
    while round(items * PAGES_PER_ITEM) > L:
        items -= 1
    return [items, items // 10, items // 100]


def trace_table(big: int):
    """name -> (sizes, function). big = the largest vault's items."""
    depth_start = int(19_490 / 0.1638)      # just below L = 19,520 (d = 1); the first import passes it (L = 23,232, d = 2)
    return {
        "favourites": (sizes_for(big), t_favourites),
        "deletes": (sizes_for(big), t_deletes),
        "imports-1/10/100": (sizes_for(big), t_imports),
        "passwd": (sizes_for(big), t_passwd),
        "destroy/purge": (sizes_for(big), t_destroy),
        "first-import-10k": ([0, 20, 10], t_first_import),
        "growth-small-F": ([0, 50, 10], t_growth_small),
        "interleave-3-vaults": (sizes_for(big), t_interleave),
        "mixed-3-vaults": (sizes_for(big), t_mixed),
        "adversarial-scatter": (sizes_for(big), t_adversarial),
        "adversarial-scatter-d2": ([int(23_000 / 0.1638), big // 10, big // 100], t_adversarial),
        "whole-then-heavy": (sizes_for(big), t_whole_then_heavy),
        "depth-increase": ([depth_start, big // 10, big // 100], t_depth),
        "grid-low": (grid_sizes(big, "low"), t_grid),
        "grid-high": (grid_sizes(big, "high"), t_grid),
        # review round 3 (R3-5)
        "mixed-with-batches": (sizes_for(big), t_mixed_batches),
        "batches-10/50/200": (sizes_for(big), t_batches),
        "destroy-sweep": (exact_grid_sizes(big), t_sweep),
        "batch-sizing": (sizes_for(big), t_batch_sizing),
    }


ADVERSARIAL = {"adversarial-scatter", "adversarial-scatter-d2", "whole-then-heavy", "depth-increase"}
ROUND3 = ["mixed-with-batches", "batches-10/50/200", "destroy-sweep"]   # R3-5's traces
MEASUREMENT = {"batch-sizing"}     # not run unless named: it fits P_b, it is not a gated workload
