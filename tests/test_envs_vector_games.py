"""The native vector environments of ``jitgames/Mastermind-v0`` and
``jitgames/Solitaire-v0``: kernels against their reference twins, and each vector
environment against Gymnasium's ``SyncVectorEnv`` of the single environments (same
seeds, Hypothesis-chosen actions)."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

import jitgames.envs  # noqa: E402,F401  (registers the environments)
from jitgames.envs import mastermind_batch as mb  # noqa: E402
from jitgames.envs import solitaire_batch as sb  # noqa: E402
from jitgames.errors import InputError  # noqa: E402
from jitgames.mastermind.codes import code_space  # noqa: E402
from tests.reference import envs_batch as ref  # noqa: E402
from tests.test_envs_vector import compare  # noqa: E402


@st.composite
def codebreaks(draw):
    pegs, colours = draw(st.integers(1, 4)), draw(st.integers(2, 5))
    space = code_space(pegs, colours, draw(st.booleans()) or colours < pegs)
    count, rows = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    games = mb.new_codebreaks(count, space.size, pegs, rows)
    code = st.integers(0, space.size - 1)
    for i in range(count):
        games.secrets[i] = draw(code)
        games.played[i] = draw(st.integers(0, rows - 1))
        for r in range(games.played[i]):
            games.guesses[i, r] = draw(code)
            games.answers[i, r] = space.feedback(int(games.guesses[i, r]), int(games.secrets[i]))
        games.consistent[i] = draw(st.lists(st.integers(0, 1), min_size=space.size,
                                            max_size=space.size))
    actions = np.array(draw(st.lists(code, min_size=count, max_size=count)), np.int64)
    active = np.array(draw(st.lists(st.booleans(), min_size=count, max_size=count)))
    return mb.Codes(space.digits, space.counts, pegs, space.solved), games, actions, active


@pytest.mark.kernel
@given(codebreaks())
def test_guess_codes_matches_reference(case):
    codes, games, actions, active = case
    theirs = mb.Codebreaks(*(a.copy() for a in games))
    mb.guess_codes(codes, games, actions, active)
    ref.guess_codes(codes, theirs, actions, active)
    for name, a, b in zip(games._fields, games, theirs):
        assert a.tolist() == b.tolist(), name


def run_both(env_id, options, num_envs, seed, actions_of):
    ours = gymnasium.make_vec(env_id, num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)
    theirs = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync",
                                **options)
    first = ours.reset(seed=seed)
    compare(first, theirs.reset(seed=seed))
    observation, steps = first[0], 0
    for actions in actions_of(observation):
        stepped = ours.step(actions)
        compare(stepped, theirs.step(actions))
        observation, steps = stepped[0], steps + 1
        actions_of.observation = observation
    return steps


@settings(max_examples=10)
@given(st.sampled_from([dict(), dict(pegs=3, colours=4, max_guesses=4),
                        dict(pegs=2, colours=3, repeats=False, max_guesses=3)]),
       st.integers(1, 4), st.integers(0, 2**31), st.data())
def test_mastermind_vector_env_equals_single_envs(options, num_envs, seed, data):
    size = code_space(options.get("pegs", 4), options.get("colours", 6),
                      options.get("repeats", True)).size
    steps = data.draw(st.integers(1, 30))
    rows = [np.array(data.draw(st.lists(st.integers(0, size - 1), min_size=num_envs,
                                        max_size=num_envs))) for _ in range(steps)]
    assert run_both("jitgames/Mastermind-v0", options, num_envs, seed, lambda _: rows) == steps


def test_mastermind_vector_env_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make_vec("jitgames/Mastermind-v0", num_envs=3,
                                 vectorization_mode="vector_entry_point")
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=0, options={"secret": "1122"})
    assert env.observation_space.contains(obs)
    # codes 0, 7, 20 are 1111, 1122 and 1143 (base-6 digits plus one)
    obs, reward, terminated, truncated, info = env.step(np.array([0, 7, 20]))
    assert env.observation_space.contains(obs) and reward.tolist() == [-1.0] * 3
    assert obs["feedback"][:, 0].tolist() == [[2, 0], [4, 0], [2, 0]]
    assert terminated.tolist() == [False, True, False]
    assert info["secret"][1] == "1122" and info["_secret"].tolist() == [False, True, False]
    with pytest.raises(InputError):
        env.step(np.array([0, 0, 1296]))


# ----------------------------------------------------------------- solitaire

@pytest.mark.kernel
@settings(max_examples=min(20, settings.default.max_examples))
@given(st.integers(0, 10**6), st.integers(1, 3), st.booleans(), st.data())
def test_play_moves_matches_reference(first, count, show, data):
    """Deals played some random legal moves in, then one step of the batch: the moves,
    rewards, ends and observations equal the twin's (the twin's rules rebuild the
    position from its cards, so positions are compared through what they show)."""
    from jitgames.envs import solitaire_batch as sb
    from jitgames.solitaire import deals
    from jitgames.solitaire import rules

    decks = deals(3, first, first + count)
    games = sb.new_tableaus(count, rules.POSITION_SIZE)
    for i in range(count):
        games.positions[i] = rules.new_position(decks[i])
        n = rules.legal_moves(games.positions[i], games.moves[i], 0)
        for _ in range(data.draw(st.integers(0, 6))):
            if n == 0:
                break
            rules.apply_move(games.positions[i], games.moves[i, data.draw(st.integers(0, n - 1))])
            n = rules.legal_moves(games.positions[i], games.moves[i], 0)
        games.count[i] = n
    theirs = sb.Tableaus(*(a.copy() for a in games))
    actions = np.array(data.draw(st.lists(st.integers(-1, 17), min_size=count,
                                          max_size=count)), np.int64)
    active = np.array(data.draw(st.lists(st.booleans(), min_size=count, max_size=count)))
    outs = [np.zeros(count), np.zeros(count, np.bool_), np.zeros(count, np.bool_)]
    ref_outs = [a.copy() for a in outs]
    sb.play_moves(games, actions, active, show, *outs)
    ref.play_moves(theirs, actions, active, show, *ref_outs)
    assert [a.tolist() for a in outs] == [a.tolist() for a in ref_outs]
    for name in ("moves", "count", "status", "piles", "move_rows", "mask"):
        assert getattr(games, name).tolist() == getattr(theirs, name).tolist(), name
    assert games.positions[:, rules.SCORE].tolist() == theirs.positions[:, rules.SCORE].tolist()


@settings(max_examples=4)
@given(st.sampled_from([dict(), dict(solve=False, show_face_down=True),
                        dict(seed=0, solve=False)]),
       st.integers(1, 3), st.integers(0, 2**31), st.data())
def test_solitaire_vector_env_equals_single_envs(options, num_envs, seed, data):
    steps = data.draw(st.integers(1, 25))
    choices = [data.draw(st.lists(st.floats(0, 0.999), min_size=num_envs, max_size=num_envs))
               for _ in range(steps)]

    def actions_of(observation):
        for row in choices:
            mask = actions_of.observation["action_mask"]
            yield np.array([int(u / 0.95 * mask[i].sum()) if u < 0.95 and mask[i].any()
                            else int(u * 100) % 18 for i, u in enumerate(row)])
    actions_of.observation = None

    def start(observation):
        actions_of.observation = observation
        return actions_of(observation)
    assert run_both("jitgames/Solitaire-v0", options, num_envs, seed, start) == steps


def test_solitaire_vector_env_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make_vec("jitgames/Solitaire-v0", num_envs=2,
                                 vectorization_mode="vector_entry_point", seed=0)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(options={"index": 24})
    assert env.observation_space.contains(obs)
    assert info["optimal_score"].tolist() == [52, 52]  # deal 24 of seed 0 (docs example)
    with pytest.raises(InputError):
        gymnasium.make_vec("jitgames/Solitaire-v0", num_envs=2,
                           vectorization_mode="vector_entry_point", reachable=True)


# ------------------------------------------------------- whole random games in one kernel call

U64 = st.integers(0, 2**64 - 1)


@pytest.mark.kernel
@settings(max_examples=min(20, settings.default.max_examples))
@given(st.integers(1, 3), st.integers(2, 4), st.booleans(), st.integers(1, 6), U64)
def test_mastermind_random_games_match_reference(pegs, colours, repeats, max_guesses, seed):
    space = code_space(pegs, colours, repeats or colours < pegs)
    guesses, solved = np.zeros(4, np.int64), np.zeros(4, np.bool_)
    ref_guesses, ref_solved = np.zeros(4, np.int64), np.zeros(4, np.bool_)
    mb.random_games(space.digits, space.counts, pegs, max_guesses, np.uint64(seed), guesses,
                    solved)
    ref.mastermind_random_games(space.digits, space.counts, pegs, max_guesses, seed,
                                ref_guesses, ref_solved)
    assert guesses.tolist() == ref_guesses.tolist()
    assert solved.tolist() == ref_solved.tolist()
    assert ((guesses >= 1) & (guesses <= max_guesses)).all()
    assert (solved | (guesses == max_guesses)).all()  # stopped only by the secret or the limit


@pytest.mark.kernel
@settings(max_examples=min(10, settings.default.max_examples))
@given(U64)
def test_solitaire_random_games_match_reference(seed):
    scores, plies = np.zeros(3, np.int64), np.zeros(3, np.int64)
    ref_scores, ref_plies = np.zeros(3, np.int64), np.zeros(3, np.int64)
    sb.random_games(np.uint64(seed), scores, plies)
    ref.solitaire_random_games(seed, ref_scores, ref_plies)
    assert scores.tolist() == ref_scores.tolist()
    assert plies.tolist() == ref_plies.tolist()


# ------------------------------------------------------------- uniform legal actions of masks

@pytest.mark.kernel
@given(st.integers(1, 6), st.integers(1, 20), U64, st.data())
def test_uniform_legal_matches_reference(actions, rows, key, data):
    from jitgames.envs.sampling import uniform_legal

    mask = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=actions,
                                                max_size=actions),
                                       min_size=rows, max_size=rows)), np.int8)
    ours, theirs = np.zeros(rows, np.int64), np.zeros(rows, np.int64)
    uniform_legal(mask, np.uint64(key), ours)
    ref.uniform_legal(mask, key, theirs)
    assert ours.tolist() == theirs.tolist()
    assert all(mask[i, a] or not mask[i].any() for i, a in enumerate(ours))


def _assert_uniform_legal_on_one_and_two_threads(mask, key):
    """``uniform_legal`` of ``mask`` under ``key`` gives the twin's actions on one and
    on two threads."""
    from jitgames._jit import threads
    from jitgames.envs.sampling import uniform_legal

    theirs = np.zeros(mask.shape[0], np.int64)
    ref.uniform_legal(mask, key, theirs)
    for count in (1, 2):
        ours = np.zeros(mask.shape[0], np.int64)
        with threads(count):
            uniform_legal(mask, np.uint64(key), ours)
        assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(st.integers(1, 6), st.integers(1, 700), U64, st.integers(0, 2**32 - 1))
def test_uniform_legal_matches_reference_over_many_blocks(actions, rows, key, seed):
    """Masks of up to 700 rows (several blocks of rows for the threads), on one and on
    two threads: the twin's actions either way."""
    mask = np.random.default_rng(seed).integers(0, 2, (rows, actions)).astype(np.int8)
    _assert_uniform_legal_on_one_and_two_threads(mask, key)


