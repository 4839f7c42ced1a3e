"""Draw plots/kalah_endgame.png (endgame database size against build time and the
search nodes it saves) from bench/results/kalah.json. Run after ``bench/kalah.py``."""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main():
    results = json.loads((ROOT / "bench" / "results" / "kalah.json").read_text())
    rows = results["endgame"]
    stones = [r["endgame_stones"] for r in rows]
    fig, left = plt.subplots(figsize=(6, 3.6))
    left.plot(stones, [r["build_seconds"] for r in rows], "o-", color="tab:blue",
              label="database build (s)")
    left.plot(stones, [r["search_seconds"] for r in rows], "s-", color="tab:green",
              label="search (s)")
    left.set_xlabel("stones in play covered by the endgame database")
    left.set_ylabel("seconds")
    left.set_yscale("log")
    right = left.twinx()
    right.plot(stones, [r["search_nodes"] for r in rows], "^--", color="tab:red",
               label="search nodes")
    right.set_ylabel("search nodes", color="tab:red")
    right.set_yscale("log")
    left.set_title(f"{rows[0]['board']}: endgame database size/time trade-off")
    handles = left.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    left.legend(handles, [h.get_label() for h in handles], fontsize=8, loc="upper center")
    fig.tight_layout()
    out = ROOT / "plots" / "kalah_endgame.png"
    fig.savefig(out, dpi=120)
    print(f"saved {out}")


if __name__ == "__main__":
    main()
