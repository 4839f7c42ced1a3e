"""One game under a rule set of :mod:`.family` (Yukon, Alaska), with the exact search as coach.

:class:`FamilyGame` has the interface of :class:`.play.Game` that the terminal
(:func:`.console.play_session`) uses: the position, legal moves, play, undo,
restart, the optimal score still reachable, hints. The coach is the family search
(:func:`.family_search.best_score`) run from the position where it stands: the score
still reachable is exact unless the search passed its node limit (then
:attr:`FamilyGame.undecided` says so and the figure is the best score found, a lower
bound); the hint is the next move of the line the search found to that score.

Moves are named by a card (``9c``: its one legal move; when it has several, the
message lists them), by a card and a pile (``9c 3``; ``9c f`` for its foundation),
or by two piles (``3 5``: the run of pile 3 that may go onto pile 5; ``3 f``: pile
3's exposed card to its foundation). Player's foundation plays are moves; the safe
plays of :mod:`.family` follow every move by themselves.
"""
from __future__ import annotations

import re

import numpy as np

from .deal import validate_deals
from .family import (FOUNDATION, HEIGHT, KEY, LENGTH, LOG, LOG_LENGTH, MAX_DEPTH,
                     MAX_MOVES, PILE_STRIDE, PILES, RULE_NAMES, SCORE, TO_FOUNDATION, WHERE,
                     apply_move, legal_moves, new_position, piles_of, rules_code, undo_move)
from .family_bound import bound_of
from .family_search import DEFAULT_NODE_LIMIT, UNDECIDED, FamilyScratch, best_score
from .family_study import capacity_for
from .play import Hint, IllegalMove, parse_card
from .rules import N_PILES, card_name

_CARD_PILE = re.compile(r"^(\S+?)\s*(?:\s|>|to)\s*([1-7]|f|home)$", re.IGNORECASE)
_TWO_PILES = re.compile(r"^([0-9]{1,3})\s*(?:\s|-|>|to)\s*([0-9]{1,3}|f|home)$", re.IGNORECASE)


