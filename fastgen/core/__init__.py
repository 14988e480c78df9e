"""The compiled engine and its Python entry points.

``_core`` (Cython, no GIL) generates and counts legal plays; ``generate`` is its checked
Python front (``legal_plays``, ``plays_batch``, ``count_plays_batch``); ``plays`` holds
the result containers; ``boards`` validates boards and dice at the boundary (R4);
``features`` encodes boards as network inputs (``_features``). ``_play``, an extension of
its own built on ``_core``'s declarations (``_core.pxd``), runs the simulation and policy
loops: native games, the rollout pool's turn, duels, perft's merges and pubeval; the
Python layers above (``fastgen.sim``, ``fastgen.perft``, ``fastgen.players.pubeval``) call it.
"""
