"""The one error of the contract's readers."""


class ResultError(ValueError):
    """A file that is not a quietload file of this schema: one line naming what is wrong."""
