"""``jitgames serve``: the games in a local web page (also ``python -m jitgames.web``).

    jitgames serve                       http://127.0.0.1:8035/, opened in the browser
    jitgames serve --port 0 --no-browser any free port; the URL is printed
    jitgames serve --host 0.0.0.0        every interface (a warning: anyone who reaches
                                         this machine can then use the pages)
    jitgames serve --db DIR              records in DIR (default: the jitgames data
                                         directory, shared with the terminal games)

Ctrl-C stops the server (status 130); every finished game is already stored.
See docs/web.md.
"""
from __future__ import annotations

import getpass
import sys
import webbrowser
from pathlib import Path

from .._cli import ArgumentParser, InputError, display_name, int_in_range, run_cli
from .plugin import Context
from .server import is_loopback, make_server

__all__ = ["main", "DEFAULT_PORT"]

PROG = "python -m jitgames.web"
DEFAULT_PORT = 8035


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=display_name(PROG).replace("jitgames web", "jitgames serve"),
                            description=(
        "Serve the games as local web pages, with the exact solvers as coach. "
        "See docs/web.md."))
    parser.add_argument("--port", type=int_in_range(0, 65535), default=DEFAULT_PORT,
                        help=f"TCP port (default {DEFAULT_PORT}; 0 = any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1, this machine only)")
    parser.add_argument("--no-browser", dest="browser", action="store_false",
                        help="do not open the page in a browser")
    parser.add_argument("--db", default=None, metavar="DIR",
                        help="directory of the records databases (default: "
                             "$XDG_DATA_HOME/jitgames, shared with the terminal games)")
    parser.add_argument("--name", default=None, help="player name stored with each game "
                                                     "(default: the user's)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return parser


def _player() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment (a bare container)
        return "player"


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    name = (args.name or _player()).strip()
    if not name or len(name) > 100 or not name.isprintable():
        raise InputError("--name must be 1 to 100 printable characters")
    ctx = Context(db_dir=Path(args.db) if args.db is not None else None, player=name)
    try:
        server = make_server(args.host, args.port, ctx, verbose=args.verbose)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host} port {args.port}: "
                         f"{exc.strerror or exc}") from None
    try:
        for plugin in ctx.games:  # a bad records file is refused before any play
            if plugin.check_records is not None:
                plugin.check_records(ctx)
        warm = [p.warm_up for p in ctx.games if p.warm_up is not None]
        if warm:
            print("jitgames serve: loading the solvers (a first run compiles them: up to "
                  "a few minutes)", file=sys.stderr, flush=True)
            for call in warm:
                call()
        if not is_loopback(args.host):
            print(f"warning: serving on {args.host}: anyone who can reach this machine can "
                  "use these pages and write your records", file=sys.stderr)
        print(f"jitgames serve: {server.url} (Ctrl-C stops)", flush=True)
        if args.browser:
            webbrowser.open(server.url)
        try:
            server.serve_forever(poll_interval=0.25)
        except KeyboardInterrupt:
            # the games being stored right now are let finish (a few seconds at most)
            server.app.wait_idle(5.0)
            print("jitgames serve: stopped; finished games are stored", file=sys.stderr)
            return 130
    finally:
        server.server_close()
    return 0


def main(argv=None) -> int:
    """Entry point; returns the exit status (130 after Ctrl-C)."""
    return run_cli(_main, argv, prog="jitgames serve")


if __name__ == "__main__":
    from .._cli import exit_process
    exit_process(main())
