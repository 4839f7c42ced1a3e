"""Hypothesis strategies for solitaire deals: uniform ones and ones built to be hard."""
import numpy as np
from hypothesis import strategies as st

ACES = (0, 13, 26, 39)
KINGS = (12, 25, 38, 51)
# deck slots dealt face up and not at the bottom of a pile (docs/design.md dealing order)
FACE_UP_COVERING = tuple(range(28, 52))


def _swap_into(deck, card, slot):
    where = deck.index(card)
    deck[where], deck[slot] = deck[slot], deck[where]


@st.composite
def random_deals(draw):
    """A uniformly drawn permutation of the 52 cards."""
    return np.array(draw(st.permutations(range(52))), dtype=np.int64)


@st.composite
def hard_deals(draw):
    """Deals that exercise the tricky rules at once.

    An ace dealt alone on pile 0 goes to the foundation and leaves an empty pile
    right after the deal; the four kings are dealt face up above other cards, so
    they compete for empty piles; a run of one suit is dealt on top of the piles
    so that long runs move and cascades reach the foundations.
    """
    deck = list(draw(st.permutations(range(52))))
    _swap_into(deck, draw(st.sampled_from(ACES)), 0)
    slots = draw(st.lists(st.sampled_from(FACE_UP_COVERING), min_size=4, max_size=4, unique=True))
    for king, slot in zip(KINGS, slots):
        _swap_into(deck, king, slot)
    suit = draw(st.integers(0, 3))
    length = draw(st.integers(0, 6))
    tops = [48, 49, 50, 51, 44, 45]  # the last cards dealt: the exposed ones of piles 6 and 5
    for rank, slot in zip(range(1, 1 + length), tops):
        card = suit * 13 + rank
        if card not in KINGS and slot not in slots:
            _swap_into(deck, card, slot)
    assert sorted(deck) == list(range(52))
    return np.array(deck, dtype=np.int64)


any_deals = st.one_of(random_deals(), hard_deals())
