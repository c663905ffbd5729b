"""Tables measured on multi-host Kafka clusters by others, the model's figures beside them.

Every table in workloads/catalog/published/ (tuner/published.py): each row on the model (seed 1),
the published figures and the model's side by side, what set the model's figures (each producer's
append rate, its sender's drain interval, batch size, compression, requests, the busiest broker's
CPU), then the table's verdict on shape, figure by figure: every ordering it shows and every ratio
between two of its rows within 1.5x; a miss names the pair and its numbers.

    .venv/bin/python bench/published_clusters.py [table-name ...]
"""
from __future__ import annotations

import sys

from simulator.evaluator import model_evaluator
from tuner.published import run_table, tables


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"


def main(names: list[str]) -> int:
    evaluator = model_evaluator()
    held = 0
    chosen = [t for t in tables() if not names or t.name in names]
    for table in chosen:
        run = run_table(table, evaluator)
        print(f"\n{table.name}: {table.title}\n  {table.source} ({table.published_by})")
        figures = [f"{name.removesuffix('_ms')} {unit} (published / model)" for name, unit in table.figures.items()]
        print("  " + " | ".join(["row", *figures, *run.rows[0].mechanism()]))
        for row in run.rows:
            pairs = [f"{row.row.published[name]:g} / {row.model[name]:.1f}" for name in table.figures]
            print("  " + " | ".join([row.row.label, *pairs, *(_cell(v) for v in row.mechanism().values())]))
        for name, verdict in run.verdicts.items():
            print(f"  {name}: {'HOLDS' if verdict.holds else 'MISSES'} ({verdict.orderings} orderings shown, "
                  f"{len(run.rows) * (len(run.rows) - 1) // 2} ratios)")
            for miss in verdict.misses:
                print(f"    - {miss}")
        held += run.holds
    print(f"\n{held} of {len(chosen)} tables hold their shape on the model")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
