"""Run traces, compute the per-trace figures, N2's separation statistic and the gates."""
from __future__ import annotations

from collections import Counter, defaultdict

from .model import DESIGN, FIXED, R3, R31, Config
from .traces import ADVERSARIAL, MEASUREMENT, Sim, trace_table

SINGLE = {"favourite", "delete", "passwd", "create"}
SEP_THRESHOLD = 0.05       # N2 gate: total-variation distance (a one-observation distinguisher's advantage)
PACING_PER_10K = 1.0       # N2 gate: pacing commits per 10,000 single-item operations
MIN_SAMPLES = 20


def make_config(name: str, overrides) -> Config:
    base = {"design": DESIGN, "fixed": FIXED, "r3": R3, "r31": R31}[name]
    kw = {}
    for o in overrides:
        k, v = o.split("=", 1)
        cur = getattr(base, k)
        if isinstance(cur, bool):
            kw[k] = v.lower() in ("1", "true", "yes")
        elif isinstance(cur, int):
            kw[k] = int(v)
        elif isinstance(cur, float):
            kw[k] = float(v)
        else:
            kw[k] = v
    cfg = base.with_(**kw)
    if overrides:
        cfg = cfg.with_(name=name + "+" + ",".join(overrides))
    return cfg


def tv(a, b):
    ca, cb = Counter(a), Counter(b)
    na, nb = len(a), len(b)
    return 0.5 * sum(abs(ca[k] / na - cb[k] / nb) for k in set(ca) | set(cb))


def separation(ops):
    """Max TV distance of commits-per-operation between vaults of different sizes, per kind.
    (ops may also be (kind, vault, observation) triples: R3-4's ctime observations.)"""
    by = defaultdict(lambda: defaultdict(list))
    for o in ops:
        kind, vi, n = o[0], o[1], o[-1]
        if vi >= 0:
            by[kind][vi].append(n)
    worst, where = 0.0, ""
    for kind, groups in by.items():
        g = [(vi, xs) for vi, xs in groups.items() if len(xs) >= MIN_SAMPLES]
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                d = tv(g[i][1], g[j][1])
                if d > worst:
                    worst, where = d, "%s v%d/v%d" % (kind, g[i][0], g[j][0])
    return worst, where


