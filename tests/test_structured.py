"""The allocation-light kernels used by batch analysis and design."""

import numpy as np
from conftest import boards as board_strategy
from conftest import every_start
from hypothesis import given, settings

from snl_numeric import expected_throws_all, throw_distances, throws_variance_all
from snl_numeric._core.table import OVERSHOOT_CODES
from snl_numeric._core.table import succ_table_kernel as _fill_succ


@settings(max_examples=150)
@given(board_strategy(max_size=40))
def test_structured_kernels_match_core(board):
    cb = board.compiled
    jump_to = np.full(board.size + 1, -1, dtype=np.int64)
    jump_to[cb.jump_src] = cb.jump_dst
    succ = np.empty(cb.succ.shape, dtype=np.int32)  # as the kernels get it
    _fill_succ(board.size, jump_to, OVERSHOOT_CODES[board.overshoot], board.chain,
               cb.faces, succ, np.empty((0, 0), dtype=np.int32))
    assert np.array_equal(succ, cb.succ)
    df = every_start(board, ["min_throws", "mean", "variance"])
    dist = df["min_throws"].fillna(-1).to_numpy(dtype=np.int64)
    mean, var = df["mean"].to_numpy(), df["variance"].to_numpy()
    assert np.array_equal(dist, throw_distances(board))
    ref_mean, ref_var = expected_throws_all(board), throws_variance_all(board)
    assert np.array_equal(np.isinf(mean), np.isinf(ref_mean))
    fin = np.isfinite(ref_mean)
    np.testing.assert_allclose(mean[fin], ref_mean[fin], rtol=1e-10)
    np.testing.assert_allclose(var[fin], ref_var[fin], rtol=1e-8, atol=1e-9)
