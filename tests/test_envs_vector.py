"""The native vector environment of ``jitgames/Kalah-v0`` and its batched kernels.

- The kernels (:mod:`jitgames.envs.kalah_batch`) equal their reference twin
  (:mod:`tests.reference.envs_batch`) on generated batches: mid-game boards, games
  over, illegal actions, episodes to restart, every opponent and phase.
- The vector environment equals ``N`` single environments stepped one by one by
  Gymnasium's own ``SyncVectorEnv`` (same seeds; observations, rewards, ends and infos),
  under Hypothesis-chosen actions, illegal ones included.
- Results do not depend on the number of threads.
"""
import warnings
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

import jitgames.envs  # noqa: E402,F401  (registers the environments)
from jitgames._jit import threads  # noqa: E402
from jitgames.envs import kalah_batch as kb  # noqa: E402
from jitgames.envs.sampling import sample_legal, uniform_legal  # noqa: E402
from jitgames.envs.vector import KalahVectorEnv  # noqa: E402
from jitgames.errors import InputError  # noqa: E402
from jitgames.kalah.evaluation import weights_for  # noqa: E402
from tests.reference import envs_batch as ref  # noqa: E402

U64 = st.integers(0, 2**64 - 1)


@st.composite
def batches(draw):
    """A batch state of 1..5 games of Kalah(m, n) in any position, and the step's inputs
    (``m = 6`` too: the random step makes Kalah(6, n)'s moves on two words, either side)."""
    m = draw(st.sampled_from([1, 2, 3, 4, 6]))
    stones = draw(st.integers(1, 3))
    count = draw(st.integers(1, 5))
    boards = np.zeros((count, 2 * m + 2), np.int8)
    for i in range(count):
        pits = draw(st.lists(st.integers(0, 5), min_size=2 * m, max_size=2 * m))
        # some games with an empty side (over), most mid-game
        if draw(st.integers(0, 5)) == 0:
            pits[:m] = [0] * m
        boards[i, :m], boards[i, m + 1:2 * m + 1] = pits[:m], pits[m:]
        boards[i, m], boards[i, 2 * m + 1] = draw(st.integers(0, 9)), draw(st.integers(0, 9))
    games = kb.Games(
        boards, np.array(draw(st.lists(st.integers(0, 1), min_size=count, max_size=count)),
                         np.int8),
        np.array(draw(st.lists(st.booleans(), min_size=count, max_size=count))),
        np.array(draw(st.lists(U64, min_size=count, max_size=count)), np.uint64),
        np.array(draw(st.lists(st.integers(-1, 5), min_size=count, max_size=count)), np.int64),
        np.array(draw(st.lists(U64, min_size=count, max_size=count)), np.uint64),
        np.array(draw(st.lists(st.integers(0, 9), min_size=count, max_size=count)), np.int64),
        np.zeros((count, m), np.int64))
    opponent = draw(st.sampled_from([kb.RANDOM, kb.SEARCH, kb.PERFECT]))
    rules = kb.Rules(stones, draw(st.integers(0, 1)), draw(st.integers(0, 1)), opponent,
                     draw(st.integers(1, 3)), weights_for("store", m), draw(st.booleans()))
    actions = np.array(draw(st.lists(st.integers(-1, m), min_size=count, max_size=count)),
                       np.int64)
    which = np.array(draw(st.lists(st.booleans(), min_size=count, max_size=count)))
    phases = draw(st.sampled_from([kb.ACT | kb.FINISH, kb.RESTART | kb.FINISH, kb.ACT,
                                   kb.RESTART, kb.FINISH]))
    return games, rules, actions, which, phases


def copy_games(games):
    return kb.Games(*(a.copy() for a in games))


def blank_out(count, m):
    out = kb.new_step_out(count, m)
    for a in out:
        a[...] = 0
    return out


def assert_same(ours, theirs):
    for name, a, b in zip(ours._fields, ours, theirs):
        if name != "moves":  # scratch
            assert a.tolist() == b.tolist(), name


@pytest.mark.kernel
@given(batches())
def test_advance_matches_reference(batch):
    games, rules, actions, which, phases = batch
    count, m = games.moves.shape
    theirs = copy_games(games)
    out, ref_out = blank_out(count, m), blank_out(count, m)
    kb.advance(games, actions, which, phases, rules, out)
    ref.advance(theirs, actions, which, phases, rules, ref_out)
    assert_same(games, theirs)
    assert_same(out, ref_out)


