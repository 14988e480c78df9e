"""Bots: players, position evaluators and engines.

:mod:`fastgen.bots.evaluators` holds the evaluator protocol (cubeless equity, GNU
Backgammon's 0-ply net, a numpy network example, the greedy 0-ply player built on any
evaluator); :mod:`fastgen.bots.policies` ready-made batch policies (GNU Backgammon's net
through gnubg-nn, the shipped baseline network); :mod:`fastgen.bots.engines` runs
external programs (GNU Backgammon over its external-player socket) as policies; and
:mod:`fastgen.bots.external` answers GNU Backgammon's questions with a fastgen policy.
Policies follow the batch protocol of :func:`fastgen.rollout` and play in
:func:`fastgen.duel`.
"""
