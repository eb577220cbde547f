"""PPO whose env runners sample the next batch while the learner trains on the last (``rllib.pipeline``).

RLlib's PPO is synchronous: the env runners wait while the learner updates, the learner waits
while they sample, so on a machine of c cores at most one side works at a time and the update
caps throughput however many runners there are (docs/rllib.md, "Scaling"). ``PipelinedPPO``
keeps one sample request in flight on every remote env runner: an iteration collects the batch
requested in the previous one, requests the next at once (sampled with the weights the runners
hold then), updates on the collected batch and sends the new weights, which each runner applies
after the sample it is taking, before the next. The price is one iteration of policy lag: a batch
is sampled by the weights of one update before the learner's, and PPO's clipped ratio against
the sampling log-probabilities (the runners' ``ACTION_LOGP``) corrects for it as it does across
its own epochs. Messages for the runners' opponent pools (self-play snapshots, curriculum
weights) ride on the next request instead of waiting behind the one in flight, and the learner's
returns per opponent kind come back with each batch. Without remote env runners it is PPO.
"""

from __future__ import annotations

from typing import Any

from muggins_env.train.rllib_env import broadcast, drain_results
from ray.rllib.algorithms.ppo import PPO
from ray.rllib.core.learner.learner import ALL_MODULES
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    ENV_RUNNER_SAMPLING_TIMER,
    LEARNER_RESULTS,
    LEARNER_UPDATE_TIMER,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_MODULE_STEPS_TRAINED_LIFETIME,
    SYNCH_WORKER_WEIGHTS_TIMER,
    TIMERS,
)

TAG = "pipelined_sample"


def _sample_request(messages: list[tuple]) -> Any:
    """What a runner does for one request: apply the pool messages, sample, report."""

    def request(runner: Any) -> tuple:
        reached = [broadcast(method, *args) for method, args in messages]
        return runner.sample(), runner.get_metrics(), drain_results(), reached

    return request


class PipelinedPPO(PPO):
    """See the module docstring. ``post`` queues a pool message for every runner's next request;
    ``take_results`` and ``reached`` give what the replies brought back."""

    def setup(self, config: Any) -> None:
        super().setup(config)
        self._in_flight = False
        self._outbox: list[tuple] = []
        self._results: list[dict[str, list[float]]] = []
        self._reached = 0

    @property
    def pipelined(self) -> bool:
        return self.env_runner_group.num_remote_workers() > 0

    def post(self, method: str, *args: Any) -> None:
        self._outbox.append((method, args))

    def take_results(self) -> list[dict[str, list[float]]]:
        out, self._results = self._results, []
        return out

    def reached(self) -> int:
        """The envs (all runners) that took the last message posted, once its replies are in."""
        return self._reached

    def _request(self) -> None:
        messages, self._outbox = self._outbox, []
        sent = self.env_runner_group.foreach_env_runner_async(_sample_request(messages), tag=TAG)
        if sent != self.env_runner_group.num_healthy_remote_workers():
            raise RuntimeError(f"{sent} of {self.env_runner_group.num_healthy_remote_workers()} env runners "
                               "took the sample request (one already in flight?)")
        self._in_flight = True

    def _collect(self) -> list[tuple]:
        replies = [r for _, r in self.env_runner_group.fetch_ready_async_reqs(tags=TAG, timeout_seconds=None)]
        self._in_flight = False
        for _, _, results, reached in replies:
            self._results.append(results)
        if replies and replies[0][3]:
            self._reached = sum(r[3][-1] for r in replies)
        return replies

    def finish(self) -> None:
        """Wait for the request in flight (its batch is dropped) and deliver queued messages."""
        if self._in_flight:
            self._collect()
        if self._outbox:
            self._request()
            self._collect()

    def training_step(self) -> None:
        if not self.pipelined:
            return super().training_step()
        with self.metrics.log_time((TIMERS, ENV_RUNNER_SAMPLING_TIMER)):
            if not self._in_flight:
                self._request()
            replies = self._collect()
            self._request()  # the runners sample on while the learner trains on these
            episodes = [e for r in replies for e in r[0]]
            self.metrics.aggregate([r[1] for r in replies], key=ENV_RUNNER_RESULTS)
        with self.metrics.log_time((TIMERS, LEARNER_UPDATE_TIMER)):
            learner_results = self.learner_group.update(
                episodes=episodes,
                timesteps={
                    NUM_ENV_STEPS_SAMPLED_LIFETIME: self.metrics.peek(
                        (ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME)),
                    NUM_MODULE_STEPS_TRAINED_LIFETIME: self.metrics.peek(
                        (LEARNER_RESULTS, ALL_MODULES, NUM_MODULE_STEPS_TRAINED_LIFETIME), default=0),
                },
                num_epochs=self.config.num_epochs,
                minibatch_size=self.config.minibatch_size,
                shuffle_batch_per_epoch=self.config.shuffle_batch_per_epoch,
            )
            self.metrics.aggregate(learner_results, key=LEARNER_RESULTS)
        with self.metrics.log_time((TIMERS, SYNCH_WORKER_WEIGHTS_TIMER)):
            # queued on each runner behind the sample it is taking (ordered actor calls)
            self.env_runner_group.sync_weights(from_worker_or_learner_group=self.learner_group,
                                               policies=set(learner_results[0]) - {ALL_MODULES},
                                               inference_only=True)
