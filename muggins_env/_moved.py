"""The old import paths of what moved above the core (issue 30): deprecated aliases.

The session and its faces (``muggins_env.session``, ``.tui``, ``.web``, ``.demo``) now live in
``muggins_env.play``, the model zoo in ``muggins_env.agents.zoo``. Each old module is a file of
two lines calling ``alias``: it warns (``DeprecationWarning``) and puts the new module in its
own place in ``sys.modules``, so the old name is the very same module object (its functions,
classes and globals are the new module's; a monkeypatch through either name reaches both).
Run as a script (``python -m muggins_env.web.cli``) it runs the new module as ``__main__``.
An old package that holds old modules (``muggins_env.web``, ``muggins_env.tui``) stays a
package of its own (its ``__path__`` must find the old module files) and hands out the new
package's attributes (``forward``).

These files are the only code of the core that names a package above it, and they do so only
to be replaced; nothing else may (tests/test_layers.py).
"""

from __future__ import annotations

import importlib
import runpy
import sys
import warnings
from collections.abc import Callable
from types import ModuleType


def _warn(old: str, new: str, script: bool) -> None:
    # stacklevel: 1 this function, 2 its caller here, 3 the old module, 4 the code importing it
    # (importlib's own frames are skipped); as a script, the old module itself (__main__:
    # Python shows deprecation warnings raised there)
    warnings.warn(f"{old} is deprecated: it moved to {new}; use {new}", DeprecationWarning,
                  stacklevel=3 if script else 4)


def alias(old: str, new: str, name: str) -> None:
    """In the old module ``old`` (whose ``__name__`` is ``name``): become module ``new``."""
    script = name == "__main__"
    _warn(old, new, script)
    if script:
        runpy.run_module(new, run_name="__main__", alter_sys=True)
        return
    sys.modules[old] = importlib.import_module(new)


def forward(old: str, new: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` of the old package ``old``: the attributes of ``new``."""
    _warn(old, new, False)
    target: ModuleType = importlib.import_module(new)

    def __getattr__(attr: str) -> object:
        try:
            return getattr(target, attr)
        except AttributeError:
            raise AttributeError(f"module {old!r} (deprecated, now {new}) has no attribute {attr!r}") from None

    def __dir__() -> list[str]:
        return sorted(set(dir(target)))

    return __getattr__, __dir__
