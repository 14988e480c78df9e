"""Files and other programs' layouts: the checked way in for every file fastgen reads
(``checked``: regular files only, sizes bounded before allocating), ``.mat`` match files
(``matfile``) and board conversions (``convert``). Move text and IDs are the core's vocabulary
(:mod:`fastgen.core.notation`, :mod:`fastgen.core.ids`); FIBS lines are :mod:`fastgen.fibs`.
"""
