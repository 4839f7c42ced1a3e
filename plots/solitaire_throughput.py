"""Draw plots/solitaire_throughput.png from bench/results/solitaire.json.

    python plots/solitaire_throughput.py
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    report = json.loads((ROOT / "bench" / "results" / "solitaire.json").read_text())
    runs = report["runs"]
    labels = [f"{r['mode']}\n{r['threads']} thread{'s' if r['threads'] > 1 else ''}" for r in runs]
    wall = [r["deals_per_second"] for r in runs]
    cpu = [r["deals_per_cpu_second"] for r in runs]
    fig, ax = plt.subplots(figsize=(7.5, 4), dpi=120)
    xs = range(len(runs))
    ax.bar([x - 0.2 for x in xs], wall, width=0.4, label="deals per wall second", color="#3a6ea5")
    ax.bar([x + 0.2 for x in xs], cpu, width=0.4, label="deals per CPU second", color="#9cb8d9")
    ax.axhline(3000, color="#c0392b", ls="--", lw=1, label="target: 3,000 deals/s on one thread")
    ax.set_xticks(list(xs), labels)
    ax.set_ylabel("deals per second")
    ax.set_title(f"Solitaire solver throughput, {report['deals']:,} deals "
                 f"(median of {report['repeats']}; load avg {report['machine']['load_average'][0]:.1f})")
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    fig.savefig(ROOT / "plots" / "solitaire_throughput.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
