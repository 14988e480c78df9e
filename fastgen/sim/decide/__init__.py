"""Decision rollouts: every candidate play of a roll, or one position, rolled out with an
evaluator (``front``); the trials (``trials``) and their dice (``dice``), chunks on Dask
with resume (``chunks``), the ranked table (``table``)."""