@pytest.mark.kernel
@given(batches(), st.booleans(), U64)
def test_random_step_matches_reference(batch, sample, sample_key):
    """The plain-array step of the vector environment (random opponent) equals the twin,
    and so ``advance``'s ``ACT | FINISH`` against the random opponent and the one-thread
    ``random_step_serial`` (a batch of one block: the step's serial branch; larger ones
    in ``tests/test_envs_step_pool.py``); its counts are those of the flags. With
    ``sample`` the agent's actions drawn in the step equal the twin's, and ``uniform_legal``'s from
    the mask of the boards."""
    games, rules, actions, _, _ = batch
    count, m = games.moves.shape
    theirs, via_advance, serial = copy_games(games), copy_games(games), copy_games(games)
    out, ref_out, advance_out = blank_out(count, m), blank_out(count, m), blank_out(count, m)
    serial_out = blank_out(count, m)
    before = games.boards.copy()
    key = np.uint64(sample_key)
    drawn = {}

    def call(step, g, o):
        taken = actions.copy()
        if step is kb.random_step:  # with a step pool's control array, no worker running
            step = partial(step, kb.new_pool_control(count, m, 1))
        counts = step(g.boards, g.to_move, g.done, g.base, g.episode, g.key, g.counter, taken,
                      rules.stones, rules.variant, rules.agent, rules.outcome, o.seen, o.mask,
                      o.reward, o.terminated, o.margin, o.ended, o.illegal, o.settled, sample,
                      key)
        drawn[step.func if isinstance(step, partial) else step] = taken
        return counts[:2]

    counts = call(kb.random_step, games, out)
    assert counts == call(ref.random_step, theirs, ref_out)
    assert drawn[kb.random_step].tolist() == drawn[ref.random_step].tolist()
    taken = drawn[kb.random_step]
    if sample:
        # the mask a step returns for these boards, and sample_legal's draw from it
        own = slice(0, m) if rules.agent == 0 else slice(m + 1, 2 * m + 1)
        over = (before[:, :m] > 0).sum(1) == 0
        over |= (before[:, m + 1:2 * m + 1] > 0).sum(1) == 0
        mask = ((before[:, own] > 0) & ~over[:, None]).astype(np.int8)
        expected = np.zeros(count, np.int64)
        uniform_legal(mask, key, expected)
        assert taken.tolist() == expected.tolist()
    else:
        assert taken.tolist() == actions.tolist()
    assert counts == (out.ended.sum(), out.illegal.sum())
    assert_same(games, theirs)
    assert_same(out, ref_out)
    kb.advance(via_advance, taken, np.ones(count, np.bool_), kb.ACT | kb.FINISH,
               rules._replace(opponent=kb.RANDOM), advance_out)
    assert_same(games, via_advance)
    assert_same(out, advance_out)
    assert call(kb.random_step_serial, serial, serial_out) == counts
    assert drawn[kb.random_step_serial].tolist() == taken.tolist()
    assert_same(games, serial)
    assert_same(out, serial_out)


@pytest.mark.kernel
@given(batches(), st.data())
def test_apply_replies_matches_reference(batch, data):
    games, rules, _, _, _ = batch
    count, m = games.moves.shape
    pits = []
    for i in range(count):  # a legal pit of the side to move, or none
        side = range(m) if games.to_move[i] == 0 else range(m + 1, 2 * m + 1)
        legal = [p for p in side if games.boards[i, p] > 0]
        pits.append(data.draw(st.sampled_from(legal + [-1])))
    pits = np.array(pits, np.int64)
    theirs = copy_games(games)
    kb.apply_replies(games, pits, rules)
    ref.apply_replies(theirs, pits, rules)
    assert_same(games, theirs)


@pytest.mark.kernel
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 1), U64)
def test_random_games_match_reference(pits, stones, variant, seed):
    margins, plies = np.zeros(3, np.int64), np.zeros(3, np.int64)
    ref_margins, ref_plies = np.zeros(3, np.int64), np.zeros(3, np.int64)
    kb.random_games(pits, stones, variant, np.uint64(seed), margins, plies)
    ref.random_games(pits, stones, variant, seed, ref_margins, ref_plies)
    assert margins.tolist() == ref_margins.tolist()
    assert plies.tolist() == ref_plies.tolist()
    assert (plies > 0).all()


# ----------------------------------------------------------------- the vector environment

CASES = [
    dict(opponent="random"),
    dict(opponent="random", pits=2, stones=1, side="north", reward="outcome"),
    dict(opponent="alphabeta", depth=2, pits=4, stones=3, variant="standard", side="north"),
    dict(opponent="perfect", pits=3, stones=2, side="north"),
]


