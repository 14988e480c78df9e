"""Players and position evaluators: :mod:`fastgen.bots.evaluators` (the evaluator protocol,
cubeless equity, GNU Backgammon's 0-ply net, a numpy network example, the greedy 0-ply
player built on any evaluator)."""
