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
    res = run_all("fixed", TINY, S, [], [], seed=3)
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
