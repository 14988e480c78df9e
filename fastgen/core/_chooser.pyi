"""Type stubs of the native policy's base class (fastgen/core/_chooser.pyx)."""

class Chooser:
    """A policy of another extension for the game loops (fastgen.nets: a network's greedy play)."""
