"""``jitgames serve`` over HTTP, without a browser: bad requests get a 4xx and a
message (never a 500), 20 games in parallel do not interfere, clients that vanish or
stall do not hurt the server, and the command line starts, warns and stops cleanly."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitgames.solitaire.deal import deals
from jitgames.solitaire.play import Game
from jitgames.web.server import MAX_BODY

from .web_browser import serving

ROOT = Path(__file__).resolve().parent.parent
COMPILE_WAIT = 300
"""Seconds a request may take: the first game compiles the solver on a cold cache."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("webdb")) as server:
        yield server


def request(server, method, path, body=None, headers=None, raw_body=None):
    """``(status, headers, text)`` of one request on a new connection."""
    host, port = server.server_address[:2]
    con = http.client.HTTPConnection(host, port, timeout=COMPILE_WAIT)
    data = raw_body if raw_body is not None else (
        None if body is None else json.dumps(body).encode())
    try:
        con.request(method, path, body=data, headers=headers or {})
        response = con.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        con.close()


def api(server, action, body, game="solitaire"):
    status, _, text = request(server, "POST", f"/api/{game}/{action}", body,
                              {"Content-Type": "application/json"})
    return status, json.loads(text)


def raw(server, data: bytes, read=True) -> bytes:
    """Send ``data`` as it is on a new connection; the whole answer (until close)."""
    with socket.create_connection(server.server_address[:2], timeout=30) as sock:
        sock.sendall(data)
        if not read:
            return b""
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


# ----------------------------------------------------------------------------- bad requests

def test_pages_and_static_files(server):
    status, headers, text = request(server, "GET", "/solitaire?seed=2026&index=3")
    assert status == 200 and 'id="status"' in text and "/static/solitaire.js" in text
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    for path, kind in (("/static/common.js", "text/javascript"), ("/static/common.css",
                                                                   "text/css")):
        status, headers, text = request(server, "GET", path)
        assert status == 200 and headers["Content-Type"].startswith(kind) and text
    status, headers, text = request(server, "HEAD", "/")
    assert status == 200 and text == "" and int(headers["Content-Length"]) > 0
    assert request(server, "GET", "/stats")[0] == 200


def test_static_files_ship_as_package_data():
    """Every file under jitgames/web/static/ matches a package-data pattern of
    pyproject.toml (an installed jitgames serves its pages offline), and the server
    serves exactly the kinds of file those patterns name."""
    import fnmatch
    import re

    from jitgames.web.server import _STATIC_NAME, STATIC_DIR

    text = (ROOT / "pyproject.toml").read_text()
    match = re.search(r'^"jitgames\.web" = \[(.*?)\]', text, re.M | re.S)
    assert match, "no package-data entry for jitgames.web in pyproject.toml"
    patterns = re.findall(r'"([^"]+)"', match.group(1))
    files = sorted(p.name for p in STATIC_DIR.iterdir())
    assert files and all(_STATIC_NAME.match(name) for name in files), files
    for name in files:
        assert any(fnmatch.fnmatch(f"static/{name}", pattern) for pattern in patterns), name


@pytest.mark.parametrize("path, expected, words", [
    ("/nowhere", 404, "no page"),
    ("/static/nope.js", 404, "no static file"),
    ("/static/server.py", 404, "no static file"),
    ("/api/chess/new", 405, "POST"),
    ("/static/../server.py", 400, "'..'"),
    ("/static/%2e%2e/server.py", 400, "'..'"),
    ("/..%2f..%2fetc/passwd", 400, "'..'"),
    ("//etc/passwd", 404, "no page"),  # http.server folds a leading // into /
    ("/static//etc/passwd", 400, "empty segments"),
    ("/static/a%5cb.js", 400, "backslashes"),
    ("/solitaire?seed=x", 400, "'seed' must be an integer"),
    ("/solitaire?seed=1&index=18446744073709551616", 400, "'index' must be an integer"),
    ("/solitaire?deal=" + "%200" * 52, 400, "card 0 appears 52 times"),
    ("/solitaire?deal=1%202%203", 400, "52 card ids"),
    ("/solitaire?position=AhAh", 400, "104 characters"),
    ("/%ff%fe", 400, "not UTF-8"),
    ("/solitaire?deal=%ff", 400, "undecodable"),
])
def test_bad_gets_are_4xx_with_a_message(server, path, expected, words):
    status, _, text = request(server, "GET", path)
    assert status == expected and words in text, (status, text)
    assert "Traceback" not in text


