"""Duels: one policy against another over mirrored games (``front``), played in batches
(``play``) or in chunks on Dask (``chunks``); a fastgen policy serving GNU Backgammon's
external-player socket (``external``)."""
