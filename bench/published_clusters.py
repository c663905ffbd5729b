"""Tables measured on multi-host Kafka clusters by others, the model's figures beside them.

Every table in workloads/catalog/published/ (tuner/published.py): each row on the model (seed 1),
the published figure and the model's side by side, what set the model's figure (each producer's
append rate, its sender's drain interval, batch size, compression, requests, the busiest broker's
CPU), then the table's verdict on shape: every ordering it shows and every ratio between two of its
rows within 1.5x; a miss names the pair and its numbers. The anchor row sets the producers' append
rate (the tool's own cost per record is in neither the model nor the profile), so its level is not
a prediction; the ratios to it are.

    .venv/bin/python bench/published_clusters.py [table-name ...]
"""
from __future__ import annotations

import sys

from simulator.evaluator import model_evaluator
from tuner.published import tables, run_table


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"


def main(names: list[str]) -> int:
    evaluator = model_evaluator()
    held = 0
    chosen = [t for t in tables() if not names or t.name in names]
    for table in chosen:
        run = run_table(table, evaluator)
        print(f"\n{table.name}: {table.title}\n  {table.source} ({table.published_by})")
        mechanism = list(run.rows[0].mechanism())
        print("  " + " | ".join(["row", f"published {table.unit}", f"model {table.unit}", *mechanism]))
        for row in run.rows:
            anchor = " (anchor)" if row.row.label == table.anchor else ""
            print("  " + " | ".join([row.row.label + anchor, f"{row.row.published:g}", f"{row.model:.1f}",
                                     *(_cell(v) for v in row.mechanism().values())]))
        verdict = run.verdict
        print(f"  verdict: {'HOLDS' if verdict.holds else 'MISSES'} ({verdict.orderings} orderings shown, "
              f"{len(run.rows) * (len(run.rows) - 1) // 2} ratios)")
        for miss in verdict.misses:
            print(f"    - {miss}")
        held += verdict.holds
    print(f"\n{held} of {len(chosen)} tables hold their shape on the model")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
