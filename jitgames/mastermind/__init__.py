"""Mastermind: codes and feedback, codebreaker strategies, the optimal strategy, play."""
from .codes import CodeSpace, MemoryLimitError, code_space, feedback, response_matrix
from .evaluate import Evaluation, evaluate, merge, strategy_names, strategy_tree
from .strategies import STRATEGIES, Strategy, register
from .tree import DecisionTree

__all__ = [
    "CodeSpace", "MemoryLimitError", "code_space", "feedback", "response_matrix",
    "Evaluation", "evaluate", "merge", "strategy_names", "strategy_tree",
    "STRATEGIES", "Strategy", "register", "DecisionTree",
]
