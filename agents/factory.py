"""The agents' factory: an agent spec string (``random``, ``heuristic``, ``search:200``,
``zoo:cribbage_v0``, ...) -> an agent, and the game of an env id with its options.

The specs and the agent protocol are documented in ``muggins_env.agents`` (the package's
docstring), which re-exports every public name here. The core (``muggins_env.wrappers``) reaches
``make_agent`` through one lazy import of this module (tests/package/test_layers.py names it).
"""

from __future__ import annotations

from typing import Any

from muggins_env.agents.base import Agent, HeuristicBase, RandomAgent

from muggins_env.env import ADAPTER_OPTIONS
from muggins_env.games import declaration, declarations
from muggins_env.kernel.declaration import load_hook

AGENT_KINDS = ("random", "heuristic", "search", "ppo", "rllib", "zoo", "best", "openspiel", "llm")


def game_options(options: dict | None) -> dict:
    """``options`` without the adapter's own (``muggins_env.env.ADAPTER_OPTIONS``): the game's."""
    return {k: v for k, v in (options or {}).items() if k not in ADAPTER_OPTIONS}


def make_game(game_id: str, options: dict | None = None) -> Any:
    """The kernel ``Game`` of ``game_id`` with ``options`` (a clear ValueError when either is wrong)."""
    return declaration(game_id).game(**game_options(options))


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


#: the settings of ``search:N,key=value,...``
SEARCH_SETTINGS = ("budget", "z", "max_candidates", "horizon", "policy", "rollout", "prior", "value", "worlds", "alloc")
#: ``value=``: how a rollout is valued (``rollout``: the game's evaluator, the default; ``table``:
#: the position reached at the end of the deal, by the shipped position values: the evaluator its
#: game's declaration names as ``table_evaluator``)
SEARCH_VALUES = ("rollout", "table")
#: ``heuristic:value=``: what the heuristic weighs (``points``: expected points, the plain
#: ``heuristic``; ``table``: the chance to win by the shipped position values, the heuristic its
#: game's declaration names as ``table_heuristic``; ``net``: points less the next seat's expected
#: answer, its ``net_heuristic``)
HEURISTIC_VALUES = ("points", "table", "net")
#: the heuristic's spec in a few lines (``muggins-eval --list-agents`` prints it)
HEURISTIC_SPEC_HELP = """\
heuristic   the game's rule-based player (expected points); heuristic:value=points is the same player
heuristic:value=table   cribbage (2 players or 4 in partnerships, not lowball): lay-away and play weigh
    the chance to win from the board (the shipped position values), not points
heuristic:value=net   dominoes (every variant): each play ranked by its points less the next seat's
    expected best answer to it (what the play leaves open), not its points alone"""
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
    to win from the shipped position values), not by its points
search:N,worlds=inferred   the worlds also keep what the public moves showed (dominoes: a seat that drew
    or passed held no tile matching the ends then; cribbage: a seat that said go holds only cards above
    the room it had; Michigan: a leader holds no lower card of the suit it led); worlds=uniform (the
    default) re-deals by counts alone
search:N,alloc=halving   the N rollouts in rounds that drop the worse half of the candidates (sequential
    halving), so the best ones get more worlds; alloc=uniform (the default) plays every candidate in every world
