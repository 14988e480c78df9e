"""Bots: move-choosing policies and engines that play whole games with fastgen.

:mod:`fastgen.bots.policies` holds ready-made batch policies (GNU Backgammon's neural
net through gnubg-nn, the shipped baseline network), :mod:`fastgen.bots.engines` runs
external programs (GNU Backgammon over its external-player socket) as policies, and
:mod:`fastgen.bots.external` answers GNU Backgammon's questions with a fastgen policy.
Every policy follows the batch protocol of :func:`fastgen.rollout` and plays in
:func:`fastgen.duel`.
"""
