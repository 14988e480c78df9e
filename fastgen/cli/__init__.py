"""The ``fastgen`` command: one module per subcommand, ``main`` dispatches."""