def play_both(options, num_envs, seed, choices):
    """Step the vector environment and Gymnasium's SyncVectorEnv of single environments
    with the same actions (``choices``: per step and sub-environment, a number in
    [0, 1): below 0.9 the matching legal action, else the raw pit ``int(10*u) - 9 + ...``
    which may be illegal); return the steps compared."""
    ours = gymnasium.make_vec("jitgames/Kalah-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)
    theirs = gymnasium.make_vec("jitgames/Kalah-v0", num_envs=num_envs,
                                vectorization_mode="sync", **options)
    m = options.get("pits", 6)
    obs, info = ours.reset(seed=seed)
    obs2, info2 = theirs.reset(seed=seed)
    compare((obs, info), (obs2, info2))
    for row in choices:
        actions = []
        for i, u in enumerate(row):
            legal = np.flatnonzero(obs["action_mask"][i])
            if u < 0.9 and len(legal):
                actions.append(int(legal[int(u / 0.9 * len(legal))]))
            else:
                actions.append(int(u * 100) % m)  # anything, often illegal
        actions = np.array(actions)
        obs, reward, terminated, truncated, info = ours.step(actions)
        obs2, reward2, terminated2, truncated2, info2 = theirs.step(actions)
        compare((obs, reward, terminated, truncated, info),
                (obs2, reward2, terminated2, truncated2, info2))
    ours.close()
    theirs.close()
    return len(choices)


def compare(ours, theirs):
    for a, b in zip(ours, theirs):
        if isinstance(a, dict):
            assert sorted(a) == sorted(b)
            compare([a[k] for k in sorted(a)], [b[k] for k in sorted(b)])
        else:
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(map(str, o.values())))
@settings(max_examples=8)
@given(seed=st.integers(0, 2**31), data=st.data())
def test_vector_env_equals_single_envs_stepped_one_by_one(options, seed, data):
    num_envs = data.draw(st.integers(1, 4))
    steps = data.draw(st.integers(1, 25))
    rows = data.draw(st.lists(st.lists(st.floats(0, 0.999), min_size=num_envs,
                                       max_size=num_envs), min_size=steps, max_size=steps))
    assert play_both(options, num_envs, seed, rows) == steps


@pytest.mark.parametrize("options, steps", [(dict(pits=3, stones=2), 300),
                                            (dict(variant="standard"), 120)])
def test_long_random_run_equals_single_envs(options, steps):
    """Many episodes (autoresets) in 16 games against the random opponent (Kalah(6, 4):
    the random step's copy for six pits)."""
    rng = np.random.default_rng(5)
    assert play_both(dict(options, opponent="random"), 16, 7,
                     rng.random((steps, 16)).tolist()) == steps


def trajectory(num_threads, num_envs=64, steps=60, opponent="alphabeta", pits=4):
    with threads(num_threads):
        env = KalahVectorEnv(num_envs, pits=pits, stones=3, opponent=opponent, depth=2)
        obs, _ = env.reset(seed=3)
        rng = np.random.default_rng(0)
        seen = [obs["observation"].copy()]
        for _ in range(steps):
            u = rng.random(obs["action_mask"].shape) * obs["action_mask"]
            obs, reward, terminated, _, _ = env.step(np.argmax(u, axis=1))
            seen += [obs["observation"].copy(), reward.copy(), terminated.copy()]
    return seen


@pytest.mark.parametrize("opponent, num_envs, pits", [("alphabeta", 64, 4), ("random", 300, 4),
                                                     ("random", 300, 6)])
def test_results_do_not_depend_on_the_thread_count(opponent, num_envs, pits):
    # 300 games: five blocks of the random opponent's kernel (random_step), split
    # between the threads; one thread takes random_step_serial; 6 pits: the copy of
    # the random step compiled for Kalah(6, n)
    one, two = (trajectory(t, num_envs, opponent=opponent, pits=pits) for t in (1, 2))
    assert all(a.tolist() == b.tolist() for a, b in zip(one, two))


@pytest.mark.parametrize("options", [dict(opponent="random", variant="standard"),
                                     dict(opponent="random", pits=2, stones=1, side="north"),
                                     dict(opponent="alphabeta", depth=1, pits=3, stones=2)],
                         ids=["random-6x4", "random-north-2x1", "alphabeta"])
