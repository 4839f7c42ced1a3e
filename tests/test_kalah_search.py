"""Search kernels against their twins; alpha-beta == minimax (value and move)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from jitgames.kalah import evaluation, rules, search
from tests.reference.kalah_strategies import positions
from tests.reference import kalah as ref

EVALS = st.sampled_from(["store", "sides", "linear", "store+win", "linear+win"])


def _weights(kind, m):
    if kind.startswith("linear"):
        w = evaluation.symmetric_weights(np.arange(1, m + 2) * 3 - 5)
        return evaluation.with_win_rule(w) if kind.endswith("+win") else w
    return evaluation.weights_for(kind, m)


def _scratch(depth, m):
    return np.zeros((depth + 1, m), dtype=np.int64), np.zeros((depth + 1, m), dtype=np.int64)


@pytest.mark.kernel
@given(positions(max_pits=4, max_stones=4), st.integers(0, 3), EVALS,
       st.sampled_from([0, 1]))
def test_minimax_and_alphabeta_match_reference(position, depth, kind, variant):
    board, player = position
    m = len(board) // 2 - 1
    w = _weights(kind, m)
    assert evaluation.evaluate(board, w) == ref.evaluate(board, w)
    scratch, keys = _scratch(depth, m)
    ours, theirs = np.zeros(1, np.int64), [0]
    value = search.minimax(board, player, depth, w, variant, scratch, ours)
    assert value == ref.minimax(board, player, depth, w, variant, None, theirs)
    assert ours[0] == theirs[0]
    for ordering in (False, True):
        ours, theirs = np.zeros(1, np.int64), [0]
        got = search.alphabeta(board, player, depth, -search.INF, search.INF, w, variant,
                               ordering, scratch, keys, ours)
        want = ref.alphabeta(board.copy(), player, depth, -ref.INF, ref.INF, w, variant,
                             ordering, None, None, theirs)
        assert got == want == value
        assert ours[0] == theirs[0]
    assert board.tolist() == position[0].tolist()


@pytest.mark.kernel
@given(positions(max_pits=5), EVALS)
def test_order_moves_matches_reference(position, kind):
    board, player = position
    m = len(board) // 2 - 1
    w = _weights(kind, m)
    moves, want = np.zeros(m, np.int64), np.zeros(m, np.int64)
    n = rules.legal_moves(board, player, moves)
    want[:] = moves
    keys, ref_keys = np.zeros(m, np.int64), np.zeros(m, np.int64)
    search.order_moves(board, player, moves, n, w, 0, keys)
    ref.order_moves(board, player, want, n, w, 0, ref_keys)
    assert moves[:n].tolist() == want[:n].tolist()
    assert keys[:n].tolist() == ref_keys[:n].tolist()


@pytest.mark.kernel
@given(positions(max_pits=4, max_stones=4), st.integers(1, 3), EVALS, st.booleans(),
       st.integers(0, 2**32))
def test_choose_move_matches_reference(position, depth, kind, randomize, seed):
    board, player = position
    m = len(board) // 2 - 1
    w = _weights(kind, m)
    key = np.uint64(ref.below.__globals__["stream_key"](seed, 0))
    want = ref.choose_move(board, player, depth, w, 0, 0, False, randomize, key, 5, None)
    for method in (search.MINIMAX, search.ALPHABETA):
        for ordering in (False, True):
            got = search.choose_move(board, player, depth, w, 0, method, ordering, randomize,
                                     key, 5, np.zeros(1, np.int64))
            assert tuple(int(x) for x in got) == tuple(int(x) for x in want)


@given(positions(min_pits=3, max_pits=6, max_stones=6), st.integers(1, 6), EVALS,
       st.booleans(), st.integers(-30, 30), st.integers(1, 30))
def test_alphabeta_equals_minimax_property(position, depth, kind, ordering, alpha, width):
    """Same value and same chosen move; fail-soft bounds hold for any window."""
    board, player = position
    m = len(board) // 2 - 1
    w = _weights(kind, m)
    scratch, keys = _scratch(depth, m)
    mm_nodes, ab_nodes = np.zeros(1, np.int64), np.zeros(1, np.int64)
    exact = search.minimax(board, player, depth, w, 0, scratch, mm_nodes)
    full = search.alphabeta(board, player, depth, -search.INF, search.INF, w, 0, ordering,
                            scratch, keys, ab_nodes)
    assert full == exact and ab_nodes[0] <= mm_nodes[0]
    beta = alpha + width
    got = search.alphabeta(board, player, depth, alpha, beta, w, 0, ordering, scratch, keys,
                           np.zeros(1, np.int64))
    if got <= alpha:
        assert exact <= got
    elif got >= beta:
        assert exact >= got
    else:
        assert exact == got
    by_minimax = search.choose_move(board, player, depth, w, 0, search.MINIMAX, False, False,
                                    np.uint64(0), 0, np.zeros(1, np.int64))
    by_alphabeta = search.choose_move(board, player, depth, w, 0, search.ALPHABETA, ordering,
                                      False, np.uint64(0), 0, np.zeros(1, np.int64))
    assert by_minimax == by_alphabeta


def test_best_move_public_api_and_node_savings():
    board = rules.new_board(6, 4)
    plain = search.best_move(board, depth=6, method="minimax")
    pruned = search.best_move(board, depth=6, method="alphabeta", ordering=False)
    ordered = search.best_move(board, depth=6, method="alphabeta", ordering=True)
    assert plain.move == pruned.move == ordered.move
    assert plain.value == pruned.value == ordered.value
    assert ordered.nodes < pruned.nodes < plain.nodes
    # At depth 1 pits 2..5 all put one stone in the store: a four-way tie.
    assert search.best_move(board, depth=1).move == 2
    seeded = {search.best_move(board, depth=1, seed=7, game=g).move for g in range(40)}
    assert seeded == {2, 3, 4, 5}
    assert search.best_move(board, depth=1, seed=7, game=3) == search.best_move(
        board, depth=1, seed=7, game=3)
    with pytest.raises(ValueError):
        search.best_move(board, depth=0)
    with pytest.raises(ValueError):
        search.best_move(board, evaluation="nonsense")
    with pytest.raises(ValueError):
        search.best_move(board, method="negascout")


def test_parse_evaluation():
    assert evaluation.parse_evaluation("store", 2).tolist() == [0, 0, 1, 0, 0, -1]
    assert evaluation.parse_evaluation("sides", 2).tolist() == [1, 1, 1, -1, -1, -1]
    assert evaluation.parse_evaluation("1,2,3", 2).tolist() == [1, 2, 3, -1, -2, -3]
    assert evaluation.parse_evaluation("1,2,3,4,5,6", 2).tolist() == [1, 2, 3, 4, 5, 6]
    # the weights are integers of the shared contract (docs/cli.md), like every other
    assert evaluation.parse_evaluation("1e1,-2^3,3_0", 2).tolist() == [10, -8, 30, -10, 8, -30]
    for bad in ("1,2", "x,y,z", "magic", "1.5,2,3", "10^9+1,1,1"):
        with pytest.raises(ValueError):
            evaluation.parse_evaluation(bad, 2)


def test_parse_player_reads_the_depth_as_a_contract_integer():
    from jitgames.kalah.tournament import parse_player

    weights, depth = parse_player("store@2^2", 2)
    assert depth == 4 and weights.tolist() == [0, 0, 1, 0, 0, -1]
    for bad in ("store", "store@x", "store@1.5", "store@15", "store@0"):
        with pytest.raises(ValueError):
            parse_player(bad, 2)


def _exact_margin(board, player):
    """South's final margin under perfect play (reference negamax, no pruning)."""
    m = len(board) // 2 - 1
    if ref.is_over(board):
        return ref.final_margin(board)
    pits = ref.pits_value(board, player, 0)
    return int(board[m]) - int(board[2 * m + 1]) + (pits if player == 0 else -pits)


