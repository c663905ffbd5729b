"""The command line: each command parses, builds value objects, calls one library function and renders."""


def __getattr__(name: str) -> str:
    # read from the installed metadata only when asked: importlib.metadata costs every command's start
    if name != "__version__":
        raise AttributeError(f"module 'quietload' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("quietload")
    except PackageNotFoundError:  # running from a tree that is not installed
        return "0+unknown"
