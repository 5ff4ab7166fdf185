"""``import snl_numeric`` loads what its questions need only when they are asked (issue 53).

Each test runs in a fresh interpreter (nothing imported yet): which modules an import
loads, and the lazy namespace seen from several threads at once. The time it saves is
measured in ``benchmarks/bench_import.py``.
"""

from __future__ import annotations

import json

from subproc import run_python

#: What no ``import snl_numeric`` may load: Numba (half a second), SciPy's solvers and
#: graphs, matplotlib (the ``plot`` extra).
HEAVY = ("numba", "llvmlite", "scipy.sparse.linalg", "scipy.sparse.csgraph", "scipy.linalg",
         "scipy.special", "matplotlib")


def _loaded(code: str, names: tuple[str, ...] = HEAVY) -> dict[str, bool]:
    out = run_python(code + f"\nimport sys, json\nprint(json.dumps({{n: n in sys.modules "
                            f"for n in {list(names)!r}}}))")
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_numba_scipy_solver_or_matplotlib():
    loaded = _loaded("import snl_numeric\nassert snl_numeric.__version__")
    assert not any(loaded.values()), loaded
    # nor the questions' modules: only the package's own start and its version
    out = run_python("import json, sys, snl_numeric\nprint(json.dumps(sorted(m for m in "
                     "sys.modules if m.startswith('snl_numeric'))))")
    assert json.loads(out.stdout) == ["snl_numeric", "snl_numeric._core", "snl_numeric._core.lazy",
                                      "snl_numeric._core.version"]


def test_names_load_their_own_modules_only():
    """A board from the registry needs no SciPy; the plot functions load no matplotlib
    before they draw; Milton Bradley's expected throws load no Numba."""
    board = _loaded("from snl_numeric import boards\nboards.get('milton-bradley')",
                    ("scipy.sparse", "scipy.linalg", "numba", "matplotlib"))
    assert board == dict.fromkeys(board, False)
    plot = _loaded("from snl_numeric.plot import plot_distribution, plot_board")
    assert not plot["matplotlib"] and not plot["numba"]
    solve = _loaded("import snl_numeric as snl\n"  # (the 1993 value: tests/test_exact.py)
                    "assert abs(snl.expected_throws(snl.boards.get('milton-bradley')) "
                    "- 39.2251223) < 1e-6")
    assert not solve["numba"] and not solve["matplotlib"]


def test_functions_named_like_their_module_stay_functions():
    """``simulate``, ``report``, ``sensitivity`` and ``warmup`` are functions of the package
    whether their module was imported before, by another module, or after."""
    out = run_python("""
        import inspect
        import snl_numeric
        import snl_numeric.simulate.run          # before the name was used
        from snl_numeric.sensitivity import Sensitivity
        first = snl_numeric.simulate, snl_numeric.sensitivity
        from snl_numeric import report, warmup   # the name first, the module after
        import snl_numeric.report, snl_numeric.warmup
        names = [first[0], first[1], snl_numeric.report, snl_numeric.warmup, report, warmup]
        print([inspect.isfunction(f) and f.__name__ for f in names])
        print(snl_numeric.simulate is snl_numeric.simulate.__globals__["simulate"])
    """)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.split("\n")
    assert lines[0] == str(["simulate", "sensitivity", "report", "warmup", "report", "warmup"])
    assert lines[1] == "True"


def test_threads_import_names_at_once():
    """Eight threads, released together, import every public name (each in its own order)
    into a fresh interpreter: each gets the object its module defines."""
    out = run_python("""
        import importlib, json, random, threading
        import snl_numeric
        names = list(snl_numeric.__all__)
        go = threading.Barrier(8)
        got, errors = [None] * 8, []
        def run(i):
            order = names[:]
            random.Random(i).shuffle(order)
            go.wait()
            try:
                got[i] = {n: getattr(importlib.import_module("snl_numeric"), n) if i % 2 else
                          __import__("snl_numeric", fromlist=[n]).__dict__[n] for n in order}
            except Exception as exc:  # reported below: a thread's failure fails the test
                errors.append(repr(exc))
        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        done = [g for g in got if g is not None]  # (a thread that failed: in errors)
        same = len(done) == 8 and all(g[n] is done[0][n] for g in done for n in names)
        print(json.dumps({"errors": errors, "same": same,
                          "names": bool(done) and sorted(done[0]) == sorted(names)}))
    """, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"errors": [], "same": True, "names": True}, result


def test_unknown_name_is_an_attribute_error():
    out = run_python("""
        import snl_numeric
        try:
            snl_numeric.expected_throw
        except AttributeError as exc:
            print(exc)
        try:
            from snl_numeric.plot import plot_nothing
        except ImportError as exc:
            print(type(exc).__name__)
    """)
    assert out.stdout.split("\n")[:2] == [
        "module 'snl_numeric' has no attribute 'expected_throw'", "ImportError"], out.stderr


def test_cli_imports_only_the_command_given():
    """``snl --help`` loads no question's module; ``snl boards`` none either; ``snl analyze``
    the analysis but not the policy, race, batch or simulation modules."""
    code = ("import json, sys\nfrom snl_numeric.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('snl_numeric.'))))")
    loaded = {}
    for argv in (["--help"], ["boards"], ["analyze", "milton-bradley"]):
        out = run_python(code, args=tuple(argv))
        assert out.returncode == 0, out.stderr[-3000:]
        loaded[argv[0]] = set(json.loads(out.stdout.strip().splitlines()[-1]))
    questions = {"snl_numeric.analysis", "snl_numeric.chain", "snl_numeric.simulate",
                 "snl_numeric.policy", "snl_numeric.race", "snl_numeric.batch",
                 "snl_numeric.design", "snl_numeric.maze", "snl_numeric.report"}
    assert not loaded["--help"] & questions and not loaded["boards"] & questions
    assert loaded["analyze"] & questions == {"snl_numeric.analysis", "snl_numeric.chain"}
