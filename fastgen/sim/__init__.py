"""Many games, cut by job: ``rollout/`` (games to the end, in process and on Dask),
``decide/`` (rollouts that rank the plays of a decision), ``duel/`` (one policy against
another, and serving a policy to GNU Backgammon), over a shared chunk store (``store``)
and cluster layer (``cluster``)."""
