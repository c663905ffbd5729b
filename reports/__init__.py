"""Turns result files into tables and reports."""
from pathlib import Path

DEFAULT_OUT_DIR = Path("reports-out")   # where `quietload report` writes, unless --out says
