"""S0 trace simulator (tools/v5sim) at a tiny scale: the gates hold on the fixed design,
and the simulator detects what the review says the design as written allows.

Runs in a few seconds; standard library only (plus pytest).
"""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.v5sim.model import DESIGN, FIXED, grid_ceil, shape, window_F  # noqa: E402
from tools.v5sim.report import SEP_THRESHOLD, gates, n4_check, run_all  # noqa: E402
from tools.v5sim.traces import MEASUREMENT, ROUND3, trace_table  # noqa: E402

TINY = 10_000          # the largest real vault, items
S = 1                  # trace length multiplier (the full runs use 4)


def _by_name(res):
    return {r["trace"]: r for r in res["traces"]}


def test_constants_match_the_design_doc():
    # V5-CONTAINER.md §3/§4.3: L grid, F(L) and the window sizes it tabulates
    assert grid_ceil(1) == (256, 0)
    assert grid_ceil(1638)[0] == 1728 and window_F(1728, DESIGN) == 55
    assert grid_ceil(16384)[0] == 16384 and window_F(16384, DESIGN) == 516
    assert window_F(19520, DESIGN) == 614
    assert window_F(256, DESIGN) == 9
    assert shape(20787)[0] == 1 and shape(20788)[0] == 2


def test_fixed_design_passes_every_gate(capsys):
    # S0's traces (the round-3 traces need revision 3.1's transaction bound: see below)
    s0 = [t for t in trace_table(TINY) if t not in ROUND3 + sorted(MEASUREMENT)]
    res = run_all("fixed", TINY, S, s0, [], seed=3)
    ok = gates(res)
    out = capsys.readouterr().out
    by = _by_name(res)
    for name, r in by.items():
        assert r["postponed"] == 0, name                   # zero postponements by construction
        assert r["live_dropped"] == 0, name
        assert r["max_window_cost"] <= r["B"], name         # N1 invariant: every file drains in B
        assert r["staged_lost"] == 0 and r["lost_updates"] == 0, name   # N3
        assert len(r["bytes_per_commit"]) == 1, name         # one commit size
        assert set(r["created_per_commit"]) == {1}, name
        if not r["adversarial"]:
            assert r["sep"] <= SEP_THRESHOLD, (name, r["sep"], r["sep_where"])   # N2
    assert res["n4_mixed_commits"] == 0                      # N4
    assert ok, out


def test_design_as_written_fails_where_the_review_says():
    res = run_all("design", TINY, S, ["first-import-10k", "interleave-3-vaults",
                                      "imports-1/10/100"], [], seed=3)
    by = _by_name(res)
    # N3: staged blocks dead to the schedule at F_MIN, and lost updates when interleaved
    assert by["first-import-10k"]["staged_lost"] > 0
    assert by["interleave-3-vaults"]["lost_updates"] > 0
    # N1: files whose drain cost exceeds B exist in the window (pieces, whole commits)
    assert max(r["max_window_cost"] for r in res["traces"]) > DESIGN.B
    # N4: T = ceil(F/4068) mixes file sizes when F crosses 4,068
    assert n4_check(DESIGN) > 0 and n4_check(FIXED) == 0


def test_simulator_detects_a_forced_postponement():
    # a deliberately broken configuration: the design as written with pacing off, under a
    # sustained load that scatters every changed block over distinct leaves (4 cycles)
    res = run_all("design", 50_000, 8, ["adversarial-scatter"], ["pacing=false"], seed=1)
    r = res["traces"][0]
    assert r["postponed"] > 0
    assert r["max_due_cost"] > r["B"]
    assert not gates(res)


def test_padding_off_lets_imports_tell_vault_sizes():
    res = run_all("fixed", TINY, 2, ["imports-1/10/100"], ["pad_imports=false"], seed=3)
    assert res["traces"][0]["sep"] > SEP_THRESHOLD


# ---------------------------------------------------------------- review round 3 (S0'')
# R3-5's traces (batches on every vault, batch operations, destroy and purge sweeps) at a
# tiny size; revision 3 as written ("r3") must fail the gates the review says it fails, and
# revision 3.1 ("r31") must pass them.



