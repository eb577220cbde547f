"""The terminal face of a game session: ``muggins-play`` (``play.py``) and ``muggins-replay``
(``replay.py``), drawn with rich; ``text.py`` holds the plain-text lines they share with
``make play``. No rules here: everything comes from ``muggins_env.play.session`` and the records."""