def test_raw_paths_with_dots_are_refused(server):
    for target in (b"/static/../../jitgames/web/server.py", b"/../etc/passwd",
                   b"http://evil.example/solitaire", b"*"):
        answer = raw(server, b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Connection: close\r\n\r\n")
        assert 400 <= status_of(answer) < 500 and b"Traceback" not in answer, answer[:200]


@pytest.mark.parametrize("body, expected, words", [
    (b"{not json", 400, "not JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (b"\xff\xfe", 400, "not JSON"),
    (json.dumps({"deal": " ".join(["0"] * 52)}).encode(), 400, "card 0 appears 52 times"),
    (json.dumps({"deal": " ".join(map(str, range(1, 53)))}).encode(), 400, "out of range"),
    (json.dumps({"deal": "Ah" * 52}).encode(), 400, "appears 52 times"),
    (json.dumps({"seed": -1, "index": 0}).encode(), 400, "'seed' must be an integer"),
    (json.dumps({"seed": 1.5, "index": 0}).encode(), 400, "'seed' must be an integer"),
    (json.dumps({"position": 7}).encode(), 400, "'position' must be text"),
])
def test_bad_new_game_is_400_with_a_message(server, body, expected, words):
    status, _, text = request(server, "POST", "/api/solitaire/new", raw_body=body,
                              headers={"Content-Type": "application/json"})
    answer = json.loads(text)
    assert status == expected and answer["ok"] is False and words in answer["error"], text


def test_bad_actions(server):
    status, answer = api(server, "new", {"seed": 2026, "index": 5})
    assert status == 200 and answer["ok"]
    gid = answer["id"]
    cases = [
        ("move", {"id": gid, "card": "x", "pile": 1}, 400, "'card' must be an integer"),
        ("move", {"id": gid, "card": 3, "pile": 9}, 400, "'pile' must be an integer"),
        ("move", {"card": 3, "pile": 1}, 400, "missing field 'id'"),
        ("move", {"id": "no-such-game", "card": 3, "pile": 1}, 404, "unknown or expired"),
        ("fly", {"id": gid}, 404, "no action 'fly'"),
    ]
    for action, body, expected, words in cases:
        status, answer = api(server, action, body)
        assert status == expected and words in answer["error"], (action, body, answer)
    status, answer = api(server, "nogame", {"id": gid}, game="chess")
    assert status == 404 and "no game" in answer["error"]
    # a refused move is not an HTTP error: 200, ok false, the reason and the state
    status, answer = api(server, "undo", {"id": gid})
    assert status == 200 and answer["ok"] is False and "nothing to undo" in answer["error"]
    assert answer["state"]["moves"] == 0


def test_coach_says_when_a_move_throws_cards_away(server):
    """The answer to a move carries the exact figure still reachable, and says how many
    cards the move threw away (a deal and a move found by the model)."""
    for index in range(300):
        game = Game(deals(2026, index, index + 1)[0])
        before = game.reachable()
        for move in game.legal_moves():
            game.play(move)
            after = game.reachable()
            game.undo()
            if after < before:
                break
        else:
            continue
        break
    status, answer = api(server, "new", {"seed": 2026, "index": index})
    gid = answer["id"]
    assert answer["state"]["reachable"] == before
    status, answer = api(server, "move", {"id": gid, "card": move // 8, "pile": move % 8})
    state = answer["state"]
    assert answer["ok"] and state["reachable"] == after and state["lost"] == before - after
    assert f"threw away {before - after} card" in state["coach"]
    assert state["coach"].startswith(f"Best score still reachable: {after} of 52")
    status, answer = api(server, "undo", {"id": gid})
    assert answer["state"]["reachable"] == before and answer["state"]["lost"] == 0
    status, answer = api(server, "hint", {"id": gid})
    hint = Game(deals(2026, index, index + 1)[0]).hint()
    assert (answer["hint"]["card"], answer["hint"]["pile"]) == (hint.move // 8, hint.move % 8)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=120),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
FIELDS = st.fixed_dictionaries({}, optional={
    key: JSON | st.integers(-1, 60) | st.sampled_from(["9c", "3 5", "Kh", "1", ""])
    for key in ("card", "pile", "text", "seed", "index", "deal", "position")})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=st.sampled_from(["new", "move", "hint", "best", "undo", "restart", "load",
                               "nope"]),
       fields=FIELDS, use_id=st.booleans())
def test_any_json_gets_an_answer_never_a_500(server, action, fields, use_id):
    """Whatever JSON an action gets, the answer is 200 (played or refused) or a 4xx
    with a message; the fixture fails the module on any 500."""
    if use_id:
        fields = dict(fields, id=GAME_ID.setdefault("id", api(server, "new", {
            "seed": 2026, "index": 64})[1]["id"]))
    status, answer = api(server, action, fields)
    assert status in (200, 400, 404), (status, answer)
    assert isinstance(answer["ok"], bool) and (answer["ok"] or answer["error"])


GAME_ID: dict = {}
"""The game the fuzz test plays in (made by its first example that uses an id)."""


def test_methods_and_lengths(server):
    assert request(server, "PUT", "/solitaire")[:1] == (405,)
    status, headers, _ = request(server, "DELETE", "/api/solitaire/new")
    assert status == 405 and headers["Allow"] == "POST"
    status, headers, _ = request(server, "POST", "/solitaire", {"x": 1})
    assert status == 405 and headers["Allow"] == "GET, HEAD"
    status, _, text = request(server, "GET", "/api/solitaire/new")
    assert status == 405 and "POST" in json.loads(text)["error"]
    answer = raw(server, b"POST /api/solitaire/new HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status_of(answer) == 411
    answer = raw(server, b"POST /api/solitaire/new HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Length: nine\r\n\r\n")
    assert status_of(answer) == 400
    answer = raw(server, b"BREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert 400 <= status_of(answer) < 500
    answer = raw(server, b"GARBAGE\r\n\r\n")
    assert 400 <= status_of(answer) < 500
    answer = raw(server, b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n")
    assert 400 <= status_of(answer) < 500


def test_huge_body_is_413_unread(server):
    size = 50 * 1024 * 1024
    answer = raw(server, b"POST /api/solitaire/new HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nContent-Length: " + str(size).encode()
                 + b"\r\n\r\n" + b"{" * 1000)
    assert status_of(answer) == 413 and str(MAX_BODY).encode() in answer
    status, _, text = request(server, "POST", "/api/solitaire/new",
                              raw_body=b" " * (MAX_BODY + 1))
    assert status == 413 and "limit" in json.loads(text)["error"]


def test_foreign_hosts_and_origins_are_refused(server):
    status, _, text = request(server, "GET", "/solitaire", headers={"Host": "evil.example"})
    assert status == 403 and "not served" in text
    status, _, text = request(server, "POST", "/api/solitaire/new", {},
                              headers={"Origin": "http://evil.example"})
    assert status == 403 and "another site" in text
    host, port = server.server_address[:2]
    status, answer = api(server, "new", {"seed": 1, "index": 1})
    assert status == 200
    status, _, _ = request(server, "POST", "/api/solitaire/new", {},
                           headers={"Origin": f"http://{host}:{port}"})
    assert status == 200


# ----------------------------------------------------------------------------- load

def play_to_the_end(server, index):
    """Deal ``index`` of seed 7 played by Best move alone; (final state, moves)."""
    status, answer = api(server, "new", {"seed": 7, "index": index})
    assert status == 200
    gid, state = answer["id"], answer["state"]
    moves = []
    for _ in range(70):
        if state["over"]:
            break
        status, answer = api(server, "best", {"id": gid})
        assert status == 200 and answer["ok"], answer
        state = answer["state"]
        moves.append(state["text"].split()[-1])
    return state, moves


def test_twenty_games_in_parallel_do_not_interfere(tmp_path):
    indices = range(20)
    expected = {i: Game(deals(7, i, i + 1)[0]).optimum for i in indices}
    with serving(tmp_path) as server:
        sequential = {i: play_to_the_end(server, i)[1] for i in indices[:4]}
        with ThreadPoolExecutor(20) as pool:
            results = dict(zip(indices, pool.map(lambda i: play_to_the_end(server, i),
                                                 indices)))
    for i, (state, moves) in results.items():
        assert state["over"] and state["score"] == state["optimum"] == expected[i]
        assert state["text"].split()[0] == Game(deals(7, i, i + 1)[0]).text()
        if i in sequential:
            assert moves == sequential[i]
    with sqlite3.connect(tmp_path / "solitaire.sqlite") as con:
        stored = con.execute("SELECT deal_index, score FROM solitaire_games WHERE seed = '7'"
                             ).fetchall()
    assert sorted(stored) == sorted([(str(i), expected[i]) for i in indices] +
                                    [(str(i), expected[i]) for i in indices[:4]])


def test_sessions_are_bounded(tmp_path):
    with serving(tmp_path, session_limit=2) as server:
        ids = [api(server, "new", {"seed": 1, "index": i})[1]["id"] for i in range(3)]
        assert api(server, "hint", {"id": ids[0]})[0] == 404
        assert all(api(server, "hint", {"id": gid})[0] == 200 for gid in ids[1:])


def test_clients_that_vanish_or_stall_do_not_hurt(tmp_path):
    with serving(tmp_path) as server:
        address = server.server_address[:2]
        stalled = []
        for data in (b"POST /api/solitaire/new HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Length: 100\r\n\r\n{\"seed\":",  # body cut short
                     b"GET /solitaire HTTP/1.1\r\nHost: 127",    # headers cut short
                     b""):                                       # nothing at all
            sock = socket.create_connection(address, timeout=30)
            sock.sendall(data)
            stalled.append(sock)
        # gone mid-request, and gone before reading the answer of a slow request
        raw(server, b"POST /api/solitaire/new HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Length: 40\r\n\r\n{\"se", read=False)
        raw(server, b"POST /api/solitaire/new HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Length: 27\r\n\r\n{\"seed\": 5, \"index\": 12345}", read=False)
        for sock in stalled[:1]:  # one vanishes with a reset
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00"
                            b"\x00\x00")
            sock.close()
        began = time.perf_counter()
        status, answer = api(server, "new", {"seed": 5, "index": 1})
        assert status == 200 and answer["ok"]  # served while the others stall
        assert time.perf_counter() - began < 5
        for sock in stalled[1:]:
            sock.close()
        assert api(server, "hint", {"id": answer["id"]})[0] == 200
        time.sleep(0.3)  # let the dropped connections' threads finish
    # serving() checks that no request answered 500


# ----------------------------------------------------------------------------- the command

def start(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "jitgames", "serve", "--port", "0",
                             "--no-browser", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, **(env or {})))


def url_of(process) -> str:
    line = process.stdout.readline()
    assert line.startswith("jitgames serve: http://"), line
    return line.split()[2]


def test_serve_stops_on_ctrl_c_keeping_finished_games(tmp_path):
    process = start("--db", str(tmp_path), "--name", "Ada")
    try:
        url = url_of(process)
        host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)

        class Address:
            server_address = (host, int(port))

        state, _ = play_to_the_end(Address, 3)
        assert state["over"]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130 and "Traceback" not in err, err
    with sqlite3.connect(tmp_path / "solitaire.sqlite") as con:
        rows = con.execute("SELECT player, seed, deal_index, score, optimum "
                           "FROM solitaire_games").fetchall()
    assert rows == [("Ada", "7", "3", state["optimum"], state["optimum"])]


def test_serve_warns_off_loopback_and_refuses_bad_records(tmp_path):
    process = start("--host", "0.0.0.0", "--db", str(tmp_path))
    try:
        port = url_of(process).rstrip("/").rsplit(":", 1)[1]
        taken = subprocess.run([sys.executable, "-m", "jitgames", "serve", "--host", "0.0.0.0",
                                "--port", port, "--no-browser", "--db", str(tmp_path)],
                               cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert taken.returncode == 2 and taken.stderr.count("\n") == 1
        assert f"cannot listen on 0.0.0.0 port {port}" in taken.stderr
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "warning: serving on 0.0.0.0" in err and process.returncode == 130
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "solitaire.sqlite").write_text("not a database")
    bad = start("--db", str(tmp_path / "bad"))
    out, err = bad.communicate(timeout=60)
    assert bad.returncode == 2 and err.count("\n") == 1 and "not an SQLite database" in err
