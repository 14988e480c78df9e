"""Game flow: one game with its cube and record (``Game``), and matches (``Match``)."""
