"""Baseline agents of muggins_env, named by spec strings used everywhere.

| spec | agent |
|---|---|
| ``random`` | uniform over the legal actions (every game) |
| ``heuristic`` | the game's documented strategy (``agents/heuristic_<game>.py``) |
| ``search`` / ``search:N`` | determinised Monte-Carlo over heuristic rollouts, N rollouts per decision (default 200); extra settings as ``search:N,z=0.5,max_candidates=4,horizon=40`` |
| ``search:N,policy=SPEC`` | policy-guided search: the agent spec ``SPEC`` (``zoo:...``, ``ppo:...``, ``rllib:...``, ``heuristic``, ``random``) plays the rollouts from each seat's observation, mask and view (``rollout=policy``, the default with a policy; ``rollout=heuristic`` keeps the heuristic's); ``prior=policy`` takes the candidates and the kept move from the policy's ranking instead of the heuristic's (``prior=heuristic``, the default); ``prior=hybrid`` keeps the heuristic's candidates, adds the policy's move and keeps it without evidence; e.g. ``search:200,policy=zoo:cribbage_v0`` or ``search:200,policy=zoo:cribbage_v0,rollout=heuristic,prior=policy`` |
| ``search:N,value=table`` | the search whose rollouts, stopped at the end of the deal (hand), are valued by the shipped position values (``agents/position_values.py``: the chance to win from the position reached) instead of the points: cribbage with 2 or 4 players, Muggins dominoes with 2 or 4 in partnerships |
| ``ppo:path`` | a trained MaskablePPO policy (``agents/ppo.py``; torch only if a .zip must be read) |
| ``rllib:path`` | a policy trained by ``muggins-train --backend rllib``, exported to numpy (no Ray, no torch) |
| ``zoo:env_id`` / ``zoo:env_id/name`` | a trained policy shipped in the package (``muggins_env/zoo``; no torch) |
| ``best:env_id`` / ``best:env_id/name`` | the strongest player the package ships for that zoo configuration (``muggins_env/zoo/players.json``: today the search guided by its network) |
| ``openspiel:ismcts[:N]`` / ``openspiel:mcts[:N]`` | OpenSpiel's Python IS-MCTS (or MCTS on one determinisation), N simulations per move (default 200), through the bridge (``agents/openspiel.py``; the ``[openspiel]`` extra) |
| ``llm:model=NAME,base_url=URL[,...]`` | a language model over any OpenAI-compatible ``/v1/chat/completions`` endpoint, from the text view of its seat (``agents/llm.py``: settings, answer format, retries, fallback) |

``make_agent(spec, game_id, options)`` builds one; the protocol is in ``agents/base.py``:
``act(observation, action_mask, rng, info=None) -> int`` where ``info`` is the player's
readable view (or the env ``infos`` entry holding it under ``"view"``) and, for search
agents, ``info["resample"]``, a sampler of determinised states. Agents never see the full
state.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Agent, HeuristicBase, RandomAgent, player_view, state_sampler

__all__ = [
    "AGENT_KINDS",
    "HEURISTICS",
    "SEARCH_SETTINGS",
    "SEARCH_SPEC_HELP",
    "SEARCH_VALUES",
    "TABLE_EVALUATORS",
    "Agent",
    "HeuristicBase",
    "RandomAgent",
    "make_agent",
    "make_heuristic",
    "parse_spec",
    "player_view",
    "state_sampler",
]

AGENT_KINDS = ("random", "heuristic", "search", "ppo", "rllib", "zoo", "best", "openspiel", "llm")

#: game id -> "module:Heuristic[:Evaluator]" (modules of this package, imported lazily)
HEURISTICS = {
    "muggins_cards_v0": "heuristic_muggins_cards:MugginsCardsHeuristic:MugginsCardsEvaluator",
    "cribbage_v0": "heuristic_cribbage:CribbageHeuristic:CribbageEvaluator",
    "muggins_dominoes_v0": "heuristic_dominoes:DominoesHeuristic:DominoesEvaluator",
    "michigan_v0": "heuristic_michigan:MichiganHeuristic:MichiganEvaluator",
}

#: adapter options that are not game options
_ADAPTER_OPTIONS = ("skip_forced", "render_mode", "readable_infos")


def game_options(options: dict | None) -> dict:
    return {k: v for k, v in (options or {}).items() if k not in _ADAPTER_OPTIONS}


def make_game(game_id: str, options: dict | None = None) -> Any:
    """The kernel ``Game`` of ``game_id`` with ``options`` (a clear ValueError when either is wrong)."""
    from muggins_env import ENV_NAMES, game_class

    if game_id not in ENV_NAMES and game_id in HEURISTICS:  # a game module not yet listed in ENV_NAMES
        try:
            cls = importlib.import_module(f"muggins_env.{game_id}").raw_env.game_cls
        except ImportError:
            cls = None
        if cls is not None:
            return cls(**game_options(options))
    return game_class(game_id)(**game_options(options))


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


#: the settings of ``search:N,key=value,...``
SEARCH_SETTINGS = ("budget", "z", "max_candidates", "horizon", "policy", "rollout", "prior", "value")
#: ``value=``: how a rollout is valued (``rollout``: the game's evaluator, the default; ``table``:
#: the position reached at the end of the deal, by the shipped position values)
SEARCH_VALUES = ("rollout", "table")
#: game id -> "module:Evaluator" valuing rollouts by the position values (``search:N,value=table``)
TABLE_EVALUATORS = {"cribbage_v0": "heuristic_cribbage:CribbageTableEvaluator",
                    "muggins_dominoes_v0": "heuristic_dominoes:DominoesTableEvaluator"}
#: the search's spec in a few lines (``muggins-eval --list-agents`` prints it)
SEARCH_SPEC_HELP = """\
search:N[,z=1.0][,max_candidates=6][,horizon=H]   N heuristic rollouts per decision (default 200)
search:N,policy=SPEC[,rollout=policy|heuristic][,prior=heuristic|policy|hybrid]   policy-guided search:
    SPEC is an agent spec that plays from observations (zoo:..., ppo:..., rllib:..., heuristic,
    random); rollout=policy (the default with a policy) lets it play every seat of the rollouts,
    prior=policy takes the candidates and the move kept without evidence from its ranking,
    prior=hybrid keeps the heuristic's candidates, adds the policy's move and keeps it without evidence;
    e.g. search:200,policy=zoo:cribbage_v0   search:200,policy=zoo:cribbage_v0,rollout=heuristic,prior=policy