@pytest.mark.parametrize("num_threads", [1, 2])
def test_step_random_equals_sample_legal_then_step(options, num_threads):
    """``step_random(rng, actions)`` takes the actions ``sample_legal`` draws from the
    last mask with the same generator, and returns what ``step`` returns for them
    (episodes ended by play and restarted; illegal actions cannot occur)."""
    with threads(num_threads):
        ours, theirs = KalahVectorEnv(40, **options), KalahVectorEnv(40, **options)
        compare(ours.reset(seed=9), theirs.reset(seed=9))
        mask = theirs._out.mask.copy()
        rng, rng2 = np.random.default_rng(4), np.random.default_rng(4)
        taken, ended = np.zeros(40, np.int64), 0
        for _ in range(60):
            result = ours.step_random(rng, taken)
            actions = sample_legal(mask, rng2)
            expected = theirs.step(actions)
            assert taken.tolist() == actions.tolist()
            compare(result, expected)
            mask = expected[4]["action_mask"]
            ended += int(expected[2].sum())
        assert ended > 0 and "illegal_action" not in expected[4]


def test_step_random_checks_its_actions_array():
    env = KalahVectorEnv(3, opponent="random")
    env.reset(seed=0)
    with pytest.raises(InputError, match="int64 array of shape"):
        env.step_random(np.random.default_rng(0), np.zeros(3, np.int32))


