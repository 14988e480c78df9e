"""The reference oracle: a slow, readable move generator written from the rules, sharing no code with the core (:mod:`fastgen.reference.oracle`)."""

from fastgen.reference.oracle import legal_plays

__all__ = ["legal_plays"]