search:N,value=table   cribbage (2 players or 4), dominoes (2 players, 4 in partnerships, default game):
    each rollout stops at the end of the deal (hand) and is valued by the position reached (the chance
    to win from the shipped position values), not by its points"""


def _check_search_choices(spec: str, kwargs: dict) -> None:
    """The guided search's settings: ``policy`` an agent spec of a kind that plays from
    observations, ``rollout`` and ``prior`` one of their choices (clear errors naming them)."""
    from .search import POLICY_KINDS, PRIORS, ROLLOUTS

    for key, allowed in (("rollout", ROLLOUTS), ("prior", PRIORS), ("value", SEARCH_VALUES)):
        if key in kwargs and kwargs[key] not in allowed:
            raise ValueError(f"agent spec {spec!r}: search setting {key}={kwargs[key]!r} is not allowed; "
                             f"allowed: {', '.join(allowed)}")
    if "policy" in kwargs:
        policy = kwargs["policy"]
        hint = (f"give an agent spec of kind {', '.join(POLICY_KINDS)} (e.g. policy=zoo:cribbage_v0, "
                "policy=ppo:runs/x/model.zip, policy=heuristic)")
        if not isinstance(policy, str) or not policy.strip():
            raise ValueError(f"agent spec {spec!r}: search setting policy={policy!r} is not an agent spec; {hint}")
        try:
            pkind, _, _ = parse_spec(policy)
        except ValueError as e:
            raise ValueError(f"agent spec {spec!r}: search setting policy={policy!r} is not a valid agent "
                             f"spec ({e}); {hint}") from None
        if pkind not in POLICY_KINDS:
            raise ValueError(f"agent spec {spec!r}: search setting policy={policy!r} cannot guide a search "
                             f"(kind {pkind!r}); {hint}")
        kwargs["policy"] = policy.strip()
    else:
        for key in ("rollout", "prior"):
            if kwargs.get(key) in ("policy", "hybrid"):
                raise ValueError(f"agent spec {spec!r}: search setting {key}={kwargs[key]} needs policy=<agent spec> "
                                 f"(e.g. search:200,policy=zoo:cribbage_v0,{key}={kwargs[key]})")


def parse_spec(spec: str) -> tuple[str, str, dict[str, Any]]:
    """``"search:200,z=0.5"`` -> ``("search", "200", {"z": 0.5})``; ``"ppo:runs/x/model.zip"``
    -> ``("ppo", "runs/x/model.zip", {})``. Raises ValueError naming the known kinds."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec {spec!r} is not a string; known kinds: {', '.join(AGENT_KINDS)} "
                         "(e.g. random, heuristic, search:200, ppo:path/to/model.zip)")
    spec = spec.strip()
    kind, _, arg = spec.partition(":")
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent spec {spec!r}; known kinds: {', '.join(AGENT_KINDS)} "
                         "(e.g. random, heuristic, search:200, ppo:path/to/model.zip)")
    if kind in ("ppo", "rllib"):
        if not arg:
            raise ValueError(f"agent spec {spec!r}: give the model path, e.g. {kind}:runs/michigan")
        return kind, arg, {}
    if kind in ("zoo", "best"):
        if not arg:
            raise ValueError(f"agent spec {spec!r}: name the model, e.g. {kind}:cribbage_v0 or {kind}:cribbage_v0/4p")
        return kind, arg, {}
    if kind == "openspiel":
        if not arg:
            raise ValueError(f"agent spec {spec!r}: name the OpenSpiel bot, e.g. openspiel:ismcts or openspiel:ismcts:500")
        return kind, arg, {}
    if kind == "llm":
        from .llm import parse_llm_spec

        return kind, "", parse_llm_spec(spec, arg)
    kwargs: dict[str, Any] = {}
    parts = [p for p in arg.split(",") if p] if arg else []
    positional = ""
    for p in parts:
        if "=" in p:
            k, _, v = p.partition("=")
            kwargs[k.strip()] = _parse_value(v.strip())
        elif not positional and not kwargs:
            positional = p.strip()
        else:
            raise ValueError(f"agent spec {spec!r}: cannot read {p!r} (use key=value)")
    if kind in ("random", "heuristic") and (positional or kwargs):
        raise ValueError(f"agent spec {spec!r}: {kind} takes no arguments")
    if kind == "search":
        bad = sorted(set(kwargs) - set(SEARCH_SETTINGS))
        if bad:
            raise ValueError(f"agent spec {spec!r}: unknown search setting(s) {bad}; allowed: "
                             f"{', '.join(SEARCH_SETTINGS)}")
        _check_search_choices(spec, kwargs)
        if positional:
            if not positional.isdigit() or int(positional) < 1:
                raise ValueError(f"agent spec {spec!r}: search:N needs N, the rollouts per decision, an int >= 1")
            kwargs["budget"] = int(positional)
    return kind, positional, kwargs


