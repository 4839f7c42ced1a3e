"""Strategy trees as data: the JSON document, its independent check, the tree walk."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.errors import InputError
from jitgames.mastermind import strategy_tree
from jitgames.mastermind.__main__ import main
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.tree import check_tree, walk_tree
from tests.reference import mastermind as ref

SIZES = [(2, 3, True), (3, 3, True), (3, 4, False), (2, 5, True)]


@pytest.mark.kernel
@given(st.sampled_from(SIZES), st.sampled_from(["knuth", "entropy", "random", "optimal"]),
       st.integers(0, 1000), st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=12))
@settings(max_examples=20)
def test_walk_tree_matches_reference(size, name, seed, picks):
    tree = strategy_tree(name, *size, seed=seed)
    space, matrix = load_game(*size)
    secrets = np.array([p % space.size for p in picks], dtype=np.int64)
    # a damaged copy too: one branch cut off, so some secrets end unsolved (-1)
    cut = tree.children()
    cut[cut == cut.max()] = -1
    for children in (tree.children(), cut):
        for m in (matrix, np.zeros((0, 0), np.uint8)):
            ours = np.empty(secrets.size, np.int32)
            theirs = np.empty(secrets.size, np.int32)
            walk_tree(tree.table, children, space.tables(m), secrets, ours)
            ref.walk_tree(tree.table, children, space.tables(m), secrets, theirs)
            assert (ours == theirs).all()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", ["knuth", "cooley", "optimal"])
def test_document_round_trip_and_check(size, name):
    tree = strategy_tree(name, *size, seed=3)
    doc = json.loads(tree.to_json(name))
    check = check_tree(doc)
    space, _ = load_game(*size)
    guesses = tree.guesses()
    assert check.total == guesses.sum() == doc["total"]
    assert check.guesses == {space.format(i): int(g) for i, g in enumerate(guesses)}
    assert (check.pegs, check.colours, check.repeats, check.strategy) == (*size, name)


def _corrupt(doc, how):
    node = doc["tree"]
    if how == "total":
        doc["total"] += 1
    elif how == "missing-branch":
        key = next(iter(node["next"]))
        del node["next"][key]
    elif how == "impossible-answer":
        node["next"]["0,9"] = {"guess": node["guess"]}
    elif how == "illegal-guess":
        node["guess"] = "9" * len(node["guess"])
    elif how == "wrong-leaf":
        # a leaf that guesses a code other than the one left: its secret is unsolved
        stack = [node]
        while stack:
            v = stack.pop()
            for child in v.get("next", {}).values():
                if "next" not in child:
                    child["guess"] = node["guess"] if child["guess"] != node["guess"] else \
                        doc["tree"]["next"][next(iter(doc["tree"]["next"]))]["guess"]
                    return doc
                stack.append(child)
    elif how == "not-a-tree":
        doc["tree"] = [1, 2]
    return doc


@pytest.mark.parametrize("how", ["total", "missing-branch", "impossible-answer",
                                 "illegal-guess", "wrong-leaf", "not-a-tree"])
def test_check_refuses_a_damaged_tree(how):
    doc = json.loads(strategy_tree("optimal", 3, 3).to_json("optimal"))
    with pytest.raises(InputError, match="tree file"):
        check_tree(_corrupt(doc, how))


def test_check_refuses_sizes_it_cannot_walk():
    with pytest.raises(InputError, match="codes"):
        check_tree({"pegs": 8, "colours": 35, "repeats": True, "tree": {"guess": "1"}})
    with pytest.raises(InputError, match="pegs"):
        check_tree({"pegs": "4", "colours": 6, "tree": {}})


def test_cli_tree_out_then_evaluate_tree(capsys, tmp_path):
    path = tmp_path / "t.json"
    assert main(["tree", "-p", "3", "-k", "4", "-s", "optimal", "--out", str(path), "-q"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "--tree", str(path), "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert main(["evaluate", "-p", "3", "-k", "4", "-s", "optimal", "--json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert checked["verified"] and checked["complete"]
    for key in ("total", "max", "distribution", "secrets"):
        assert checked[key] == direct[key]
    # a limit the tree does not keep is an error, not a silent pass
    assert main(["evaluate", "--tree", str(path), "--max-guesses", "3"]) == 2
    assert "more than" in capsys.readouterr().err
    path.write_text("{not json")
    assert main(["evaluate", "--tree", str(path)]) == 2
    assert "not a JSON document" in capsys.readouterr().err


def test_max_guesses_only_for_the_optimal_strategies(capsys):
    assert main(["evaluate", "-p", "3", "-k", "3", "-s", "knuth", "--max-guesses", "4"]) == 2
    assert "optimal" in capsys.readouterr().err
    assert main(["evaluate", "-p", "3", "-k", "3", "-s", "optimal", "--max-guesses", "2"]) == 2
    assert "within 2 guesses" in capsys.readouterr().err
