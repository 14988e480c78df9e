# cython: language_level=3
"""A native policy as one extension hands it to the game loops of another: a C function
and its state (``Chooser``, declared in fastgen/core/_chooser.pxd).

Private module, the smallest extension: it holds only the base class. The extension that
makes a policy subclasses it and sets the function and its state (fastgen.nets: a
compiled network's greedy play); the game loops that call it (fastgen.sim._play) know
only this class, so neither imports the other.
"""


cdef class Chooser:
    """A policy of another extension for the game loops (see _chooser.pxd): a C function
    and its state, set by that extension (fastgen.nets: a compiled network's greedy play)."""

    def __cinit__(self, *args, **kwargs):  # a subclass's arguments are its own
        self.fn = NULL
        self.state = NULL
