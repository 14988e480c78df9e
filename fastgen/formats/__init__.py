"""Files and other programs' layouts: the checked way in for every file fastgen reads
(``checked``: regular files only, sizes bounded before allocating), match files (text
``.mat`` in ``matfile``, read in bulk by the compiled scanner of ``_matscan`` through
``matbatch``; GNU Backgammon's ``.sgf`` in ``sgf`` and ``sgfprops``; eXtreme Gammon's
``.xg`` in ``xg`` and ``xgrecords``; ``reader`` tells them apart) and board conversions
(``convert``). Move text and IDs are the core's vocabulary (:mod:`fastgen.core.notation`,
:mod:`fastgen.core.ids`); FIBS lines are :mod:`fastgen.fibs`.
"""
