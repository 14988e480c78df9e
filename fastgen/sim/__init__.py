"""Many games: rollouts (in process and on Dask), pubeval, perft and the benchmark
workloads."""
