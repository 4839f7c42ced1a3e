"""Codes, feedback and the response matrix against the reference twins."""
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.mastermind import codes
from jitgames.mastermind.codes import (MemoryLimitError, code_space, decode_feedback,
                                       feedback, response_matrix)
from tests.reference import mastermind as ref


@st.composite
def two_codes(draw, max_pegs=6, max_colours=8):
    pegs = draw(st.integers(1, max_pegs))
    colours = draw(st.integers(1, max_colours))
    code = st.lists(st.integers(0, colours - 1), min_size=pegs, max_size=pegs)
    return pegs, colours, np.array(draw(code), np.int8), np.array(draw(code), np.int8)


def _counts(digits, colours):
    return np.bincount(digits, minlength=colours).astype(np.int8)


@pytest.mark.kernel
@given(two_codes())
def test_feedback_kernel_matches_reference_and_is_symmetric(case):
    pegs, colours, a, b = case
    ca, cb = _counts(a, colours), _counts(b, colours)
    ours = codes.feedback_digits(a, ca, b, cb, pegs)
    assert ours == ref.feedback_digits(a, ca, b, cb, pegs)
    assert ours == codes.feedback_digits(b, cb, a, ca, pegs)


@pytest.mark.kernel
@given(two_codes(max_pegs=codes.PACKED_LIMIT, max_colours=codes.PACKED_LIMIT))
def test_packed_feedback_matches_reference(case):
    """The word form of feedback (pegs and colours up to 8, so every byte is used at
    the limit) against the reference twins, exactly, both ways round."""
    pegs, colours, a, b = case
    ca, cb = _counts(a, colours), _counts(b, colours)
    # as uint64, the words' type inside the search (Python gets them back as ints)
    pa, pb = (tuple(np.uint64(w) for w in codes.pack_code(a, ca)),
              tuple(np.uint64(w) for w in codes.pack_code(b, cb)))
    assert tuple(int(w) for w in pa) == ref.pack_code(a, ca)
    assert tuple(int(w) for w in pb) == ref.pack_code(b, cb)
    expected = ref.feedback_digits(a, ca, b, cb, pegs)
    assert codes.feedback_packed(pa[0], pa[1], pb[0], pb[1], pegs) == expected
    assert codes.feedback_packed(pb[0], pb[1], pa[0], pa[1], pegs) == expected


@pytest.mark.kernel
@pytest.mark.parametrize("pegs,colours", [(4, 3), (8, 2), (2, 8), (3, 5)])
def test_packed_feedback_equals_the_response_matrix(pegs, colours):
    """Every pair of codes of small games, against the response matrix."""
    space = code_space(pegs, colours)
    matrix = response_matrix(space)
    words = [tuple(np.uint64(w) for w in codes.pack_code(space.digits[g], space.counts[g]))
             for g in range(space.size)]
    for g, (pg, cg) in enumerate(words):
        row = [codes.feedback_packed(pg, cg, ps, cs, pegs) for ps, cs in words]
        assert row == matrix[g].tolist()


@pytest.mark.kernel
@given(two_codes(), st.randoms(use_true_random=False))
def test_feedback_is_invariant_under_colour_and_position_permutations(case, rnd):
    pegs, colours, a, b = case
    colour_map = np.array(rnd.sample(range(colours), colours), np.int8)
    positions = rnd.sample(range(pegs), pegs)
    pa, pb = colour_map[a][positions], colour_map[b][positions]
    before = codes.feedback_digits(a, _counts(a, colours), b, _counts(b, colours), pegs)
    after = codes.feedback_digits(pa, _counts(pa, colours), pb, _counts(pb, colours), pegs)
    assert before == after


@pytest.mark.kernel
@pytest.mark.parametrize("pegs,colours,repeats", [(2, 3, True), (3, 3, True), (3, 4, False),
                                                   (3, 7, True)])  # 343 codes: 2 row blocks
def test_tables_and_matrix_match_reference(pegs, colours, repeats):
    space = code_space(pegs, colours, repeats)
    digits = np.zeros_like(space.digits)
    counts = np.zeros_like(space.counts)
    ref.code_tables_kernel(space.values, pegs, colours, digits, counts)
    assert (digits == space.digits).all() and (counts == space.counts).all()
    expected = np.zeros((space.size, space.size), np.uint8)
    ref.response_matrix_kernel(space.digits, space.counts, pegs, expected, 0)
    assert (response_matrix(space) == expected).all()
    block = np.zeros((2, space.size), np.uint8)  # one block of rows, as the threads fill
    codes.response_matrix_kernel(space.digits, space.counts, pegs, block, 3)
    assert (block == expected[3:5]).all()


def test_issue_example_and_written_codes():
    assert feedback("1123", "4221") == (1, 1)
    space = code_space(4, 6)
    assert space.size == 1296 and space.format(0) == "1111" and space.format(1295) == "6666"
    g, s = space.parse("1123"), space.parse("4 2 2 1")
    assert decode_feedback(space.feedback(g, s), 4) == (1, 1)
    assert space.parse(space.format(777)) == 777


def test_no_repeats_space_lists_codes_with_distinct_digits_in_order():
    space = code_space(3, 4, repeats=False)
    written = [space.format(i) for i in range(space.size)]
    assert written == ["".join(p) for p in itertools.permutations("1234", 3)]
    with pytest.raises(ValueError, match="repeated"):
        space.parse("112")


@pytest.mark.parametrize("text,reason", [("112", "4 digits"), ("11272", "4 digits"),
                                         ("1172", "from 1 to 6"), ("11a2", "from 1 to 6")])
def test_parse_refuses_with_reason(text, reason):
    with pytest.raises(ValueError, match=reason):
        code_space(4, 6).parse(text)


def test_memory_refusals_give_bytes_needed():
    with pytest.raises(MemoryLimitError, match=r"needs 1,679,616 bytes"):
        response_matrix(code_space(4, 6), max_bytes=1000)
    with pytest.raises(MemoryLimitError, match="bytes"):
        code_space(12, 9)
    with pytest.raises(ValueError, match="no code"):
        code_space(4, 3, repeats=False)


@pytest.mark.kernel
@pytest.mark.parametrize("pegs, colours", [(4, 6), (3, 8), (8, 2), (2, 3)])
def test_every_code_packed_equals_the_twin(pegs, colours):
    from jitgames.mastermind.codes import packed_codes
    space = code_space(pegs, colours)
    words = packed_codes(space)
    assert words.dtype == np.uint64 and words.shape == (space.size, 2)
    for i in range(space.size):
        counts = [list(space.digits[i]).count(c) for c in range(colours)]
        assert tuple(int(w) for w in words[i]) == ref.pack_code(list(space.digits[i]), counts)