def test_make_vec_declares_autoreset_and_batched_spaces():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # make_vec warns on missing autoreset metadata
        env = gymnasium.make_vec("jitgames/Kalah-v0", num_envs=5,
                                 vectorization_mode="vector_entry_point", opponent="random")
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=[10, 11, 12, 13, 14])
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (5, 6)
    single = gymnasium.make("jitgames/Kalah-v0", opponent="random")
    for _ in range(30):
        action = env.action_space.sample()
        assert env.action_space.contains(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        assert all(single.observation_space.contains({k: v[i] for k, v in obs.items()})
                   for i in range(5))


def test_reset_mask_resets_only_the_masked_games():
    env = KalahVectorEnv(3, opponent="random")
    sync = gymnasium.make_vec("jitgames/Kalah-v0", num_envs=3, vectorization_mode="sync",
                              opponent="random")
    first = env.reset(seed=1), sync.reset(seed=1)
    compare(*first)
    steps = [env.step(np.array([2, 0, 1])), sync.step(np.array([2, 0, 1]))]
    compare(*steps)
    mask = np.array([False, True, False])
    compare(env.reset(options={"reset_mask": mask}),
            sync.reset(options={"reset_mask": mask.copy()}))


@pytest.mark.parametrize("bad", [np.zeros(2, np.int64), np.zeros((3, 1), np.int64),
                                 np.zeros(3, np.float64)])
def test_bad_actions_are_refused(bad):
    env = KalahVectorEnv(3, opponent="random")
    env.reset(seed=0)
    with pytest.raises(InputError):
        env.step(bad)


def test_actions_of_any_integer_type_give_the_same_steps():
    """int64 arrays go to the kernel as they are; other integer arrays and lists are
    converted first, with the same steps."""
    runs = []
    for convert in (lambda a: a, lambda a: a.astype(np.int32), lambda a: a.tolist(),
                    lambda a: np.repeat(a, 2)[::2]):
        env = KalahVectorEnv(5, pits=4, stones=3, opponent="random")
        _, info = env.reset(seed=11)
        rng = np.random.default_rng(4)
        seen = []
        for _ in range(25):
            actions = np.argmax(rng.random((5, 4)) + info["action_mask"], axis=1)
            obs, reward, terminated, truncated, info = env.step(convert(actions))
            seen += [obs["observation"].tolist(), reward.tolist(), terminated.tolist()]
        runs.append(seen)
    assert all(run == runs[0] for run in runs)


def test_step_shares_the_constant_arrays_read_only():
    """``truncated`` and ``info["_action_mask"]`` are the same read-only arrays at every
    step; the observation's mask is info's."""
    env = KalahVectorEnv(4, pits=3, stones=2, opponent="random")
    _, info = env.reset(seed=2)
    first = env.step(np.argmax(info["action_mask"], axis=1))
    second = env.step(np.argmax(first[4]["action_mask"], axis=1))
    for step in (first, second):
        assert step[3] is first[3] and not step[3].any()
        assert step[4]["_action_mask"] is first[4]["_action_mask"]
        assert step[4]["_action_mask"].all()
        assert step[0]["action_mask"] is step[4]["action_mask"]
    for constant in (first[3], first[4]["_action_mask"]):
        with pytest.raises(ValueError):
            constant[0] = not constant[0]


@pytest.mark.parametrize("bad", [dict(num_envs=0), dict(num_envs=2, opponent="chess"),
                                 dict(num_envs=2, opponent="perfect"),
                                 dict(num_envs=2, render_mode="ansi")])
def test_bad_options_are_refused(bad):
    with pytest.raises(InputError):
        KalahVectorEnv(**bad)


@pytest.mark.kernel
@pytest.mark.parametrize("agent", [0, 1])
def test_advance_with_the_search_opponent_matches_reference(agent):
    """Openings of Kalah(3, 2) against the depth-2 alpha-beta opponent: it replies in
    every game (the generated batches may not reach it in the plain-Python run)."""
    games = kb.new_games(3, 3)
    games.base[:] = [5, 6, 7]
    games.episode[:] = -1
    rules = kb.Rules(2, 0, agent, kb.SEARCH, 2, weights_for("store", 3), False)
    out, ref_out = blank_out(3, 3), blank_out(3, 3)
    theirs = copy_games(games)
    kb.advance(games, np.zeros(3, np.int64), np.ones(3, np.bool_), kb.RESTART | kb.FINISH,
               rules, out)
    ref.advance(theirs, np.zeros(3, np.int64), np.ones(3, np.bool_), kb.RESTART | kb.FINISH,
                rules, ref_out)
    actions = np.array([0, 1, 2])
    kb.advance(games, actions, games.done, kb.ACT | kb.FINISH, rules, out)
    ref.advance(theirs, actions, theirs.done, kb.ACT | kb.FINISH, rules, ref_out)
    assert_same(games, theirs)
    assert_same(out, ref_out)
    assert (games.boards[:, 4:7] != 2).any()  # the opponent (North or South) has moved


def test_copy_false_returns_the_same_steps_in_reused_arrays():
    """``copy=False`` gives the steps of ``copy=True`` in the environment's own output
    arrays (the same objects at every step); ``copy=True`` hands out arrays that later
    steps leave alone."""
    options = dict(num_envs=6, vectorization_mode="vector_entry_point", pits=3, stones=2,
                   opponent="random")
    copied = gymnasium.make_vec("jitgames/Kalah-v0", copy=True, **options)
    shared = gymnasium.make_vec("jitgames/Kalah-v0", copy=False, **options)
    copied.reset(seed=3)
    _, info = shared.reset(seed=3)
    rng = np.random.default_rng(0)
    first_copied = first_shared = None
    for _ in range(30):
        actions = np.argmax(rng.random((6, 3)) * info["action_mask"], axis=1)
        mine = copied.step(actions)
        theirs = shared.step(actions)
        info = theirs[4]
        for a, b in zip(mine[1:4], theirs[1:4]):
            assert a.tolist() == b.tolist()
        assert mine[0]["observation"].tolist() == theirs[0]["observation"].tolist()
        assert sorted(mine[4]) == sorted(theirs[4])
        if first_shared is None:
            first_copied, kept = mine[0]["observation"], mine[0]["observation"].copy()
            first_shared = theirs[0]["observation"]
        assert theirs[0]["observation"] is first_shared
    assert first_copied.tolist() == kept.tolist()  # never written again
    assert mine[0]["observation"] is not first_copied


def test_actions_the_kernel_cannot_take_as_they_are_are_copied_or_refused():
    """``step`` copies strided, read-only or big-endian int64 actions into an array of
    the kernel's type (the compiled entry it calls would misread them) and plays them as
    given; ``step_random`` refuses an ``actions`` array it could not write into as is."""
    envs = [KalahVectorEnv(8, pits=3, stones=2, opponent="random") for _ in range(4)]
    for env in envs:
        env.reset(seed=11)
    rng = np.random.default_rng(2)
    for _ in range(30):
        actions = sample_legal(envs[0]._out.mask, rng)
        strided = np.zeros(16, np.int64)
        strided[::2] = actions
        frozen = actions.copy()
        frozen.flags.writeable = False
        given = [actions, strided[::2], frozen, actions.astype(">i8")]
        results = [env.step(a) for env, a in zip(envs, given)]
        for result in results[1:]:
            compare(results[0], result)
    for bad in (np.zeros(16, np.int64)[::2], np.zeros(8, np.int64)):
        if bad.flags.c_contiguous:
            bad.flags.writeable = False
        with pytest.raises(InputError, match="writeable C-contiguous"):
            envs[0].step_random(rng, bad)


def test_a_pickled_environment_goes_on_as_the_original():
    """The compiled entry the environment holds is left out of a pickle and made again
    for the unpickled copy's own arrays; both then play the same steps."""
    import pickle

    env = KalahVectorEnv(6, pits=3, stones=2, opponent="random")
    env.reset(seed=4)
    twin = pickle.loads(pickle.dumps(env))
    rng, rng2 = np.random.default_rng(8), np.random.default_rng(8)
    for _ in range(20):
        compare(env.step_random(rng), twin.step_random(rng2))
    assert twin.games.boards is not env.games.boards
