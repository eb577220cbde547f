"""Baseline agents of muggins_env, named by spec strings used everywhere.

| spec | agent |
|---|---|
| ``random`` | uniform over the legal actions (every game) |
| ``heuristic`` | the game's documented strategy (``agents/heuristic_<game>.py``); ``heuristic:value=points`` is the same player |
| ``heuristic:value=table`` | the heuristic that weighs the chance to win instead of points (``agents/heuristic_cribbage_table.py``): lay-away, play and leads ranked by the side's chance to win through the rest of the deal and the shipped position values at the next deal's start; cribbage with 2 players or 4 in partnerships, not lowball |
| ``search`` / ``search:N`` | determinised Monte-Carlo over heuristic rollouts, N rollouts per decision (default 200); extra settings as ``search:N,z=0.5,max_candidates=4,horizon=40`` |
| ``search:N,policy=SPEC`` | policy-guided search: the agent spec ``SPEC`` (``zoo:...``, ``ppo:...``, ``rllib:...``, ``heuristic``, ``random``) plays the rollouts from each seat's observation, mask and view (``rollout=policy``, the default with a policy; ``rollout=heuristic`` keeps the heuristic's); ``prior=policy`` takes the candidates and the kept move from the policy's ranking instead of the heuristic's (``prior=heuristic``, the default); ``prior=hybrid`` keeps the heuristic's candidates, adds the policy's move and keeps it without evidence; e.g. ``search:200,policy=zoo:cribbage_v0`` or ``search:200,policy=zoo:cribbage_v0,rollout=heuristic,prior=policy`` |
| ``search:N,value=table`` | the search whose rollouts, stopped at the end of the deal (hand), are valued by the shipped position values (``agents/position_values.py``: the chance to win from the position reached) instead of the points: cribbage with 2 or 4 players, Muggins dominoes with 2 or 4 in partnerships |
| ``search:N,worlds=inferred`` | the search whose worlds also keep what the public moves showed (``state.resample_inferred``; dominoes: a seat that drew, passed or knocked held no tile matching the open ends, nor the tiles it drew and kept; cribbage: a seat that said go holds only cards above the room it had; Michigan: a leader holds no lower card of the suit it led); ``worlds=uniform`` (the default) re-deals by counts alone |
| ``ppo:path`` | a trained MaskablePPO policy (``agents/ppo.py``; torch only if a .zip must be read) |
| ``rllib:path`` | a policy trained by ``muggins-train --backend rllib``, exported to numpy (no Ray, no torch) |
| ``zoo:env_id`` / ``zoo:env_id/name`` | a trained policy shipped in the package (``agents/zoo``; no torch) |
| ``best:env_id`` / ``best:env_id/name`` | the strongest player the package ships for that zoo configuration (``agents/zoo/players.json``: today the search guided by its network) |
| ``openspiel:ismcts[:N]`` / ``openspiel:mcts[:N]`` | OpenSpiel's Python IS-MCTS (or MCTS on one determinisation), N simulations per move (default 200), through the bridge (``agents/openspiel.py``; the ``[openspiel]`` extra) |
| ``llm:model=NAME,base_url=URL[,...]`` | a language model over any OpenAI-compatible ``/v1/chat/completions`` endpoint, from the text view of its seat (``agents/llm.py``: settings, answer format, retries, fallback) |

``make_agent(spec, game_id, options)`` builds one; the protocol is in ``agents/base.py``:
``act(observation, action_mask, rng, info=None) -> int`` where ``info`` is the player's
readable view (or the env ``infos`` entry holding it under ``"view"``) and, for search
agents, ``info["resample"]``, a sampler of determinised states. Agents never see the full
state.
"""

from __future__ import annotations

from muggins_env.agents.base import Agent, HeuristicBase, RandomAgent, player_view, state_sampler
from muggins_env.agents.factory import (
    AGENT_KINDS,
    HEURISTIC_SPEC_HELP,
    HEURISTIC_VALUES,
    SEARCH_SETTINGS,
    SEARCH_SPEC_HELP,
    game_options,
    make_agent,
    make_game,
    make_heuristic,
    parse_spec,
)

__all__ = [
    "AGENT_KINDS",
    "HEURISTIC_SPEC_HELP",
    "HEURISTIC_VALUES",
    "SEARCH_SETTINGS",
    "SEARCH_SPEC_HELP",
    "SEARCH_VALUES",
    "Agent",
    "HeuristicBase",
    "RandomAgent",
    "game_options",
    "make_agent",
    "make_game",
    "make_heuristic",
    "parse_spec",
    "player_view",
    "state_sampler",
]