@pytest.mark.kernel
@pytest.mark.parametrize("seed", [0, 1])
def test_uniform_legal_of_large_masks_matches_reference_on_the_threads(seed):
    """Masks of ``PARALLEL_ROWS`` rows and more go to the threads in blocks: the twin's
    actions on one and on two threads."""
    from jitgames.envs.sampling import PARALLEL_ROWS

    rows = PARALLEL_ROWS + 300 * seed + 7
    mask = np.random.default_rng(seed).integers(0, 2, (rows, 6)).astype(np.int8)
    key = 2**64 - 1 - seed
    _assert_uniform_legal_on_one_and_two_threads(mask, key)


def test_sample_legal_writes_into_out():
    """``out=`` is filled and returned: the actions of a call without it, from the same
    generator state; a wrong ``out`` is refused."""
    from jitgames.envs.sampling import sample_legal

    mask = np.random.default_rng(5).integers(0, 2, (40, 6)).astype(np.int8)
    out = np.full(40, -1, np.int64)
    assert sample_legal(mask, np.random.default_rng(2), out=out) is out
    assert out.tolist() == sample_legal(mask, np.random.default_rng(2)).tolist()
    # a non-contiguous int8 mask is converted, and gives the same actions
    wide = np.zeros((40, 12), np.int8)
    wide[:, ::2] = mask
    assert sample_legal(wide[:, ::2], np.random.default_rng(2)).tolist() == out.tolist()
    for bad in (np.zeros(40, np.int32), np.zeros(39, np.int64), np.zeros((40, 1), np.int64),
                [0] * 40):
        with pytest.raises(InputError):
            sample_legal(mask, np.random.default_rng(2), out=bad)


def test_sample_legal_is_uniform_and_checks_its_input():
    from jitgames.envs.sampling import sample_legal

    mask = np.tile(np.array([1, 0, 1, 1, 0, 0], np.int8), (30_000, 1))
    counts = np.bincount(sample_legal(mask, np.random.default_rng(0)), minlength=6)
    assert counts[[1, 4, 5]].tolist() == [0, 0, 0]
    assert abs(counts[[0, 2, 3]] - 10_000).max() < 500  # about 5 standard deviations
    both = sample_legal(mask.astype(bool), np.random.default_rng(3))
    assert both.tolist() == sample_legal(mask, np.random.default_rng(3)).tolist()
    with pytest.raises(InputError):
        sample_legal(np.ones(6), np.random.default_rng(0))
