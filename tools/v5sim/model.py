"""The container model: public schedule, private cleaner, pieces, whole commits.

Entries are ints: key = level << 40 | index (level 0 = data block j, level h >= 1 =
map node i of level h, FORMAT.md §8.5 shape: node i of level h covers children
169*i ... 169*i+168 of level h-1). The layout is the same in every slot (V5 §7.2), so
one layout stands for all n stripes.
"""
from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass, field, replace

FANOUT = 169
ROOT_REFS = 123
LV = 40
MASK = (1 << LV) - 1
SB = 1 << 60            # marks a staged entry (a piece's block, referenced by no map yet)
BLOCK = 4096


def grid_value(j: int) -> int:
    return 64 * math.ceil(4 * 2 ** (j / 4))


def grid_ceil(x: int) -> tuple[int, int]:
    """Smallest grid value L_j >= x (and >= L_MIN = 256): returns (L, j)."""
    j = 0
    while grid_value(j) < x:
        j += 1
    return grid_value(j), j


def shape(L: int) -> tuple[int, list[int]]:
    """FORMAT.md §8.5: c_0 = L, c_h = ceil(c_{h-1}/169) until c_d <= 123 (d >= 1)."""
    c = [L]
    while len(c) == 1 or c[-1] > ROOT_REFS:
        c.append(-(-c[-1] // FANOUT))
    return len(c) - 1, c


def window_F(L: int, cfg: "Config") -> int:
    d, c = shape(L)
    Q = L + sum(c[1:])
    return max(cfg.F_MIN, math.ceil((1 + cfg.EPS) * Q / (cfg.B - cfg.U_AVG)))


@dataclass(frozen=True)
class Config:
    B: int = 64
    U_MAX: int = 48
    U_AVG: int = 24
    EPS: float = 0.25
    EPOCH: int = 64
    F_MIN: int = 8
    n: int = 10
    whole_filler: float = 0.4
    whole_spread: bool = False   # fix: a whole commit spreads entries evenly over its F files
    whole_tail: float = 0.0      # fix: a whole commit is followed by ceil(whole_tail * F)
    #                              maintenance commits (part of its public burst)
    leaf_batching: bool = True
    pacing: bool = True
    # --- review-2 fixes (all False = the design as written, revision 2) ---
    invariant: bool = False      # N1: drain cost (not live count) in the table, reserve R,
    #                              pieces limited by cost, whole commits post-order packed
    R: int = 1                   # N1: reserve for a depth increase
    staged_live: bool = False    # N3(1): staged entries count as live; the cleaner moves them
    back_to_back: bool = False   # N3(2): no other operation between pieces
    pad_imports: bool = False    # N2(3): an import of k photos takes exactly P(k) commits
    split_imports: bool = False  # N3(4): imports split into transactions bounded by F
    split_per_photo: float = 7.0  # positions budgeted per photo when splitting by F
    pad_c: int = 2               # N2(3): P(k) = ceil((k + pad_c) / pad_div): 1, 3, 21 for k = 1, 10, 100
    pad_div: int = 5             #        (sized on the 1,000,000-item catalog: 1, 3, 19 measured)
    epoch_adaptive: bool = False  # N10: EPOCH = min(64, largest power of two <= F/2)
    T_fixed: int = 0             # N4: 0 = T = ceil(F/4068) (as written); 2 = fixed per directory
    # --- review-3 items (the defaults are revision 3 as written; R31 switches the fixes on) ---
    sweep_rule: str = "rev3"     # R3-1: "rev3" = the first commit replaces block 0 by random bytes, every
    #                              later commit writes every moved entry of the slot as random bytes;
    #                              "rev3-decoy" = the first commit writes a paged decoy, later as rev3;
    #                              "fs" = the fix: a paged decoy first, and every data entry of the slot
    #                              whose source file is below f_s (the sweep's first file) written random
    sweep_owed_growth: bool = True  # R3-1/N8: a window growth inside a sweep adds its ΔF to owed
    staged_rule: str = "rev3"    # R3-2: liveness of a staged entry read from disk: "rev3" = marked staged,
    #                              pieces set and f >= f_op; "unique" = also no newer staged copy in (f, f_h]
    import_pool: str = "per_txn"  # R3-4: "per_txn" = each transaction's pool files before its pieces, the
    #                              padding after the last one; "all_first" = every pool file of the import
    #                              written before its first commit (the fix (a))
    pad_batches: bool = False    # R3-5(2): a batch operation of m items takes exactly P_b(m) commits,
    padb_a1: float = 1.1         #          P_b(m) = min(ceil(a1 m) + b1, ceil(a2 m) + b2): fitted on the
    padb_b1: int = 1             #          synthetic J at the largest catalog T = 2 admits (1,346,000
    padb_a2: float = 0.6         #          items; 9 / 37 / 105 commits for 10 / 50 / 200 deletes) with
    padb_b2: int = 15            #          >= 20 % margin; writer policy, refitted at S3 (R3-6)
    overflow_double: bool = False  # R3-6: a padded operation whose real commits exceed P pads to 2 P
    abandon: bool = False        # N3 (§7.1): an operation at grant 0 for F commits running is abandoned
    #                              (its staged entries die) and retried split in two; False = count a
    #                              stall after 1,000 commits (S0's model)
    txn_bound: str = "public"    # a batch transaction's need: "public" = (F - 1)(B - U_AVG)/4 positions
    #                              (revision 3 §7.1); "headroom" = max(U_MAX, H/2), H = (F - 1)(B - U_AVG)
    #                              minus the window's total drain cost (S0'' finding, revision 3.1)
    name: str = "design"

    def with_(self, **kw) -> "Config":
        return replace(self, **kw)


DESIGN = Config()
FIXED = Config(invariant=True, staged_live=True, back_to_back=True, pad_imports=True,
               epoch_adaptive=True, T_fixed=2, whole_spread=True, whole_tail=0.25,
               split_imports=True, name="fixed")
# revision 3 exactly as written: the S0-prime configuration (no adaptive epoch) with §7.1's abandonment
R3 = FIXED.with_(epoch_adaptive=False, abandon=True, name="r3")
# revision 3.1: revision 3 with the round-3 fixes and the S0-second transaction bound
R31 = R3.with_(sweep_rule="fs", staged_rule="unique", import_pool="all_first", pad_batches=True,
               overflow_double=True, txn_bound="headroom", name="r31")


def pad_import(k: int, cfg: Config) -> int:
    """P(k): commits an import of k photos takes (writer policy, R3-6)."""
    return max(1, math.ceil((k + cfg.pad_c) / cfg.pad_div))


def pad_batch(m: int, cfg: Config) -> int:
    """P_b(m): commits a batch operation on m items takes (writer policy, R3-5(2))."""
    return max(1, min(math.ceil(cfg.padb_a1 * m) + cfg.padb_b1, math.ceil(cfg.padb_a2 * m) + cfg.padb_b2))


def epoch_of(F: int, cfg: Config) -> int:
    if not cfg.epoch_adaptive:
        return cfg.EPOCH
    e = 1
    while e * 2 <= F // 2 and e * 2 <= cfg.EPOCH:
        e *= 2
    return max(1, e)


def T_of(F: int, cfg: Config) -> int:
    return cfg.T_fixed if cfg.T_fixed else -(-F // 4068)


def file_blocks(T: int, cfg: Config) -> int:
    return 2 + T + cfg.n * (1 + cfg.B)


@dataclass
class Stats:
    commits: int = 0
    regular: int = 0
    maintenance: int = 0          # commits with grant 0 inside an operation (pacing)
    pad_commits: int = 0          # N2 fix: padding commits of P(k)
    whole_tail_commits: int = 0   # maintenance commits that follow a whole commit (its burst)
    pieces: int = 0               # commits that staged without completing
    whole: int = 0
    postponed: int = 0            # commits that dropped fewer files than the schedule named
    max_lag: int = 0
    max_due_cost: int = 0         # largest drain cost (entries + outside ancestors) of a due file
    max_window_cost: int = 0      # largest drain cost of any window file (sampled)
    staged_lost: int = 0          # N3: staged blocks whose file left the window before the last piece
    lost_updates: int = 0         # N3: other-slot payloads made stale by an interleaved operation
    live_dropped: int = 0         # safety bug: a live entry in a dropped file (must be 0)
    pad_overflow: int = 0         # an import needed more than P(k) commits
    stalls: int = 0               # an operation got grant 0 for 1,000 commits running
    moved: int = 0
    extra_nodes: int = 0
    bytes_written: int = 0
    files_created: dict = field(default_factory=dict)   # per regular commit: count -> commits
    files_deleted: dict = field(default_factory=dict)
    commit_bytes: dict = field(default_factory=dict)
    public_mismatch: int = 0      # deletions differing from the public schedule
    mixed_sizes: int = 0          # commits after which the window holds two file sizes (N4)
    max_slot_ratio: float = 0.0   # slot bytes / largest vault's contents (G7), after settling
    g7_violations: int = 0
    max_files: int = 0
    F_values: list = field(default_factory=list)
    # --- review 3 ---
    pad_overflow2: int = 0        # R3-6: a padded operation needed more than 2 P commits (a count leaks)
    sweeps: list = field(default_factory=list)   # one dict per sweep (R3-1, R3-5(4))
    staged_moved: int = 0         # R3-2: staged entries the cleaner moved while their operation ran
    staged_stale_copies: int = 0  # R3-2: stale staged copies in [f_op, f_h] that the rev3 rule counts live
    staged_stale_due: int = 0     # R3-2: due files holding a stale staged copy while pieces are set:
    #                               the rev3 rule's recount disagrees with the table (refused commit)
    staged_rule_mismatch: int = 0  # R3-2: the chosen rule's live copy differs from the writer's memory
    m0_checks: int = 0            # R3-5(7): paced commits whose dry-run m0 was compared with the real cover
    m0_over: int = 0              #          commits whose real cover moved fewer entries than the dry run
    m0_over_max: int = 0
    m0_under_sum: int = 0         #          total entries the real cover moved beyond the dry run
    abandoned: int = 0            # N3: operations abandoned after F commits at grant 0 (public bursts)


class Directory:
    def __init__(self, cfg: Config, rng, f0: int = 1 << 20):
        self.cfg = cfg
        self.rng = rng
        self.f = f0 - 1          # head file number
        self.t = f0              # lowest live file
        self.F = cfg.F_MIN
        self.L = 256
        self.d = 1
        self.need = 1            # pages of the largest vault
        self.files: dict[int, list] = {}
        self.fsize: dict[int, int] = {}
        self.loc: dict[int, tuple] = {}
        self.owner: dict = {}
        self.live: dict[int, int] = {}
        self.cost_cache: dict[int, int] = {}
        self.clean_ptr = f0
        self.recent = deque()    # (moved, extra) of the last F commits: measured epsilon
        self.rec_m = 0
        self.rec_e = 0
        self.st = Stats()
        self.last_whole_f = -10 ** 9
        self.settled = False     # G7 is checked once the window has reached F(L)
        self.sweep = None        # R3-1: state of a destroy or purge sweep in progress
        self.no_pieces = False

    # ---------------- helpers ----------------
    def anc(self, key: int, d: int | None = None) -> list[int]:
        d = self.d if d is None else d
        key &= ~SB
        h = key >> LV
        i = key & MASK
        out = []
        while h < d:
            h += 1
            i //= FANOUT
            out.append((h << LV) | i)
        return out

    def live_entries(self, f: int, with_staged: bool | None = None) -> list[int]:
        ws = self.cfg.staged_live if with_staged is None else with_staged
        out = []
        ents = self.files.get(f)
        if not ents:
            return out
        for i, e in enumerate(ents):
            if e is None:
                continue
            if self.loc.get(e) == (f, i) and (ws or not e & SB):
                out.append(e)
        return out

    def cost_of_set(self, ents) -> tuple[int, set]:
        inside = set(e & ~SB for e in ents)
        outside = set()
        for e in ents:
            for a in self.anc(e):
                if a not in inside:
                    outside.add(a)
        return len(inside) + len(outside), outside

    def file_cost(self, f: int) -> int:
        c = self.cost_cache.get(f)
        if c is None:
            c = self.cost_of_set(self.live_entries(f, True))[0]
            self.cost_cache[f] = c
        return c

    def _kill(self, old):
        if old is None:
            return
        g = old[0]
        if g in self.live:
            self.live[g] -= 1
            self.cost_cache.pop(g, None)

    def eps_hat(self) -> float:
        meas = self.rec_e / self.rec_m if self.rec_m else 0.0
        return max(self.cfg.EPS, meas)

    def set_need(self, pages: int):
        self.need = max(self.need, pages)

    def target_L(self) -> tuple[int, int]:
        L, _ = grid_ceil(max(self.need, 256))
        L = max(L, self.L)
        return L, shape(L)[0]

    # ---------------- public bookkeeping ----------------
    def _public(self, created: int, dropped: int, expected_drop: int, regular: bool):
        st = self.st
        st.commits += 1
        T = T_of(self.F, self.cfg)
        size = file_blocks(T, self.cfg) * BLOCK
        st.bytes_written += created * size
        if regular:
            st.files_created[created] = st.files_created.get(created, 0) + 1
            st.files_deleted[dropped] = st.files_deleted.get(dropped, 0) + 1
            st.commit_bytes[created * size] = st.commit_bytes.get(created * size, 0) + 1
            if dropped != expected_drop:
                st.public_mismatch += 1
        if len(set(self.fsize[g] for g in self.files)) > 1:
            st.mixed_sizes += 1
        nfiles = len(self.files)
        st.max_files = max(st.max_files, nfiles)
        if not st.F_values or st.F_values[-1][1] != self.F:
            st.F_values.append((self.f, self.F))
        # G7: per slot, F files of (1 + B + (2 + T)/n) blocks, against the largest contents
        if self.F >= window_F(self.L, self.cfg) and nfiles >= self.F:
            self.settled = True
        if self.settled and self.need >= 1024:   # G7 is read for contents >= 4 MiB
            slot = nfiles * (1 + self.cfg.B + (2 + T) / self.cfg.n) * BLOCK
            contents = max(self.need, 1) * BLOCK
            r = slot / contents
            st.max_slot_ratio = max(st.max_slot_ratio, r)
            if slot > 2.45 * contents + 2.5 * 2 ** 20:
                st.g7_violations += 1

    # ---------------- whole commit ----------------
    def whole_commit(self):
        cfg = self.cfg
        L, d = self.target_L()
        self.L, self.d = L, d
        Fn = max(self.F, window_F(L, cfg))
        # every live entry (lazy growth: only ids written, and the nodes over them)
        data = sorted(k for k in self.loc if k >> LV == 0)
        nodes = set()
        for j in data:
            nodes.update(self.anc(j, d))
        keys = data + sorted(nodes, key=lambda k: (k >> LV, k & MASK))
        if cfg.invariant:
            # post-order: each node right after its children; <= B - d - R per file
            children: dict[int, list] = {}
            for k in keys:
                a = self.anc(k, d)
                if a:
                    children.setdefault(a[0], []).append(k)
            tops = sorted(k for k in keys if k >> LV == d)
            order = []

            def walk(k):
                for c in sorted(children.get(k, ())):
                    walk(c)
                order.append(k)
            for k in tops:
                walk(k)
            keys = order
            per = cfg.B - d - cfg.R
        else:
            per = cfg.B
        need_files = -(-len(keys) // per)
        Fn = max(Fn, need_files)
        first_data = max(0, min(int(cfg.whole_filler * Fn), Fn - need_files))
        if cfg.whole_spread:
            # the density pacing's condition (2) plans for: about Q / F entries per file
            first_data = 0
            per = min(per, max(1, -(-len(keys) // Fn)))
        old = list(self.files)
        self.files.clear(); self.fsize.clear(); self.live.clear(); self.cost_cache.clear()
        self.loc.clear(); self.owner.clear()
        T = T_of(Fn, cfg)
        base = self.f + 1
        pos = 0
        for q in range(Fn):
            f = base + q
            ents = [None] * cfg.B
            cnt = 0
            if q >= first_data:
                while cnt < per and pos < len(keys):
                    ents[cnt] = keys[pos]
                    self.loc[keys[pos]] = (f, cnt)
                    cnt += 1
                    pos += 1
            self.files[f] = ents
            self.fsize[f] = file_blocks(T, cfg)
            self.live[f] = cnt
        assert pos == len(keys)
        self.f = base + Fn - 1
        self.t = base
        self.F = Fn
        self.clean_ptr = base
        self.recent.clear(); self.rec_m = self.rec_e = 0
        self.st.whole += 1
        self._public(Fn, len(old), len(old), regular=False)
        for _ in range(math.ceil(cfg.whole_tail * Fn)):
            self.commit(None)
            self.st.whole_tail_commits += 1
        self.last_whole_f = self.f

    # ---------------- cover ----------------
    def _cover(self, room: int, wset: set, tnew: int):
        """Oldest live entries first (V5 §7.3), with leaf batching.
        Returns (moves, extra written nodes, cumulative positions used)."""
        cfg = self.cfg
        moves, extra, cum = [], [], []
        used = 0
        half = tnew + self.F // 2
        seen = set()

        def try_add(e):
            nonlocal used
            if e in wset or e in seen:
                return True
            if e & SB:
                # a staged entry moves without map changes; under the invariant its
                # future ancestors are charged to the new file's drain cost
                ex = []
                charge = len([a for a in self.anc(e) if a not in wset and a not in seen]) \
                    if cfg.invariant else 0
            else:
                ex = [a for a in self.anc(e) if a not in wset and a not in seen]
                charge = 0
            if used + 1 + len(ex) + charge > room:
                return False
            used += 1 + len(ex) + charge
            moves.append(e)
            seen.add(e)
            for a in ex:
                extra.append(a)
                seen.add(a)
            cum.append(used)
            return True

        def batch(leaf):
            if not cfg.leaf_batching or leaf >> LV != 1:
                return
            base = (leaf & MASK) * FANOUT
            for j in range(base, base + FANOUT):
                p = self.loc.get(j)
                if p is not None and p[0] < half and j not in wset and j not in seen:
                    if used + 1 > room:
                        return
                    try_add(j)

        if cfg.leaf_batching:
            for k in list(wset):
                if k >> LV == 1:
                    batch(k)
        f = max(self.clean_ptr, tnew)
        while f <= self.f and used < room:
            if self.live.get(f, 0) <= 0:
                if f == self.clean_ptr:
                    self.clean_ptr += 1
                f += 1
                continue
            for e in self.live_entries(f):
                n0 = len(extra)
                if not try_add(e):
                    return moves, extra, cum
                for a in extra[n0:]:
                    batch(a)
                if used >= room:
                    break
            f += 1
        return moves, extra, cum

    # ---------------- one regular commit ----------------
    def commit(self, op: "Op | None"):
        """One regular commit carrying (part of) op, or a maintenance commit if op is None.
        Returns True when op completed in this commit."""
        cfg, st = self.cfg, self.st
        f = self.f + 1
        Fn = self.F
        if f % epoch_of(self.F, cfg) == 0:
            Fn = max(self.F, window_F(self.L, cfg))
        t_sched = max(self.t, f - Fn + 1)
        due = [g for g in range(self.t, t_sched) if g in self.files]
        expected_drop = len(due)
        cap = cfg.B - (cfg.R if cfg.invariant else 0)
        mand = []
        for g in due:
            mand.extend(self.live_entries(g))
        dcost, _ = self.cost_of_set(mand)
        st.max_due_cost = max(st.max_due_cost, dcost)
        if dcost > cap:
            # condition (1) fails even at u = 0: postpone (keep the longest prefix that fits)
            keep, acc = [], []
            for g in due:
                trial = acc + self.live_entries(g)
                if self.cost_of_set(trial)[0] <= cap:
                    acc = trial
                    keep.append(g)
                else:
                    break
            due, mand = keep, acc
            dcost, _ = self.cost_of_set(mand)
        tnew = due[-1] + 1 if due else self.t
        mand_set = set(mand)
        e0 = set(a for e in mand if not e & SB for a in self.anc(e)) - mand_set
        # ----- grant (pacing, V5 §7.4 conditions (1) and (2)) -----
        a = (len(op.queue) - op.pos) if op else 0
        umax = min(a, cfg.U_MAX, max(0, cap - dcost))
        u = umax
        m0_dry = None
        if cfg.pacing and op and umax > 0:
            _, _, cum = self._cover(cap - dcost, mand_set | e0, tnew)
            mult = 1.0 if cfg.invariant else 1 + self.eps_hat()
            need_m = -1e18
            S = 0.0
            for h in range(2, Fn):
                g = t_sched + h - 1
                if g > self.f:
                    break
                c = self.file_cost(g) if cfg.invariant else self.live.get(g, 0)
                S += c
                v = S * mult - (h - 1) * (cfg.B - cfg.U_AVG)
                if v > need_m:
                    need_m = v
            u = 0
            for cand in range(umax, -1, -1):
                m0 = bisect.bisect_right(cum, cap - dcost - cand)
                if m0 >= need_m:
                    u = cand
                    break
            m0_dry = bisect.bisect_right(cum, cap - dcost - u)
        if self.no_pieces and op and u < a:
            u = 0              # R3-1: a sweep's first commit is never a piece (maintenance first)
        # ----- what the operation writes -----
        commit_keys, stage_keys = [], []
        completes = False
        charge = 0
        if op:
            if a > 0 and u >= a:
                commit_keys = op.take(a)
                completes = True
            elif u > 0:
                if cfg.invariant:
                    anc_set, taken = set(), 0
                    for k in op.queue[op.pos:]:
                        new = [x for x in self.anc(k, op.d) if x not in anc_set]
                        if taken + 1 + len(anc_set) + len(new) > u:
                            break
                        taken += 1
                        anc_set.update(new)
                    stage_keys = op.take(taken)
                    charge = len(anc_set)
                else:
                    stage_keys = op.take(u)
            elif a == 0:
                completes = True
            if not commit_keys and not stage_keys and not completes:
                st.maintenance += 1
                op.maint += 1
            elif stage_keys:
                st.pieces += 1
                if op.f_op is None:
                    op.f_op = f            # the head field f_op of §5.2
        wset = set(commit_keys) | set(k | SB for k in stage_keys)
        new_top = []
        if completes and op.d > self.d:
            self.L, self.d = op.L, op.d
            self.cost_cache.clear()
            tops = set()
            for k in list(self.loc):
                if not k & SB and k >> LV == self.d - 1:
                    tops.add(self.anc(k)[0])
            new_top = sorted(tops - wset)
            wset |= set(new_top)
            e0 = set(a for e in mand if not e & SB for a in self.anc(e)) - mand_set
        elif completes:
            self.L = max(self.L, op.L)
        wset |= mand_set | e0
        room = max(0, cap - len(wset) - charge)
        moves, extra, _ = self._cover(room, wset, tnew)
        if m0_dry is not None:
            # R3-5(7): is the dry run's m0 (no J, no D) ever more than the real cover moves?
            st.m0_checks += 1
            if len(moves) < m0_dry:
                st.m0_over += 1
                st.m0_over_max = max(st.m0_over_max, m0_dry - len(moves))
            else:
                st.m0_under_sum += len(moves) - m0_dry
        sw = self.sweep
        if sw is not None and sw["f_s"] is None and completes:
            sw["f_s"] = f                  # R3-1: f_s, the sweep's first file
        jset = set(commit_keys)
        wset |= set(moves) | set(extra)
        nmoved = len(mand) + len(moves)
        nextra = len(e0 - set(commit_keys)) + len(extra)
        if len(wset) > cfg.B:
            raise AssertionError("commit overflows B: %d" % len(wset))
        # ----- place -----
        ents = [None] * cfg.B
        self.files[f] = ents
        self.fsize[f] = file_blocks(T_of(Fn, cfg), cfg)
        self.live[f] = 0
        order = sorted(wset, key=lambda k: (k & SB, (k & ~SB) >> LV, k & MASK))
        for i, k in enumerate(order):
            ents[i] = k
            src = self.loc.get(k)
            if k & SB and src is not None:
                st.staged_moved += 1         # R3-2: the cleaner moved a staged entry
            if sw is not None and not k & SB and k >> LV == 0:
                self._sweep_write(k, src, k in jset, f)
            self._kill(src)
            self.loc[k] = (f, i)
            if not k & SB or cfg.staged_live:
                self.live[f] += 1
            if k & SB:
                self.owner.setdefault(k, op)
                if op is not None and k in self.owner and self.owner[k] is op:
                    op.staged.add(k)
        due_set = set(due)
        if completes and op is not None:
            for s in list(op.staged):
                p = self.loc.pop(s, None)
                self.owner.pop(s, None)
                if p is None:
                    continue
                if p[0] in due_set:
                    st.staged_lost += 1      # N3: the last piece references a file it drops
                    continue
                k = s & ~SB
                self._kill(self.loc.get(k))
                self.loc[k] = p
                self.files[p[0]][p[1]] = k
                if not cfg.staged_live:
                    self.live[p[0]] += 1
                self.cost_cache.pop(p[0], None)
                self.clean_ptr = min(self.clean_ptr, p[0])
            op.staged.clear()
        # ----- drop -----
        if op is not None and op.f_op is not None and op.f_op < f:
            # R3-2: the previous head had *pieces* set; a due file at or above f_op holding a
            # stale staged copy is one whose recount under the rev3 rule disagrees with the table
            for g in due:
                if g >= op.f_op and any(e is not None and e & SB and self.loc.get(e) != (g, i)
                                        for i, e in enumerate(self.files[g])):
                    st.staged_stale_due += 1
        for g in due:
            for i, e in enumerate(self.files[g]):
                if e is None or self.loc.get(e) != (g, i):
                    continue
                if e & SB and not cfg.staged_live:
                    st.staged_lost += 1          # N3: staged block's file left the window
                    del self.loc[e]
                    ow = self.owner.pop(e, None)
                    if ow is not None:
                        ow.staged.discard(e)
                        ow.requeue(e & ~SB)
                else:
                    st.live_dropped += 1         # safety bug: must never happen
            del self.files[g]
            del self.fsize[g]
            self.live.pop(g, None)
            self.cost_cache.pop(g, None)
        if len(due) < expected_drop:
            st.postponed += 1
        self.t = tnew
        self.f = f
        self.F = Fn
        st.max_lag = max(st.max_lag, (self.f - self.t + 1) - self.F)
        st.regular += 1
        st.moved += nmoved
        st.extra_nodes += nextra
        self.recent.append((nmoved, nextra))
        self.rec_m += nmoved
        self.rec_e += nextra
        while len(self.recent) > self.F:
            m_, e_ = self.recent.popleft()
            self.rec_m -= m_
            self.rec_e -= e_
        if op is not None and op.staged and not completes and op.f_op is not None:
            self._check_staged(op)
        if st.regular % 8 == 0:
            for g in self.files:
                st.max_window_cost = max(st.max_window_cost, self.file_cost(g))
        self._public(1, len(due), expected_drop, regular=True)
        return completes

    # ---------------- operations ----------------
    def run_op(self, J, interleave=None, pad_to: int = 0) -> int:
        """Carry one operation (the data ids J it changes) to completion and return the
        number of commits it took. interleave() is called between pieces; it returns the
        J of an operation on another vault committed in between, or None."""
        op = Op(self, J)
        n = 0
        idle = 0
        while True:
            done = self.commit(op)
            n += 1
            if done:
                break
            if op.progress():
                idle = 0
            else:
                idle += 1
                if self.cfg.abandon and idle >= self.F:
                    # §7.1: abandoned, its staged entries dead; the inner layer retries split in two
                    self.st.abandoned += 1
                    for s_ in op.staged:
                        self._kill(self.loc.pop(s_, None))
                        self.owner.pop(s_, None)
                    op.staged.clear()
                    data = sorted(J)
                    if len(data) < 2:
                        self.st.stalls += 1
                        break
                    h = len(data) // 2
                    n += self.run_op(data[:h]) + self.run_op(data[h:])
                    break
                if idle > 1000:
                    self.st.stalls += 1
                    break
            if interleave is not None and op.staged and not self.cfg.back_to_back:
                J2 = interleave()
                if J2:
                    stale = set(J2) & set(s & ~SB for s in op.staged)
                    self.st.lost_updates += len(stale)
                    self.run_op(J2)
        if pad_to:
            n = self.pad(n, pad_to)
        return n

    def pad(self, n: int, P: int) -> int:
        """Padding of an import (P(k)) or a batch operation (P_b(m)) that took n real commits."""
        if n > P:
            self.st.pad_overflow += 1
            if self.cfg.overflow_double:       # R3-6: an overflow pads to the public 2 P
                if n > 2 * P:
                    self.st.pad_overflow2 += 1
                P = 2 * P
        while n < P:
            self.commit(None)
            self.st.pad_commits += 1
            n += 1
        return n

    def txn_bound(self) -> int:
        """Most positions of need (J and D) one batch transaction may carry."""
        cfg = self.cfg
        if cfg.txn_bound == "headroom":
            H = (self.F - 1) * (cfg.B - cfg.U_AVG) - sum(self.file_cost(g) for g in self.files)
            return max(cfg.U_MAX, H // 2)
        return (self.F - 1) * (cfg.B - cfg.U_AVG) // 4

    # ---------------- R3-2: staged liveness computed from disk ----------------
    def _check_staged(self, op):
        """Every staged copy in [f_op, f_h], as a reader (recount, cover, verify --repair) finds
        it from the summaries, against the writer's memory (self.loc)."""
        copies: dict[int, list] = {}
        for g in range(max(op.f_op, self.t), self.f + 1):
            ents = self.files.get(g)
            if not ents:
                continue
            for i, e in enumerate(ents):
                if e is not None and e & SB:
                    copies.setdefault(e, []).append((g, i))
        for e, locs in copies.items():
            self.st.staged_stale_copies += len(locs) - 1
            live = [max(locs)] if self.cfg.staged_rule == "unique" else locs
            if live != [self.loc.get(e)]:
                self.st.staged_rule_mismatch += 1

    # ---------------- R3-1, N8: sweeps ----------------
    def _sweep_write(self, k, src, in_j, f):
        sw = self.sweep
        if sw["slot"] is None or sw["f_s"] is None:
            return                          # a purge, or pacing before the sweep's first commit
        state, rule = sw["state"], self.cfg.sweep_rule
        if f == sw["f_s"] and in_j:
            state[k] = "rand" if rule == "rev3" else "decoy"
            return
        if rule == "fs":
            if src is not None and src[0] < sw["f_s"]:
                state[k] = "rand"           # an entry from a pre-sweep file: fresh random bytes
        elif f > sw["f_s"]:
            state[k] = "rand"               # revision 3: every later move of the slot's entries

    def run_sweep(self, J, slot=None, slot_pages=0) -> dict:
        """A destroy (slot given: its data ids below slot_pages are the destroyed vault's) or
        purge sweep: a first commit carrying J (the new decoy, or the new header), never a
        piece, then maintenance commits while owed > 0 (owed = F' - 1 at the first commit,
        + ΔF at every window growth inside). Returns the sweep's record."""
        cfg = self.cfg
        sw = {"slot": slot, "f_s": None, "state": None}
        if slot is not None:
            sw["state"] = {j: "old" for j in range(slot_pages) if j in self.loc}
        self.sweep = sw
        self.no_pieces = True
        c0 = self.st.commits
        op = Op(self, J)
        pre = 0
        while not self.commit(op):
            pre += 1                        # pacing before the sweep: ordinary maintenance commits
            if pre > 1000:
                self.st.stalls += 1
                break
        self.no_pieces = False
        owed = self.F - 1
        n, grow = 1, 0
        while owed > 0:
            F0 = self.F
            self.commit(None)
            n += 1
            dF = self.F - F0
            grow += dF
            owed -= 1
            if cfg.sweep_owed_growth:
                owed += dF
        rec = {"slot": slot, "commits": n, "pre": pre, "growth": grow,
               "short": int(self.t < sw["f_s"]), "F": self.F}
        if slot is not None:
            st = sw["state"]
            rec["residue"] = sum(1 for j, v in st.items() if v == "old" and j in self.loc)
            rec["decoy_broken"] = int(cfg.sweep_rule == "rev3" or
                                      any(st.get(j) != "decoy" for j in J))
        else:
            rec["residue"] = rec["decoy_broken"] = 0
        self.st.sweeps.append(rec)
        self.sweep = None
        self.last_whole_f = self.f
        return rec


class Op:
    def __init__(self, dr: Directory, J):
        self.L, self.d = dr.target_L()
        D = set()
        for j in J:
            D.update(dr.anc(j, self.d))
        self.queue = sorted(J) + sorted(D, key=lambda k: (k >> LV, k & MASK))
        self.pos = 0
        self.maint = 0
        self.staged = set()
        self.f_op = None
        self._last = 0

    def take(self, k):
        out = self.queue[self.pos:self.pos + k]
        self.pos += len(out)
        return out

    def requeue(self, e):
        self.queue.append(e)

    def progress(self):
        p = self.pos != self._last
        self._last = self.pos
        return p
