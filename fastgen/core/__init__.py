"""The compiled engine and its Python entry points.

``_core`` (Cython, no GIL) generates and counts legal plays, plays native games and
merges perft levels; ``generate`` is its checked Python front (``legal_plays``,
``plays_batch``, ``count_plays_batch``); ``plays`` holds the result containers;
``boards`` validates boards and dice at the boundary (R4); ``features`` encodes boards
as network inputs (``_features``).
"""