class FamilyGame:
    """A game of one deal under ``rules`` (``"yukon"``, ``"alaska"`` or ``"etude"``).

    Attributes as :class:`.play.Game`: ``optimum`` (the deal's optimal score),
    ``history`` (moves ``card * 8 + destination``, 7 = foundation), ``moves_made``,
    ``hints``, ``undos``, ``restarts``; ``rules`` the rule set's name.
    """

    def __init__(self, deck, rules="yukon", node_limit: int = DEFAULT_NODE_LIMIT):
        self.rules = RULE_NAMES[rules_code(rules)]
        self.deck = validate_deals(deck)[0]
        self.pos = new_position(self.deck, rules_code(rules))
        self._start = self.pos.copy()
        self.node_limit = int(node_limit)
        self._scratch = FamilyScratch.new(capacity_for(self.node_limit))
        self._solved: dict[tuple[int, int], tuple[int, bool, int]] = {}
        self.history: list[int] = []
        self.moves_made = self.hints = self.undos = self.restarts = 0
        self.optimum = self.reachable()

    # ------------------------------------------------------------------ the position

    @property
    def score(self) -> int:
        return int(self.pos[SCORE])

    def piles(self) -> list[tuple[int, list[int]]]:
        return piles_of(self.pos)

    def foundations(self) -> list[int]:
        return [int(h) for h in self.pos[FOUNDATION:FOUNDATION + 4]]

    def legal_moves(self) -> list[int]:
        """Foundation plays first, then moves onto cards, then kings into an empty pile."""
        buffer = np.zeros(MAX_MOVES, dtype=np.int64)
        return buffer[:legal_moves(self.pos, buffer, 0)].tolist()

    @property
    def over(self) -> bool:
        return not self.legal_moves()

    def _solve(self) -> tuple[int, bool, int]:
        """``(score, undecided, first move of a line to it or -1)`` of the position.

        A search's line is remembered along its whole length: every position on it
        reaches the same score (it is on a line to it, and reaches no more than the
        position the line starts from), so each gets the line's next move. A player
        who follows the hints therefore walks one line to the end, never back and forth
        between the lines of separate searches.
        """
        key = (int(self.pos[KEY]), int(self.pos[KEY + 1]))
        if key not in self._solved:
            pos = self.pos.copy()
            pos[LOG_LENGTH] = 0  # the search's own undo log (it restores the copy)
            s = self._scratch
            score, status, _, _ = best_score(pos, s.slots, s.meta, s.stack, s.moves, s.line,
                                             self.node_limit, bound_of(pos))
            line = [int(m) for m in s.line[1:1 + s.line[0]]]
            undecided = status == UNDECIDED
            for move in line:
                self._solved[(int(pos[KEY]), int(pos[KEY + 1]))] = (int(score), undecided, move)
                apply_move(pos, move)
            self._solved.setdefault((int(pos[KEY]), int(pos[KEY + 1])),
                                    (int(score), undecided, -1))
        return self._solved[key]

    def reachable(self) -> int:
        """The optimal score still reachable from here (a lower bound when undecided)."""
        return self._solve()[0]

    @property
    def undecided(self) -> bool:
        """True when the search from here passed its node limit."""
        return self._solve()[1]

    def describe(self, move: int) -> str:
        card, dest = move // 8, move % 8
        src = int(self.pos[WHERE + card])
        if dest == TO_FOUNDATION:
            return f"{card_name(card)} from pile {src + 1} to its foundation"
        carried = int(self.pos[LENGTH + src] - self.pos[HEIGHT + card])
        cover = f" (and {carried - 1} card{'s' if carried > 2 else ''} on it)" if carried > 1 else ""
        n = int(self.pos[LENGTH + dest])
        where = (f"onto {card_name(int(self.pos[PILES + dest * PILE_STRIDE + n - 1]))} "
                 f"(pile {dest + 1})") if n else f"into the empty pile {dest + 1}"
        return f"{card_name(card)}{cover} from pile {src + 1} {where}"

    def text(self) -> str:
        """The rule set, the deal as 52 two-character cards, then each move played as
        the card and where it went (``9c>3``, ``Ah>f``)."""
        from .play import card_code

        deal = "".join(card_code(int(c)) for c in self.deck)
        moves = " ".join(f"{card_code(m // 8)}>{'f' if m % 8 == TO_FOUNDATION else m % 8 + 1}"
                         for m in self.history)
        return f"{self.rules} {deal} {moves}".strip()

    # ------------------------------------------------------------------ moves

    def move_to(self, card: int, pile: int) -> int:
        """The legal move taking ``card`` to pile ``pile`` (0..6) or to its foundation
        (``pile`` 7), as dropped there; IllegalMove says why not."""
        if not 0 <= card < 52:
            raise IllegalMove(f"there is no card {card}")
        if not 0 <= pile <= N_PILES:
            raise IllegalMove(f"piles are numbered 1 to {N_PILES}")
        where = "f" if pile == TO_FOUNDATION else str(pile + 1)
        moves = [m for m in self.legal_moves() if m // 8 == card and self._to(m, where)]
        target = "its foundation" if pile == TO_FOUNDATION else f"pile {pile + 1}"
        return self._only(moves, f"{card_name(card)} cannot go to {target} here")

    def play(self, move: int) -> list[int]:
        """Make legal ``move``; return the cards that went to the foundations by
        themselves afterwards (the safe plays), in order."""
        if len(self.history) >= MAX_DEPTH:
            raise IllegalMove(f"a game holds at most {MAX_DEPTH} moves; undo or restart")
        before = int(self.pos[LOG_LENGTH])
        apply_move(self.pos, move)
        self.history.append(move)
        self.moves_made += 1
        n = int(self.pos[LOG_LENGTH])
        return [int(self.pos[LOG + k] // 4 % 64) for k in range(before + 1, n)]

    def undo(self) -> bool:
        if not self.history:
            return False
        undo_move(self.pos)
        self.history.pop()
        self.undos += 1
        return True

    def restart(self) -> None:
        self.pos[:] = self._start
        self.history.clear()
        self.restarts += 1

    def hint(self) -> Hint:
        """The first move of the search's line to the score still reachable; when
        that score is on the foundations already, the first legal move."""
        self.hints += 1
        legal = self.legal_moves()
        if not legal:
            return Hint(None, self.score, False)
        score, _, first = self._solve()
        if score <= self.score or first < 0:
            return Hint(legal[0], score, False)
        return Hint(first, score, True)

    def parse_move(self, text: str) -> int:
        """The legal move ``text`` names (module docstring); IllegalMove says why none."""
        text = text.strip()
        legal = self.legal_moves()
        card = parse_card(text)
        if card is not None:
            mine = [m for m in legal if m // 8 == card]
            if len(mine) == 1:
                return mine[0]
            if not mine:
                raise IllegalMove(f"{card_name(card)} has no legal move here")
            raise IllegalMove(f"{card_name(card)} can go to "
                              + " or ".join(self._target(m) for m in mine)
                              + f"; type the card and a pile, e.g. {text} {self._short(mine[0])}")
        match = _CARD_PILE.match(text)
        if match and parse_card(match.group(1)) is not None:
            card = parse_card(match.group(1))
            return self._only([m for m in legal if m // 8 == card and self._to(m, match.group(2))],
                              f"{card_name(card)} cannot go to {match.group(2)}")
        match = _TWO_PILES.match(text)
        if match:
            source = int(match.group(1))
            if not 1 <= source <= N_PILES:
                raise IllegalMove(f"piles are numbered 1 to {N_PILES}, not {source}")
            moves = [m for m in legal if int(self.pos[WHERE + m // 8]) == source - 1
                     and self._to(m, match.group(2))]
            return self._only(moves, f"nothing of pile {source} can go to {match.group(2)}")
        raise IllegalMove(f"{text[:20]!r} is not a card (9c), a card and a pile (9c 3, 9c f) "
                          f"or two piles (3 5); type help for the commands")

    def _to(self, move: int, where: str) -> bool:
        """Does ``move`` go to ``where`` (a pile number 1..7, or f/home)?"""
        if where.lower() in ("f", "home"):
            return move % 8 == TO_FOUNDATION
        dest = int(where) - 1
        if move % 8 == dest:
            return True
        # a king's move names the first empty pile; any empty pile is the same move
        return (move % 8 != TO_FOUNDATION and 0 <= dest < N_PILES
                and self.pos[LENGTH + move % 8] == 0 and self.pos[LENGTH + dest] == 0)

    def _only(self, moves: list[int], why: str) -> int:
        if len(moves) == 1:
            return moves[0]
        if not moves:
            raise IllegalMove(why)
        raise IllegalMove("that names several moves: " + "; ".join(self.describe(m) for m in moves)
                          + "; type the card and a pile")

    def _target(self, move: int) -> str:
        return "its foundation" if move % 8 == TO_FOUNDATION else f"pile {move % 8 + 1}"

    def _short(self, move: int) -> str:
        return "f" if move % 8 == TO_FOUNDATION else str(move % 8 + 1)


__all__ = ["FamilyGame"]
