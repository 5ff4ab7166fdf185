"""plot_sensitivity: the elasticity map, the dice gradient, the moved jumps."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from snl_numeric import Board, boards, sensitivity  # noqa: E402
from snl_numeric.plot import plot_sensitivity  # noqa: E402
from tests.naive import plot_square_cells_naive  # noqa: E402

MB = boards.get("milton-bradley")


def test_elasticity_map_holds_by_square():
    s = sensitivity(MB, wrt="transitions")
    ax = plot_sensitivity(s)
    img = ax.images[0].get_array()
    for k, (x, y) in plot_square_cells_naive(100).items():
        if k:
            assert img[y, x] == pytest.approx(s.by_square[k])
    lo, hi = ax.images[0].get_clim()
    assert lo == -hi and hi == pytest.approx(np.abs(s.by_square[1:]).max())
    assert "Elasticity of the expected throws" in ax.get_title()
    plt.close("all")


def test_dice_bars_and_jump_image():
    s = sensitivity(MB, wrt="dice", of="variance")
    fig, ax = plt.subplots()
    assert plot_sensitivity(s, ax=ax) is ax
    assert [p.get_height() for p in ax.patches] == pytest.approx(s.gradient.tolist())
    j = sensitivity(Board(20, {3: 12, 15: 5}), wrt="jumps", shift=2)
    ax = plot_sensitivity(j)
    assert ax.images[0].get_array().shape == (4, 5)
    assert [t.get_text() for t in ax.get_yticklabels()][:2] == ["3→12 from", "3→12 to"]
    plt.close("all")


def test_type_error():
    with pytest.raises(TypeError, match="expected a Sensitivity or a Board, got int"):
        plot_sensitivity(3)