def _heuristic_parts(game_id: str) -> tuple[type, type | None]:
    if game_id not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game_id!r}; games with one: {', '.join(HEURISTICS)}")
    module, cls, *ev = HEURISTICS[game_id].split(":")
    mod = importlib.import_module(f"{__name__}.{module}")
    return getattr(mod, cls), (getattr(mod, ev[0], None) if ev else None)


def make_heuristic(game_id: str, options: dict | None = None, game: Any = None) -> HeuristicBase:
    game = game if game is not None else make_game(game_id, options)
    cls, _ = _heuristic_parts(game_id)
    return cls(game)


def make_agent(spec: str, game_id: str, options: dict | None = None) -> Agent:
    """The agent named by ``spec`` for ``game_id`` with env ``options``."""
    kind, arg, kwargs = parse_spec(spec)
    game = make_game(game_id, options)  # validates the game id and the options
    if kind == "random":
        return RandomAgent()
    if kind == "ppo":
        from .ppo import load_ppo_agent  # lazily: torch is never needed for other specs

        return load_ppo_agent(arg, game_id, options)
    if kind == "rllib":
        from .ppo import load_rllib_agent

        return load_rllib_agent(arg, game_id, options)
    if kind == "zoo":
        from .zoo import load_zoo_agent

        return load_zoo_agent(arg, game_id, options)
    if kind == "best":
        from .zoo import load_best_agent

        return load_best_agent(arg, game_id, options)
    if kind == "openspiel":  # the [openspiel] extra
        from .openspiel import make_openspiel_agent

        return make_openspiel_agent(arg, game_id, options)
    if kind == "llm":  # standard library only: urllib to the endpoint
        from .llm import make_llm_agent

        return make_llm_agent(spec.strip(), kwargs, game_id, options)
    cls, ev_cls = _heuristic_parts(game_id)
    heuristic = cls(game)
    if kind == "heuristic":
        return heuristic
    from .search import SearchAgent

    evaluator = ev_cls(game) if ev_cls is not None else None
    if kwargs.pop("value", "rollout") == "table":
        if game_id not in TABLE_EVALUATORS:
            raise ValueError(f"agent spec {spec!r}: value=table needs position values, which exist for "
                             f"{', '.join(TABLE_EVALUATORS)} only (not {game_id})")
        module, name = TABLE_EVALUATORS[game_id].split(":")
        try:
            evaluator = getattr(importlib.import_module(f"{__name__}.{module}"), name)(game)
        except ValueError as e:
            raise ValueError(f"agent spec {spec!r}: {e}") from None
    policy_spec = kwargs.pop("policy", None)
    if policy_spec is not None:
        try:
            kwargs["policy"] = make_agent(policy_spec, game_id, options)
        except (ValueError, FileNotFoundError, OSError) as e:
            raise ValueError(f"agent spec {spec!r}: the search's policy={policy_spec!r} cannot play "
                             f"{game_id} with options {options or {}}: {e}") from None
        kwargs["policy_spec"] = policy_spec
    try:
        return SearchAgent(game, heuristic, evaluator, **kwargs)
    except TypeError as e:  # a make_agent caller's typo never gets past parse_spec; this names it
        raise ValueError(f"agent spec {spec!r}: {e}") from None