def test_win_rule_prefers_a_sure_win_to_a_larger_store_lead():
    # South to move at depth 2. Pit 1 (index 1) leads by 4 in the stores at the
    # horizon but loses by 3 with best play; pit 2 (index 2) wins by 3 for sure.
    board = np.array([0, 1, 1, 10, 2, 2, 4, 5], dtype=np.int8)
    plain = search.best_move(board, depth=2, evaluation="store")
    tweaked = search.best_move(board, depth=2, evaluation="store+win")
    assert (plain.move, plain.value) == (1, 4)
    assert tweaked.move == 2
    assert tweaked.value == 1 * int(board.sum()) + 1   # max|w| x stones + 1
    after = {}
    for pit in (1, 2):
        child = board.copy()
        nxt, _ = ref.apply_move(child, 0, pit, 0)
        after[pit] = _exact_margin(child, nxt)
    assert after == {1: -3, 2: 3}


@pytest.mark.parametrize("m", [2, 3])
def test_a_won_score_is_a_sure_win(m):
    """The win rule's maximum score is given only to positions won by force, checked
    against the exact game value of the reference negamax."""
    rng = np.random.default_rng(m)
    won = 0
    for _ in range(300):
        board = np.zeros(2 * m + 2, dtype=np.int8)
        board[:m] = rng.integers(0, 3, m)
        board[m + 1:2 * m + 1] = rng.integers(0, 3, m)
        board[m], board[2 * m + 1] = rng.integers(0, 8, 2)
        player = int(rng.integers(0, 2))
        w = evaluation.weights_for("store+win", m)
        depth = int(rng.integers(1, 5))
        value = search.best_move(board, player, depth, w).value if not rules.is_over(board) \
            else int(evaluation.evaluate(board, w))
        score = int(evaluation.won_score(board, w))
        exact = _exact_margin(board.copy(), player)
        assert abs(value) <= score
        if value == score:
            won += 1
            assert exact > 0
        elif value == -score:
            won += 1
            assert exact < 0
        else:   # a finished game is always scored by the rule unless drawn
            assert not rules.is_over(board) or exact == 0
    assert won >= 30


def test_win_rule_parsing():
    assert evaluation.parse_evaluation("store+win", 2).tolist() == [0, 0, 1, 0, 0, -1, 1]
    assert evaluation.parse_evaluation("1,2,3+win", 2).tolist() == [1, 2, 3, -1, -2, -3, 1]
    assert evaluation.has_win_rule(evaluation.weights_for("sides+win", 2), 2)
    assert not evaluation.has_win_rule(evaluation.weights_for("sides", 2), 2)
    for bad in ("store+wins", "+win", "1,2+win"):
        with pytest.raises(ValueError):
            evaluation.parse_evaluation(bad, 2)