def run_trace(cfg, name, sizes, fn, s, seed, cycles=0):
    sim = Sim(cfg, sizes, seed)
    sim.cycles = cycles
    fn(sim, s)
    st = sim.dr.st
    single = [o for o in sim.ops if o[0] in SINGLE]
    extra_single = sum(o[3] - 1 for o in single)
    steady = [o for o, aw in zip(sim.ops, sim.after_whole) if o[0] in SINGLE and not aw]
    extra_steady = sum(o[3] - 1 for o in steady)
    burst_after_whole = max([o[3] for o, aw in zip(sim.ops, sim.after_whole) if aw] or [0])
    pieces_by = defaultdict(list)
    for kind, vi, _c, n in sim.ops:
        if vi >= 0:
            pieces_by["%s@v%d" % (kind, vi)].append(n)
    sep, where = separation(sim.ops)
    csep, cwhere = separation(sim.ctime_obs)
    sweeps = st.sweeps
    batch_ops = [o for o in sim.ops if o[0].startswith(("bdel", "bmove"))]
    return {
        "trace": name,
        "sizes": [v.items for v in sim.vaults],
        "ops": len(sim.ops),
        "commits": st.commits,
        "regular": st.regular,
        "whole": st.whole,
        "postponed": st.postponed,
        "max_lag": st.max_lag,
        "max_due_cost": st.max_due_cost,
        "max_window_cost": st.max_window_cost,
        "B": cfg.B,
        "maintenance": st.maintenance,
        "pad_commits": st.pad_commits,
        "pieces": st.pieces,
        "pacing_per_10k_single": (1e4 * extra_single / len(single)) if single else 0.0,
        "single_ops": len(single),
        "pacing_per_10k_steady": (1e4 * extra_steady / len(steady)) if steady else 0.0,
        "burst_after_whole": burst_after_whole,
        "staged_lost": st.staged_lost,
        "lost_updates": st.lost_updates,
        "live_dropped": st.live_dropped,
        "pad_overflow": st.pad_overflow,
        "stalls": st.stalls,
        "eps": (st.extra_nodes / st.moved) if st.moved else 0.0,
        "bytes_per_commit": sorted(st.commit_bytes),
        "created_per_commit": dict(st.files_created),
        "deleted_per_commit": dict(st.files_deleted),
        "public_mismatch": st.public_mismatch,
        "mixed_sizes": st.mixed_sizes,
        "max_slot_ratio": st.max_slot_ratio,
        "g7_violations": st.g7_violations,
        "F_first_last": (st.F_values[0][1], st.F_values[-1][1]) if st.F_values else None,
        "F_changes": len(st.F_values),
        "sep": sep,
        "sep_where": where,
        "commits_per_op": {k: dict(Counter(v)) for k, v in sorted(pieces_by.items())},
        # review round 3
        "ctime_sep": csep,
        "ctime_where": cwhere,
        "batch_ops": len(batch_ops),
        "batch_commits": sum(o[3] for o in batch_ops),
        "pad_overflow2": st.pad_overflow2,
        "abandoned": st.abandoned,
        "sweeps": sweeps,
        "sweep_residue": sum(w["residue"] for w in sweeps),
        "sweep_decoy_broken": sum(w["decoy_broken"] for w in sweeps),
        "sweep_short": sum(w["short"] for w in sweeps),
        "staged_moved": st.staged_moved,
        "staged_stale_copies": st.staged_stale_copies,
        "staged_stale_due": st.staged_stale_due,
        "staged_rule": cfg.staged_rule,
        "staged_rule_mismatch": st.staged_rule_mismatch,
        "m0_checks": st.m0_checks,
        "m0_over": st.m0_over,
        "m0_over_max": st.m0_over_max,
        "m0_under_sum": st.m0_under_sum,
        "adversarial": name in ADVERSARIAL,
        "ops_raw": sim.ops,
    }


def grid_separation(results):
    """N2 by grid position: TV of commits per operation, grid-low vs grid-high, per (kind, vault)."""
    lo = next((r for r in results if r["trace"] == "grid-low"), None)
    hi = next((r for r in results if r["trace"] == "grid-high"), None)
    if not lo or not hi:
        return None, ""
    def groups(r):
        g = defaultdict(list)
        for kind, vi, _c, n in r["ops_raw"]:
            g[(kind, vi)].append(n)
        return g
    gl, gh = groups(lo), groups(hi)
    worst, where = 0.0, ""
    for k in set(gl) & set(gh):
        if len(gl[k]) >= MIN_SAMPLES and len(gh[k]) >= MIN_SAMPLES:
            d = tv(gl[k], gh[k])
            if d > worst:
                worst, where = d, "%s v%d" % k
    return worst, where


def n4_check(cfg):
    """N4, public schedule only: a window growing across F = 4,068 — do two file sizes coexist?"""
    from .model import T_of, file_blocks
    from collections import deque
    F = 4060
    sizes = deque([file_blocks(T_of(F, cfg), cfg)] * F)
    count = Counter(sizes)
    mixed = 0
    for step in range(2 * 4100):
        if step == 10:
            F = 4100            # the epoch at which F(L') passes 4,068
        x = file_blocks(T_of(F, cfg), cfg)
        sizes.append(x)
        count[x] += 1
        if len(sizes) > F:
            y = sizes.popleft()
            count[y] -= 1
            if not count[y]:
                del count[y]
        if len(count) > 1:
            mixed += 1
    return mixed


