"""Rollouts: games played to the end from start positions by a policy (``front``), in
process (``pool``) or in chunks on Dask with resume (``chunks``); their results
(``results``)."""
