"""The CLI's bad-input assertions (tests/quietload/_bad_input.py) for the import's CloudWatch cases; live_cluster beside."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "quietload"))