def run_all(config, items, s, only, overrides, seed, cycles=0):
    cfg = make_config(config, overrides)
    table = trace_table(items)
    names = only or [t for t in table if t not in MEASUREMENT]
    res = []
    for name in names:
        sizes, fn = table[name]
        res.append(run_trace(cfg, name, sizes, fn, s, seed, cycles))
    gsep, gwhere = grid_separation(res)
    return {"config": cfg.name, "cfg": cfg.__dict__ if hasattr(cfg, "__dict__") else str(cfg),
            "items": items, "s": s, "traces": res, "grid_sep": gsep, "grid_where": gwhere,
            "n4_mixed_commits": n4_check(cfg)}


def gates(res):
    ok = True
    lines = []
    for r in res["traces"]:
        fails = []
        if r["postponed"]:
            fails.append("postponed=%d" % r["postponed"])
        if r["live_dropped"]:
            fails.append("live_dropped=%d" % r["live_dropped"])
        if r["staged_lost"] or r["lost_updates"]:
            fails.append("N3 staged_lost=%d lost_updates=%d" % (r["staged_lost"], r["lost_updates"]))
        if r["max_due_cost"] > r["B"] or r["max_window_cost"] > r["B"]:
            # "zero postponements by construction": every window file drains within B
            fails.append("drain cost due %d / window %d > B" % (r["max_due_cost"], r["max_window_cost"]))
        if len(r["bytes_per_commit"]) > 1 or set(r["created_per_commit"]) - {1} or set(r["deleted_per_commit"]) - {0, 1}:
            fails.append("public sequence not constant")
        if r["sep"] > SEP_THRESHOLD and not r["adversarial"]:
            fails.append("N2 sep %.3f (%s)" % (r["sep"], r["sep_where"]))
        if not r["adversarial"] and r["pacing_per_10k_single"] > PACING_PER_10K:
            fails.append("pacing %.1f/10k" % r["pacing_per_10k_single"])
        if r["pad_overflow"]:
            fails.append("P(k) overflow=%d" % r["pad_overflow"])
        if r["g7_violations"]:
            fails.append("G7 x%d" % r["g7_violations"])
        if r["stalls"]:
            fails.append("stalls=%d" % r["stalls"])
        # review round 3
        if r["abandoned"]:
            fails.append("abandoned=%d" % r["abandoned"])
        if r["ctime_sep"] > SEP_THRESHOLD and not r["adversarial"]:
            fails.append("R3-4 ctime sep %.3f (%s)" % (r["ctime_sep"], r["ctime_where"]))
        if r["staged_rule_mismatch"]:
            fails.append("R3-2 staged rule (%s) disagrees %d×" % (r["staged_rule"], r["staged_rule_mismatch"]))
        if r["staged_rule"] != "unique" and r["staged_stale_due"]:
            fails.append("R3-2 recount refuses %d healthy commits" % r["staged_stale_due"])
        if r["sweep_residue"] or r["sweep_decoy_broken"] or r["sweep_short"]:
            fails.append("R3-1 sweep residue=%d decoy_broken=%d short=%d" % (
                r["sweep_residue"], r["sweep_decoy_broken"], r["sweep_short"]))
        lines.append("%-22s %s" % (r["trace"], "PASS" if not fails else "FAIL: " + "; ".join(fails)))
        ok &= not fails
    if res["grid_sep"] is not None:
        g_ok = res["grid_sep"] <= SEP_THRESHOLD
        lines.append("%-22s %s" % ("N2 grid position", ("PASS" if g_ok else "FAIL") + " sep %.3f (%s)" % (res["grid_sep"], res["grid_where"])))
        ok &= g_ok
    n4 = res["n4_mixed_commits"]
    lines.append("%-22s %s" % ("N4 (T across 4,068)", "PASS" if not n4 else "FAIL: %d commits with two file sizes in the window" % n4))
    ok &= not n4
    print("\nGates (%s):" % res["config"])
    print("\n".join(lines))
    print("ALL GATES:", "PASS" if ok else "FAIL")
    res["gate_lines"] = lines
    res["all_pass"] = ok
    return ok


