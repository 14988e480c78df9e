"""The package version (kept in step with pyproject.toml's ``version``)."""

__version__ = "0.1.0"
