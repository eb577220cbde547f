# The two quick-start commands (`make demo`, `make test`) create .venv and install everything
# on a fresh machine: torch from the local CPU build torch==2.13.0 first, then the package.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install demo play test bench lint docs clean

# The venv's own pip is kept: pip 25+ shows setuptools' "Editable installation" notice, which the
# meta-path finder of the agents/ play/ train/ eval/ configs/ -> muggins_env.* mapping always emits.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[train,play,web,dev,docs]"
	touch $(STAMP)

install: $(STAMP)

# the main job: train the quick PPO preset on one game and print its evaluation table
GAME ?= michigan_v0
demo: $(STAMP)
	$(PY) -m muggins_env.train --game $(GAME) --preset quick --out runs/quick-$(GAME) --overwrite

# one game of every env between heuristic agents, replayed move by move from its game record (no training);
# make play GAME=cribbage_v0 shows one env, DELAY=0.3 paces the lines
play: $(STAMP)
	$(PY) -m muggins_env.play.demo$(if $(filter command line environment,$(origin GAME)), --game $(GAME))$(if $(DELAY), --delay $(DELAY))

test: $(STAMP)
	$(PY) -m pytest -q -n 2

bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/bench_envs.py --seconds 1 --repeats 3 --reference --scorer --json bench.json

# the documentation site into docs/_build/html (warnings are errors; the env pages come from the env docstrings)
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html

lint: $(STAMP)
	$(VENV)/bin/ruff check muggins_env agents play train eval tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