search:N,alloc=race   rounds of worlds until the best candidate is settled (successive elimination: a
    candidate leaves once it trails the best by 2 standard errors, or equals it in every world), from
    0.3 N to 2.5 N rollouts a decision: more where the choice is close, fewer where it is clear"""


def _check_search_choices(spec: str, kwargs: dict) -> None:
    """The guided search's settings: ``policy`` an agent spec of a kind that plays from
    observations, ``rollout`` and ``prior`` one of their choices (clear errors naming them)."""
    from muggins_env.agents.search import ALLOCS, POLICY_KINDS, PRIORS, ROLLOUTS, WORLDS

    for key, allowed in (("rollout", ROLLOUTS), ("prior", PRIORS), ("value", SEARCH_VALUES), ("worlds", WORLDS),
                         ("alloc", ALLOCS)):
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
        from muggins_env.agents.llm import parse_llm_spec

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
    if kind == "random" and (positional or kwargs):
        raise ValueError(f"agent spec {spec!r}: {kind} takes no arguments")
    if kind == "heuristic" and (positional or set(kwargs) - {"value"} or kwargs.get("value", "points")
                                not in HEURISTIC_VALUES):
        raise ValueError(f"agent spec {spec!r}: heuristic takes nothing or one setting, value="
                         f"{'|'.join(HEURISTIC_VALUES)} (e.g. heuristic:value=table)")
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
    """The heuristic and the search evaluator the game's declaration names."""
    decl = declaration(game_id)
    return load_hook(decl.heuristic), (load_hook(decl.evaluator) if decl.evaluator is not None else None)


def make_heuristic(game_id: str, options: dict | None = None, game: Any = None) -> HeuristicBase:
    game = game if game is not None else make_game(game_id, options)
    cls, _ = _heuristic_parts(game_id)
    return cls(game)


def _declared_hook(spec: str, game_id: str, game: Any, field: str, needs: str, setting: str = "value=table") -> Any:
    """``value=table`` (or ``setting``): the hook ``game_id``'s declaration names as ``field``
    (``table_heuristic``, ``table_evaluator``, ``net_heuristic``) built for ``game``, or a
    ValueError naming the games that have one."""
    path = getattr(declaration(game_id), field)
    if path is None:
        with_tables = [g for g, d in declarations().items() if getattr(d, field) is not None]
        raise ValueError(f"agent spec {spec!r}: {setting} needs {needs}, which exist for "
                         f"{', '.join(with_tables)} only (not {game_id})")
    try:
        return load_hook(path)(game)
    except ValueError as e:  # a configuration without a table names the ones with
        raise ValueError(f"agent spec {spec!r}: {e}") from None


def make_agent(spec: str, game_id: str, options: dict | None = None) -> Agent:
    """The agent named by ``spec`` for ``game_id`` with env ``options``."""
    kind, arg, kwargs = parse_spec(spec)
    game = make_game(game_id, options)  # validates the game id and the options
    if kind == "random":
        return RandomAgent()
    if kind == "ppo":
        from muggins_env.agents.ppo import load_ppo_agent  # lazily: torch is never needed for other specs

        return load_ppo_agent(arg, game_id, options)
    if kind == "rllib":
        from muggins_env.agents.ppo import load_rllib_agent

        return load_rllib_agent(arg, game_id, options)
    if kind == "zoo":
        from muggins_env.agents.zoo import load_zoo_agent

        return load_zoo_agent(arg, game_id, options)
    if kind == "best":
        from muggins_env.agents.zoo import load_best_agent

        return load_best_agent(arg, game_id, options)
    if kind == "openspiel":  # the [openspiel] extra
        from muggins_env.agents.openspiel import make_openspiel_agent

        return make_openspiel_agent(arg, game_id, options)
    if kind == "llm":  # standard library only: urllib to the endpoint
        from muggins_env.agents.llm import make_llm_agent

        return make_llm_agent(spec.strip(), kwargs, game_id, options)
    cls, ev_cls = _heuristic_parts(game_id)
    if kind == "heuristic" and kwargs.get("value") == "table":
        return _declared_hook(spec, game_id, game, "table_heuristic", "position values and a heuristic that reads them")
    if kind == "heuristic" and kwargs.get("value") == "net":
        return _declared_hook(spec, game_id, game, "net_heuristic", "a heuristic that weighs the next seat's answer",
                              setting="value=net")
    heuristic = cls(game)
    if kind == "heuristic":
        return heuristic
    from muggins_env.agents.search import SearchAgent

    evaluator = ev_cls(game) if ev_cls is not None else None
    if kwargs.pop("value", "rollout") == "table":
        evaluator = _declared_hook(spec, game_id, game, "table_evaluator", "position values")
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
