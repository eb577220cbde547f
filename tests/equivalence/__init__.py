"""One suite for "speed never changes behaviour": every fast path (the AEC loop's kept pieces and
observations, the cribbage board, the adapter's shortcuts, the fast search and the heuristics'
``act_on_state``) against a from-scratch reference on seeded games, and the recorded digests of the
default games (``trajectories.py``, ``data/default_trajectories.json``)."""
