"""Yukon's and Alaska's lines written as solutions and replayed by the independent checker.

The family search (:mod:`jitgames.solitaire.family_search`) finds a line to the best
score; :func:`jitgames.solitaire.solution.family_line` writes it in the notation with
every foundation play a move line (the provably safe plays the solver makes by itself
too); the checker (:mod:`jitgames.solitaire.check`, no solver code) must accept it
with the same score, and reject it, at the very line, once it is tampered with.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jitgames.errors import InputError
from jitgames.solitaire import check as C
from jitgames.solitaire import deals
from jitgames.solitaire import family as F
from jitgames.solitaire.family_bound import bound_of
from jitgames.solitaire.family_search import FamilyScratch, best_score
from jitgames.solitaire.family_study import capacity_for
from jitgames.solitaire.solution import family_line, solution_text
from tests.reference.solitaire_strategies import hard_deals, random_deals

from .solution_check import check_line, check_moves

NODE_LIMIT = 5000   # positions a search may see (an undecided deal's line still checks)
SCRATCH = FamilyScratch.new(capacity_for(NODE_LIMIT))
cases = settings(max_examples=30, deadline=None,
                 suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
any_deal = st.one_of(random_deals(), hard_deals())
family_rules = st.sampled_from(["yukon", "alaska"])


def searched(deck, rules):
    """``(score, line)``: the family search's best score from the deal and the line
    it recorded to it."""
    pos = F.new_position(deck, F.rules_code(rules))
    s = SCRATCH
    score, _, _, _ = best_score(pos, s.slots, s.meta, s.stack, s.moves, s.line,
                                NODE_LIMIT, bound_of(pos))
    line = family_line(deck, rules, s.line[1:1 + s.line[0]])
    assert line.score == score
    return int(score), line


def move_line_numbers(text):
    """Line numbers (from 1) of the move lines of a solution's text, in order."""
    return [n for n, row in enumerate(text.splitlines(), start=1) if ">" in row]


def step_line(line, k):
    """Index among the move lines of player move ``k`` of ``line`` (the deal's plays
    and every earlier move's automatic plays come before it)."""
    return len(line.dealt) + k + sum(len(step.automatic) for step in line.steps[:k])


# ----------------------------------------------------------------------------- lines pass

@cases
@given(any_deal, family_rules)
def test_the_searchs_line_checks_with_the_same_score(deck, rules):
    score, line = searched(deck, rules)
    report = check_line(deck, line)
    assert report.rules == rules and report.score == score
    text = solution_text(deck, line)
    assert text.count(">F ") == score and " + " not in text   # every play a move line
    if score < 52:   # a claim above the line's end is reported
        wrong = C.check_text(text.replace(f"score: {score}\n", f"score: {score + 1}\n"))
        assert wrong.legal and wrong.score == score and not wrong.ok


@cases
@given(any_deal, family_rules, st.lists(st.integers(0, 31), max_size=80))
def test_any_legal_game_checks(deck, rules, choices):
    """Not only the search's lines: any game of legal moves (kings into empty piles,
    cards back and forth between their two places, the player's foundation plays)
    replays under the checker's rules to the same foundations."""
    pos, buffer, moves = F.new_position(deck, F.rules_code(rules)), \
        np.zeros(F.MAX_MOVES, dtype=np.int64), []
    for choice in choices:
        n = F.legal_moves(pos, buffer, 0)
        if n == 0:
            break
        moves.append(int(buffer[choice % n]))
        F.apply_move(pos, moves[-1])
    check_moves(deck, rules, moves, int(pos[F.SCORE]))


