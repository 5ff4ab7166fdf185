"""Issue 50: chains too uneven for a successor table (a hub row of thousands of moves)
answered from their CSR rows: expected steps and their variance against dense
numpy.linalg.solve (tests/naive.py ``chain_dense``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from naive import chain_dense, chain_exact_mean
from test_direct import csr_chains

from snl_numeric import Chain, expected_throws_all, solver_report, throws_variance_all
from snl_numeric.uneven import is_uneven, uneven_moments


def hub_chain(n: int = 4801, seed: int = 5, back: int = 40) -> Chain:
    """The benchmark's hub chain (``benchmarks.bench_chain.hub_chain``) of ``n`` states."""
    from benchmarks.bench_chain import hub_chain as bench_hub_chain

    return Chain(bench_hub_chain(n, 5, back, seed))


@settings(max_examples=50, deadline=None)
@given(csr_chains())
def test_rows_path_against_dense_solve(case):
    """Any chain (uneven or not) solved from its rows: the means within their certified
    bound, the variances within theirs, inf where absorption is not sure."""
    P, ends = case
    m = uneven_moments(Chain(P, absorbing=ends))
    mean, var, _, _ = chain_dense(P, ends)
    assert np.array_equal(np.isinf(m.mean), np.isinf(mean))
    assert np.array_equal(np.isinf(m.variance), np.isinf(var))
    fin = np.isfinite(mean)
    assert m.mean_error < 1e-11 and m.variance_error < 1e-9
    # the means within their certified bound of the exact answer (P's rows scaled to sum
    # to 1, as documented; the dense solve of the rows as given can differ by the chain's
    # condition number times their roundings)
    moving = np.flatnonzero(fin & (mean > 0))
    exact = np.array([float(v) for v in chain_exact_mean(P, moving)])
    np.testing.assert_allclose(m.mean[moving], exact, rtol=m.mean_error + 2.0**-52, atol=0)
    # (the dense reference's own error: its variance formula cancels)
    slack = 1e-10 * (mean[fin] ** 2 + 1)
    assert (np.abs(m.variance[fin] - var[fin]) <= m.variance_error * var[fin] + slack).all()


def test_uneven_chain_answers_its_moments_from_its_rows():
    chain = hub_chain()
    assert is_uneven(chain)
    with pytest.raises(ValueError, match="too uneven for a successor table: its widest row "
                                         "holds 4,801 transitions.*expected_throws_all"):
        chain.compiled
    t, v = expected_throws_all(chain), throws_variance_all(chain)
    rep = solver_report(chain)
    assert rep.method == "splu" and rep.unknowns == 4800 and rep.error_estimate < 1e-11
    n = chain.n_states
    A = np.eye(n - 1) - chain.P.toarray()[:-1, :-1]
    td = np.linalg.solve(A, np.ones(n - 1))
    ud = np.linalg.solve(A, td)
    np.testing.assert_allclose(t[:-1], td, rtol=2 * rep.error_estimate, atol=0)
    np.testing.assert_allclose(v[:-1], 2 * ud - td - td * td, rtol=1e-9)
    assert t[-1] == v[-1] == 0.0 and rep.condition == pytest.approx(td.max(), rel=1e-12)
    assert not is_uneven(Chain(np.array([[0.5, 0.5], [0.0, 1.0]])))
