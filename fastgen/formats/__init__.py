"""Text and files: Position and Match IDs, move notation, checked move text
(``parse_play``, ``check_play``), other programs' board layouts and ``.mat`` match files.
"""
