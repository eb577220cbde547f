"""OpenSpiel both ways (the ``[openspiel]`` extra): the suite's agents as OpenSpiel bots, and
OpenSpiel's bots as agents of the suite.

* ``SuiteBot(game, spec)``: any agent spec (``random``, ``heuristic``, ``search:N``, ``zoo:...``)
  as a ``pyspiel.Bot`` of a bridged game (``muggins_env.openspiel``), e.g. for OpenSpiel's
  ``evaluate_bots``; ``suite_agent_action`` is its move (the agent sees what the env would give
  it: observation, mask, readable view, a sampler of determinised states).
* ``OpenSpielAgent`` (agent specs ``openspiel:ismcts[:N]``, ``openspiel:mcts[:N]``, through
  ``make_agent`` and so ``muggins-eval``): OpenSpiel's Python IS-MCTS (or MCTS on one
  determinisation) playing a seat of any env.
"""

from __future__ import annotations

import numpy as np

try:
    import pyspiel
    from open_spiel.python import policy
except ImportError as e:  # the agent specs openspiel:... without the extra
    raise ImportError("the openspiel: agents need OpenSpiel: pip install 'muggins_env[openspiel]' "
                      "(open_spiel==2.0.2)") from e

from muggins_env.agents import make_agent

from muggins_env.openspiel import MugginsOpenSpielGame, OpenSpielState, kernel_state, load, state_from_kernel

__all__ = [
    "OPENSPIEL_AGENTS",
    "OpenSpielAgent",
    "SuiteBot",
    "SuitePolicy",
    "make_openspiel_agent",
    "suite_agent_action",
    "suite_policy_agent",
]


def suite_policy_agent(spec: str, game: MugginsOpenSpielGame):
    """The suite's agent named by ``spec`` (``agents.make_agent``) for ``game``'s configuration."""
    return make_agent(spec, game.env_id, dict(game.options))


def suite_agent_action(agent, state: OpenSpielState, rng: np.random.Generator) -> int:
    """The suite agent's move at a decision node of a bridged state: it sees what the env
    gives it (observation, mask, readable view, a sampler of determinised states)."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("a suite agent moves at a decision node only (this is a chance or terminal node)")
    k = kernel_state(state)  # the undrawn boneyard filled in: agents never read its order
    p = k.current_player()
    info = {"view": k.public_view(p), "resample": lambda r: k.resample_hidden(p, r)}
    return int(agent.act(k.observation(p), k.legal_actions_mask(), rng, info))


class SuiteBot(pyspiel.Bot):
    """A suite agent (``random``, ``heuristic``, ``search:N``, ``zoo:...``) as an OpenSpiel bot."""

    def __init__(self, game: MugginsOpenSpielGame, spec: str, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = suite_policy_agent(spec, game)
        self.spec = spec
        self.rng = np.random.default_rng(seed)

    def step(self, state) -> int:
        return suite_agent_action(self.agent, state, self.rng)

    def restart_at(self, state) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    def provides_policy(self) -> bool:
        return False


#: agent specs ``openspiel:KIND[:N]`` (``muggins-eval``): OpenSpiel's Python bots on the bridge
OPENSPIEL_AGENTS = {"ismcts": "information-set MCTS (open_spiel.python.algorithms.ismcts), N simulations "
                              "(default 200) with one random rollout per leaf",
                    "mcts": "MCTS on one determinised state per move (open_spiel.python.algorithms.mcts), "
                            "N simulations (default 200)"}


class OpenSpielAgent:
    """An OpenSpiel bot as a suite agent (spec ``openspiel:ismcts[:N]``, ``openspiel:mcts[:N]``):
    at each decision it wraps a determinised state (the harness's ``info["resample"]``, which
    agrees with all the player knows) as a bridged state and asks the bot; IS-MCTS then
    re-determinises through ``resample_from_infostate`` on every simulation."""

    needs_info = True
    needs_sampler = True

    def __init__(self, kind: str, simulations: int, env_id: str, options: dict | None = None) -> None:
        if kind not in OPENSPIEL_AGENTS:
            raise ValueError(f"openspiel agent {kind!r} is unknown; known: {', '.join(OPENSPIEL_AGENTS)}")
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"openspiel:{kind}:N needs N >= 1 simulations, got {simulations!r}")
        self.kind, self.simulations = kind, simulations
        self.game = load(env_id, **(options or {}))
        self.name = f"openspiel:{kind}:{simulations}"

    def act(self, observation, action_mask, rng, info=None) -> int:
        from open_spiel.python.algorithms import ismcts, mcts

        sampler = info.get("resample") if isinstance(info, dict) else None
        if sampler is None:
            raise ValueError(f"{self.name} needs info['resample'] (a sampler of determinised states)")
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        state = state_from_kernel(self.game, sampler(rng))
        seed = int(rng.integers(2**31 - 1))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
        if self.kind == "ismcts":
            bot = ismcts.ISMCTSBot(self.game, evaluator, uct_c=2.0, max_simulations=self.simulations,
                                   random_state=np.random.RandomState(seed))
        else:
            bot = mcts.MCTSBot(self.game, uct_c=2.0, max_simulations=self.simulations, evaluator=evaluator,
                               random_state=np.random.RandomState(seed))
        action = int(bot.step(state))
        if not action_mask[action]:
            raise RuntimeError(f"{self.name} chose illegal action {action}; legal: {legal.tolist()}")
        return action

    def __repr__(self) -> str:
        return f"OpenSpielAgent({self.name!r})"


def make_openspiel_agent(arg: str, env_id: str, options: dict | None = None) -> OpenSpielAgent:
    """``openspiel:ismcts``, ``openspiel:ismcts:500``, ``openspiel:mcts:100`` -> an agent."""
    kind, _, n = arg.partition(":")
    if not kind:
        raise ValueError(f"agent spec 'openspiel:{arg}': name the bot, one of {', '.join(OPENSPIEL_AGENTS)} "
                         "(e.g. openspiel:ismcts:200)")
    if n and not n.isdigit():
        raise ValueError(f"agent spec 'openspiel:{arg}': N must be an int >= 1 (simulations per move), got {n!r}")
    return OpenSpielAgent(kind, int(n) if n else 200, env_id, options)


class SuitePolicy(policy.Policy):
    """A suite agent as an OpenSpiel ``policy.Policy`` of a bridged game (for ``exploitability``,
    ``expected_game_score``): ``random`` is uniform; any other agent puts probability 1 on its
    move (drawn with a generator seeded by the information state, so the policy is a function
    of the information state)."""

    def __init__(self, game: MugginsOpenSpielGame, spec: str) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.spec = spec
        self.agent = None if spec == "random" else suite_policy_agent(spec, game)

    def action_probabilities(self, state: OpenSpielState, player_id: int | None = None) -> dict[int, float]:
        legal = state.legal_actions()
        if self.agent is None:
            return {a: 1.0 / len(legal) for a in legal}
        key = state.information_state_string()
        seed = int.from_bytes(key.encode()[-8:].rjust(8, b"\0"), "little")
        return {suite_agent_action(self.agent, state, np.random.default_rng(seed)): 1.0}
