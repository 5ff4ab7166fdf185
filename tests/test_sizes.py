"""``snl_numeric._core.sizes``: the size rules and ``snl_numeric.options``, which forces a
path or a form of the mass push for the calling thread only."""

import threading

import pytest

from snl_numeric import options
from snl_numeric._core.sizes import (
    BACKWARD_PUSH_DENSE_MAX,
    DENSE_PUSH_MAX,
    dense_push,
    ordinary,
)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"path": "numba"}, ValueError,
     r"^path must be one of 'auto', 'direct', 'structured', got 'numba'$"),
    ({"push": "blocked"}, ValueError,
     r"^push must be one of 'auto', 'dense', 'sparse', got 'blocked'$"),
    # no string: a TypeError, as every string choice of the package
    ({"push": 1}, TypeError, r"^push must be one of 'auto', 'dense', 'sparse', got 1$"),
    ({"path": b"direct"}, TypeError, r"^path must be one of .*, got b'direct'$"),
])
def test_bad_choices_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match), options(**kwargs):
        pass  # (refused on entering the block)


@pytest.mark.parametrize("value", ["x" * 200, 10**5000, ["auto"] * 50, b"direct", None],
                         ids=["long-str", "huge-int", "long-list", "bytes", "none"])
def test_bad_choices_worded_as_every_choice(value):
    # options checks its keywords with the package's one check of a choice: a long value
    # is shown cut short there, as everywhere (an int past 4,300 digits has no repr at all;
    # None is no bad value: the default)
    from snl_numeric._core.validation import choice

    for name, allowed in (("path", ("auto", "direct", "structured")),
                          ("push", ("auto", "dense", "sparse"))):
        if value is None:
            with options(**{name: value}):
                continue
        with pytest.raises((TypeError, ValueError)) as expected:
            choice(value, name, allowed)
        with pytest.raises(type(expected.value)) as got, options(**{name: value}):
            pass
        assert str(got.value) == str(expected.value)
        assert len(str(got.value)) < 160


def test_dense_push_by_size_and_forced():
    assert dense_push(DENSE_PUSH_MAX) and not dense_push(DENSE_PUSH_MAX + 1)
    assert dense_push(BACKWARD_PUSH_DENSE_MAX, BACKWARD_PUSH_DENSE_MAX)
    assert not dense_push(BACKWARD_PUSH_DENSE_MAX + 1, BACKWARD_PUSH_DENSE_MAX)
    with options(push="dense"):
        assert dense_push(10**6) and dense_push(10**6, BACKWARD_PUSH_DENSE_MAX)
    with options(push="sparse"):
        assert not dense_push(1) and not dense_push(1, BACKWARD_PUSH_DENSE_MAX)
    assert dense_push(1) and not dense_push(10**6)  # restored


def test_a_keyword_left_out_keeps_the_enclosing_choice():
    with options(path="structured"):
        with options(push="sparse"):
            assert not ordinary(11, 6) and not dense_push(1)
        assert not ordinary(11, 6) and dense_push(1)
        with options(path="auto"):
            assert ordinary(11, 6)
    assert ordinary(11, 6)
    with pytest.raises(KeyError), options(push="sparse"):  # restored on an exception too
        raise KeyError
    assert dense_push(1)


def test_choices_hold_for_the_calling_thread_only():
    seen = []
    with options(path="structured", push="sparse"):
        worker = threading.Thread(target=lambda: seen.append((ordinary(11, 6), dense_push(1))))
        worker.start()
        worker.join()
        assert (ordinary(11, 6), dense_push(1)) == (False, False)
    assert seen == [(True, True)]  # a thread started inside the block has the defaults
