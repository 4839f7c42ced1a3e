"""N queens by symmetry class: kernels vs twins, and agreement with Burnside."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.puzzles import queens, queens_classes as qc
from tests.reference import puzzles_queens as ref_queens
from tests.reference import puzzles_queens_classes as ref


@pytest.mark.parametrize("n", range(5, 13))
def test_class_search_agrees_with_burnside_and_plain_count(n):
    census = queens.queens_census(n)
    assert census.count == queens.count_queens(n)
    assert census.unique == queens.unique_by_burnside(n, census.count)


@pytest.mark.parametrize("n", range(1, 9))
def test_census_matches_brute_force(n):
    census = queens.queens_census(n)
    assert census.count == len(ref_queens.all_solutions(n))
    assert census.unique == ref_queens.unique_count(n)


def test_batches_and_threads_do_not_change_the_counts():
    one_batch = qc.count_classes(12)
    with threads(1):
        *_, last = qc.iter_class_counts(12, batches=7)
    assert last[2] == one_batch
    with threads(2):
        assert qc.count_classes(12) == one_batch


@given(st.integers(5, 11), st.integers(1, 12))
def test_chunks_sum_to_the_whole_census(n, chunks):
    parts = [qc.count_classes_chunk(n, i, chunks) for i in range(chunks)]
    assert tuple(map(sum, zip(*parts))) == qc.count_classes(n)


def test_bad_input():
    with pytest.raises(ValueError):
        qc.count_classes(4)
    with pytest.raises(ValueError):
        qc.count_classes_chunk(8, 3, 3)


@pytest.mark.kernel
@given(st.integers(5, 9), st.integers(0, 2))
def test_task_kernel_matches_reference(n, split):
    params, boards = qc._tasks(n, split)
    order = qc._stride_order(len(params))
    ours = np.zeros((len(params), 3), np.int64)
    theirs = np.zeros((len(params), 3), np.int64)
    done = np.zeros(len(params), np.bool_)
    qc._run_tasks(n, params, boards, order, ours, done, np.zeros(1, np.int64))
    assert done[order].all()
    ref._run_tasks(n, params, boards, order, theirs)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(st.integers(5, 9), st.data())
def test_classify_gives_the_class_size_of_canonical_boards(n, data):
    # Boards that are the smallest of their images are the ones the search keeps;
    # classify must give their class size. (That it rejects the others is checked
    # by the per-task counts above, which would grow otherwise.)
    params, boards = qc._tasks(n, 0)
    t = data.draw(st.integers(0, len(params) - 1))
    p = [int(x) for x in params[t]]
    if p[0]:  # corner tasks count 8-member classes without classify
        return
    prefix = [int(boards[t][r]).bit_length() - 1 for r in range(p[6])]
    for sol in ref._solutions_from(n, prefix):
        images = ref._images(sol)
        if sol != min(images):
            continue
        board = np.array([1 << c for c in sol], np.int64)
        size = qc.classify(n, board, p[1], p[2], p[5])
        assert size == len(set(images)) == ref.classify(n, board, p[1], p[2], p[5])


def test_cli_threads_option(capsys):
    from jitgames.puzzles.__main__ import main
    assert main(["queens", "9", "--threads", "1", "--json"]) == 0
    assert '"count": 352' in capsys.readouterr().out
    assert main(["queens", "9", "--threads", "99"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
