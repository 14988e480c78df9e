"""The compiled engine and its Python entry points.

``_core`` (Cython, no GIL) generates and counts legal plays; ``generate`` is its checked
Python front (``legal_plays``, ``plays_batch``, ``count_plays_batch``); ``plays`` holds
the result containers; ``boards`` validates boards and dice at the boundary (R4);
``features`` encodes boards as network inputs (``_features``); ``hashing`` is the rollout
hash (its dice drawn in compiled code by ``_roll``, which also holds the random policy's
native chooser); ``state`` is the state of a game beside its checkers (``MatchState``),
and ``ids`` the IDs that carry a position and that state. The extensions built on ``_core``'s
declarations (``_core.pxd``) live on the floors that use them: the game loops in
``fastgen.sim``, pubeval in ``fastgen.players``, perft's steps for ``fastgen.search.perft``;
``_chooser`` is the core's ABI of a native policy, which lets the random policy, pubeval
and a network's greedy play (``fastgen.nets``) run in the game loops with neither
importing the other.
"""
