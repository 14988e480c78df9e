"""Searching the game tree: perft's exact counts of the nodes at each depth, in process or on Dask (:mod:`fastgen.search.perft`).

Its functions are reached from the top level as :func:`fastgen.perft` and
:func:`fastgen.perft_weighted`; :func:`fastgen.search.perft.perft_run` also gives the split
and the time taken.
"""
