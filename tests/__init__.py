"""The project's tests, by subject: kernel/, games/<game>/, env/, agents/, train/, eval/, play/,
docs/, package/ (the layout and the install), equivalence/ (every fast path against its
reference, and the recorded default games). Shared helpers live beside this file
(``conformance.py``), recorded data in ``data/``; tests import them as ``tests.…``."""

from pathlib import Path

#: the checkout, and the tests' recorded data: paths never depend on where a test file sits
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