def test_the_safe_plays_are_written_as_moves():
    """Yukon plays an exposed ace at once (nothing can be put on an ace), Alaska a king
    that fits; the writer writes each such play as a move line, right after the deal
    or the move that allowed it, and the checker, which plays nothing by itself under
    these rules, needs them: without them the line stops short of its score."""
    seen = {"yukon": 0, "alaska": 0}
    for index in range(40):
        deck = deals(2026, index, index + 1)[0]
        for rules in seen:
            _, line = searched(deck, rules)
            text = solution_text(deck, line, seed=2026, index=index)
            rows = text.splitlines()
            numbers = move_line_numbers(text)
            for k, (card, pile) in enumerate(line.dealt):
                assert rows[numbers[k] - 1] == f"{C.name(card)} {pile + 1}>F {C.name(card)}"
            safe = [n for k, step in enumerate(line.steps)
                    for n in range(step_line(line, k) + 1,
                                   step_line(line, k) + 1 + len(step.automatic))]
            if rules == "alaska":   # in Alaska only kings are provably safe
                assert not line.dealt and all(rows[numbers[n] - 1][0] == "K" for n in safe)
            else:                   # in Yukon every exposed ace is
                assert all(card % 13 != 0 for card in _players_homes(line))
            seen[rules] += len(line.dealt) + len(safe)
            if safe:
                cut = rows[:numbers[safe[-1]] - 1] + rows[numbers[safe[-1]]:]
                report = C.check_text("\n".join(cut) + "\n")
                assert not report.ok and (not report.legal or report.score < line.score)
    assert seen["yukon"] > 0 and seen["alaska"] > 0


def _players_homes(line):
    """The cards the player sends to their foundations in ``line``."""
    return [step.card for step in line.steps if step.pile is None]


def test_a_family_line_is_written_under_its_own_rules_only():
    deck = deals(2026, 5, 6)[0]
    _, line = searched(deck, "yukon")
    with pytest.raises(InputError, match="under yukon rules"):
        solution_text(deck, line, rules="alaska")
    with pytest.raises(InputError, match="not legal"):
        # the ace of spades is never the player's to play in Yukon: exposed, it is safe
        family_line(deck, "yukon", [F.TO_FOUNDATION])
    with pytest.raises(InputError, match=f"at most {F.MAX_DEPTH} moves"):
        family_line(deck, "alaska", [0] * (F.MAX_DEPTH + 1))


# ----------------------------------------------------------------------------- tampering

@cases
@given(any_deal, family_rules, st.data())
def test_a_dropped_foundation_play_is_rejected_or_scores_lower(deck, rules, data):
    """Every card reaches its foundation by one move line (nothing plays by itself
    under these rules, nothing leaves a foundation): without one, the line is illegal
    further on or ends below the claim."""
    score, line = searched(deck, rules)
    assume(score > 0)
    text = solution_text(deck, line)
    homes = [n for n, row in enumerate(text.splitlines()) if ">F " in row]
    drop = data.draw(st.sampled_from(homes))
    rows = text.splitlines()
    report = C.check_text("\n".join(rows[:drop] + rows[drop + 1:]) + "\n")
    assert not report.ok
    assert not report.legal or report.score < report.claimed


@cases
@given(any_deal, family_rules, st.data())
def test_a_changed_move_is_rejected_at_its_line(deck, rules, data):
    """A move sent to a pile where the rules do not let it go, or with a wrong list of
    moved cards: illegal at that very line, after exactly the move lines before it."""
    _, line = searched(deck, rules)
    assume(line.moves > 0)
    k = data.draw(st.integers(0, line.moves - 1))
    step = line.steps[k]
    pos = F.new_position(deck, F.rules_code(rules))
    for earlier in line.steps[:k]:
        F.apply_move(pos, earlier.card * 8 + (F.TO_FOUNDATION if earlier.pile is None
                                               else earlier.pile))
    buffer = np.zeros(F.MAX_MOVES, dtype=np.int64)
    legal = set(buffer[:F.legal_moves(pos, buffer, 0)].tolist())
    king = step.card % 13 == 12

    def allowed(q):   # may the card go onto pile q (the rules, via the solver's moves)?
        if pos[F.LENGTH + q] == 0:
            return king
        return step.card * 8 + q in legal

    text = solution_text(deck, line)
    rows = text.splitlines()
    at = move_line_numbers(text)[step_line(line, k)] - 1
    fields = rows[at].split()
    assert C.parse_card(fields[0]) == step.card
    how = data.draw(st.sampled_from(["target", "moved"]))
    if how == "target":
        wrong = [q for q in range(7) if q != step.from_pile and not allowed(q)]
        assume(wrong)
        fields[1] = f"{step.from_pile + 1}>{data.draw(st.sampled_from(wrong)) + 1}"
    else:
        fields.insert(3, C.name((step.moved[-1] + 1) % 52))
    rows[at] = " ".join(fields)
    report = C.check_text("\n".join(rows) + "\n")
    assert not report.legal and report.line == at + 1, (report, rows[at])
    assert report.moves == step_line(line, k)

