"""Starting (or joining) Ray for ``--backend rllib`` while the run's imports load.

A local Ray takes seconds to start, most of them spent waiting for its own processes (the GCS,
the raylet and their agents) to come up on the other cores, while the driver sits idle; the
driver's imports (torch, RLlib, and the ``torch._inductor`` config that RLlib's seeding pulls
in, about 4 s of CPU together on this project's 2-core machine) need nothing from Ray. So
``ray_session`` imports them in a thread while ``ray.init`` runs in the main thread (where Ray
must be started), and shuts a Ray it started down on the way out.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import threading
from collections.abc import Iterator, Sequence

import ray

# what every RLlib run imports after Ray is up: torch.use_deterministic_algorithms, called by
# RLlib's seeding, imports torch._inductor.config (torch._dynamo with it)
PRELOAD = ("torch", "torch._inductor.config", "ray.rllib.algorithms.ppo")


def init_ray(address: str | None, cfg: dict) -> bool:
    """Connect to a cluster (``address`` or RAY_ADDRESS) or start a local Ray; False if one was running."""
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS") or None
    # one torch thread in every actor, as in the driver (small nets: more threads only spin)
    threads = {"env_vars": {"OMP_NUM_THREADS": str(cfg["torch_threads"])}}
    if address:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, runtime_env=threads)
    else:
        rl = cfg["rllib"]
        need = rl["num_env_runners"] * rl["cpus_per_env_runner"] + max(1, rl["num_learners"])
        ray.init(address="local", num_cpus=max(os.cpu_count() or 1, math.ceil(need)), include_dashboard=False,
                 log_to_driver=False,
                 runtime_env=threads, _node_ip_address="127.0.0.1")  # a local Ray talks over loopback only
    return True


@contextlib.contextmanager
def ray_session(address: str | None, cfg: dict, preload: Sequence[str] = PRELOAD) -> Iterator[bool]:
    """Ray up for the block (yields whether this call started it), ``preload`` imported meanwhile.

    An import that fails in the thread is raised here, after Ray is up, as the same exception
    a plain import would raise (a Ray this call started is shut down first).
    """
    failed: list[BaseException] = []

    def load() -> None:
        try:
            for name in preload:
                importlib.import_module(name)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            failed.append(e)

    loader = threading.Thread(target=load, name="muggins-preload", daemon=True)
    loader.start()
    try:
        started = init_ray(address, cfg)
    finally:
        loader.join()
    try:
        if failed:
            raise failed[0]
        yield started
    finally:
        if started:
            ray.shutdown()