def render(res):
    hdr = ("| trace | vault items | ops | commits | postponed (max lag) | max due cost / B | max window cost "
           "| bytes per commit | created / deleted per commit | maint. (pacing) | pieces | pacing per 10k single (steady) "
           "| burst after whole | ε | G7 max slot/contents | staged lost / lost updates | N2 sep (where) | F first→last |")
    out = ["config: %s, largest vault %d items, s = %d" % (res["config"], res["items"], res["s"]), "", hdr,
           "|" + "---|" * hdr.count("|")[:-1] if False else "|" + "---|" * (hdr.count("|") - 1)]
    for r in res["traces"]:
        cr = "/".join("%d×%d" % (k, v) for k, v in sorted(r["created_per_commit"].items()))
        de = "/".join("%d×%d" % (k, v) for k, v in sorted(r["deleted_per_commit"].items()))
        out.append("| %s | %s | %d | %d | %d (%d) | %d / %d | %d | %s | %s ; %s | %d (+%d pad) | %d | %.1f (%.1f) | %d | %.3f | %.2f | %d / %d | %.3f (%s) | %s |" % (
            r["trace"], ",".join(str(x) for x in r["sizes"]), r["ops"], r["commits"], r["postponed"], r["max_lag"],
            r["max_due_cost"], r["B"], r["max_window_cost"],
            ",".join("%.2f MiB" % (b / 2 ** 20) for b in r["bytes_per_commit"]), cr, de,
            r["maintenance"], r["pad_commits"], r["pieces"], r["pacing_per_10k_single"],
            r["pacing_per_10k_steady"], r["burst_after_whole"], r["eps"],
            r["max_slot_ratio"], r["staged_lost"], r["lost_updates"], r["sep"], r["sep_where"] or "-",
            "%s→%s" % r["F_first_last"] if r["F_first_last"] else "-"))
    out.append("")
    out.append("commits per operation (kind@vault: {commits: count}):")
    for r in res["traces"]:
        out.append("  %s: %s" % (r["trace"], "; ".join("%s %s" % (k, v) for k, v in r["commits_per_op"].items())))
    if res["grid_sep"] is not None:
        out.append("N2 by grid position (grid-low vs grid-high): TV %.3f (%s)" % (res["grid_sep"], res["grid_where"]))
    out.append("N4: commits with two file sizes in the window when F crosses 4,068: %d" % res["n4_mixed_commits"])
    out.append("")
    out.append("Review round 3 (R3-1 sweeps, R3-2 staged liveness, R3-4 ctime order, R3-5 batches, m0):")
    h2 = ("| trace | batch ops (commits) | sweeps: commits (pre, ΔF inside) | residue / decoy broken / short "
          "| staged moved | stale staged copies / stale due (rule) | rule mismatch | ctime sep (where) "
          "| P overflow (> 2P) | abandoned | m0 dry > real (max) / checks |")
    out += [h2, "|" + "---|" * (h2.count("|") - 1)]
    for r in res["traces"]:
        sw = ", ".join("%d (%d, %d)" % (w["commits"], w["pre"], w["growth"]) for w in r["sweeps"]) or "-"
        out.append("| %s | %d (%d) | %s | %d / %d / %d | %d | %d / %d (%s) | %d | %.3f (%s) | %d (%d) | %d | %d (%d) / %d |" % (
            r["trace"], r["batch_ops"], r["batch_commits"], sw, r["sweep_residue"], r["sweep_decoy_broken"],
            r["sweep_short"], r["staged_moved"], r["staged_stale_copies"], r["staged_stale_due"], r["staged_rule"],
            r["staged_rule_mismatch"], r["ctime_sep"], r["ctime_where"] or "-", r["pad_overflow"],
            r["pad_overflow2"], r["abandoned"], r["m0_over"], r["m0_over_max"], r["m0_checks"]))
    for r in res["traces"]:
        r.pop("ops_raw", None)
    return "\n".join(out)
