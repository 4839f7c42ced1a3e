"""The registry of game pages: one module a game, each defining ``PLUGIN``.

To add a game, write ``jitgames/web/games/<name>.py`` with ``PLUGIN = GamePlugin(...)``
(see :mod:`jitgames.web`) and add ``<name>`` to :data:`GAME_MODULES`; the nav lists
the games in this order.
"""
from __future__ import annotations

import importlib

__all__ = ["GAME_MODULES", "load_plugins"]

GAME_MODULES = ("solitaire", "mastermind", "kalah")
"""Modules of this package that define a game page, in nav order."""


def load_plugins(names=GAME_MODULES) -> list:
    """The ``PLUGIN`` of each module named, in order."""
    return [importlib.import_module(f"{__name__}.{name}").PLUGIN for name in names]