def test_round3_traces_pass_on_revision_3_1(capsys):
    from tools.v5sim.model import R31, pad_batch
    res = run_all("r31", TINY, S, ROUND3, [], seed=3)
    ok = gates(res)
    out = capsys.readouterr().out
    by = _by_name(res)
    for name, r in by.items():
        assert r["postponed"] == 0 and r["live_dropped"] == 0, name
        assert r["max_window_cost"] <= r["B"], name
        assert r["abandoned"] == 0 and r["stalls"] == 0, name          # no transaction deadlocks
        assert r["staged_rule_mismatch"] == 0, name                   # R3-2: the rule is computable from disk
        assert r["pacing_per_10k_single"] <= 1.0, name                # R3-5(1): not exempt
        assert r["sep"] <= SEP_THRESHOLD and r["ctime_sep"] <= SEP_THRESHOLD, name
    # R3-5(2): every batch operation takes exactly P_b(m) commits
    mb = by["batches-10/50/200"]
    assert mb["batch_ops"] > 0 and mb["pad_overflow"] == 0
    for key, dist in mb["commits_per_op"].items():
        if key.startswith(("bdel", "bmove")):
            m = int(key.split("@")[0].lstrip("bdelmov"))
            assert set(dist) == {pad_batch(m, R31)}, (key, dist)
    # R3-1: both sweeps complete the window's turnover, the decoy survives, no residue; the
    # destroy sweep has a window growth inside it, and takes F' + ΔF commits (owed)
    sw = by["destroy-sweep"]["sweeps"]
    assert len(sw) == 2 and sw[0]["growth"] > 0
    for w in sw:
        assert w["short"] == 0 and w["residue"] == 0 and w["decoy_broken"] == 0
        assert w["commits"] == w["F"]
    assert ok, out


def test_revision_3_as_written_fails_round3_gates():
    res = run_all("r3", TINY, S, ["batches-10/50/200", "destroy-sweep"], [], seed=3)
    by = _by_name(res)
    b = by["batches-10/50/200"]
    # the transaction bound (F - 1)(B - U_AVG)/4 deadlocks: operations abandoned; while they
    # wait the cleaner moves their staged entries, and the rev3 liveness rule then counts the
    # stale copies (R3-2): its recount would refuse healthy commits
    assert b["abandoned"] > 0
    assert b["staged_moved"] > 0 and b["staged_rule_mismatch"] > 0 and b["staged_stale_due"] > 0
    assert b["batch_ops"] > 0
    # R3-1: revision 3's first commit leaves no decoy (block 0 random)
    assert by["destroy-sweep"]["sweep_decoy_broken"] > 0
    assert not gates(res)


def test_a_decoy_written_first_is_erased_by_revision_3s_rewrite_rule():
    res = run_all("r31", TINY, S, ["destroy-sweep"], ["sweep_rule=rev3-decoy"], seed=3)
    assert res["traces"][0]["sweep_decoy_broken"] > 0
    assert not gates(res)


def test_a_sweep_that_ignores_growth_ends_before_the_window_turned_over():
    res = run_all("r31", TINY, S, ["destroy-sweep"], ["sweep_owed_growth=false"], seed=3)
    assert res["traces"][0]["sweep_short"] > 0
    assert not gates(res)


def test_import_pool_ctimes_separate_vault_sizes_unless_written_first():
    # R3-4: each transaction's pool files before its pieces, padding at the end: one copy's
    # ctime order shows commits per transaction, which name the vault's size
    bad = run_all("r3", TINY, 2, ["imports-1/10/100"], [], seed=3)
    assert bad["traces"][0]["ctime_sep"] > SEP_THRESHOLD
    assert not gates(bad)
    good = run_all("r31", TINY, 2, ["imports-1/10/100"], [], seed=3)
    assert good["traces"][0]["ctime_sep"] <= SEP_THRESHOLD
    assert gates(good)


def test_unpadded_batches_name_the_vault_and_make_single_item_operations_pace():
    # R3-5(1,2): without P_b, commits per batch name the vault's size (TV 1.0: a batch of 50
    # on the largest vault takes several commits, on the smallest one), and the cleaner falls
    # behind, so the single-item operations that follow pace; both gates catch it
    res = run_all("r31", TINY, 4, ["batches-10/50/200"], ["pad_batches=false"], seed=3)
    r = res["traces"][0]
    assert r["sep"] > SEP_THRESHOLD
    assert r["pacing_per_10k_single"] > 1.0
    assert not gates(res)


def test_the_unique_staged_rule_agrees_with_the_writer_when_staged_entries_move():
    # R3-2: in the deadlocking configuration the cleaner moves staged entries many times;
    # revision 3.1's rule ("no newer staged copy in (f, f_h]") still names exactly the
    # writer's copy, where revision 3's rule counts every stale copy
    res = run_all("r3", TINY, S, ["batches-10/50/200"], ["staged_rule=unique"], seed=3)
    r = res["traces"][0]
    assert r["staged_moved"] > 0 and r["staged_stale_copies"] > 0
    assert r["staged_rule_mismatch"] == 0
