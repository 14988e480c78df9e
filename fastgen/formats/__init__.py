"""Files and other programs' layouts: ``.mat`` match files (``matfile``) and board
conversions (``convert``). Move text and IDs are the core's vocabulary
(:mod:`fastgen.core.notation`, :mod:`fastgen.core.ids`); FIBS lines are :mod:`fastgen.fibs`.
"""
