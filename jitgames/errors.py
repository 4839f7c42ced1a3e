"""The one exception type for bad input, shared by the library and its command lines.

Library validators raise :class:`InputError` (a :class:`ValueError`, so callers that
catch ``ValueError`` keep working); the command lines translate it once, in
:func:`jitgames._cli.run_cli`, into one line on stderr and exit status 2.
"""
from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input or an impossible request; the message is one line meant for a person."""
