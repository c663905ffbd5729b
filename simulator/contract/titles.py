"""The summary's figures as tables and the fidelity files name them: (summary key, title, format
for reading), in table order. A validation's files identify a figure by its title."""
from __future__ import annotations

SUMMARY_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("produce_requests", "produce requests", "{:,.0f}"),
    ("batches_per_request", "batches / request", "{:,.2f}"),
    ("mean_batch_bytes", "mean batch (KB of records)", "kb"),
    ("records_per_request", "records / request", "{:,.1f}"),
    ("compression_ratio", "compression ratio", "{:,.2f}"),
    ("load_seconds", "load (s)", "{:,.1f}"),
    ("handler_idle_pct_during", "handler idle during (%)", "{:,.1f}"),
    ("cpu_pct_during", "CPU during (%)", "{:,.1f}"),
)
