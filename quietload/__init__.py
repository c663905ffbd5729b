"""quietload: simulate and tune batch-job workloads."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("quietload")
except PackageNotFoundError:  # running from a tree that is not installed
    __version__ = "0+unknown"
