#!/bin/bash
# addendum 8 (written as 5 on its branch) of benchmarks/results/position_values/PLAN.md, from a frozen copy of commit 749cc49
export PYTHONPATH=/tmp/hw_frozen
PY=/work/wt-hw/.venv/bin/python
OUT=/work/wt-hw/runs/heuristic_table_h2h
cd /tmp/hw_frozen
date -u +"start %H:%M:%S"
$PY -m muggins_env.eval.cli --game cribbage_v0 --opt num_players=2 --opt muggins=false --agents heuristic:value=table heuristic --lineup single --deals 3000 --seed 47620000 --workers 1 --no-plot --no-progress --out $OUT/standard > $OUT/standard.log 2>&1
date -u +"standard done %H:%M:%S"
$PY -m muggins_env.eval.cli --game cribbage_v0 --opt num_players=2 --opt muggins=true --agents heuristic:value=table heuristic --lineup single --deals 3000 --seed 47630000 --workers 1 --no-plot --no-progress --out $OUT/muggins > $OUT/muggins.log 2>&1
date -u +"muggins done %H:%M:%S"
$PY benchmarks/heuristic_value_agreement.py --games 500 --seed 47640000 --muggins false --out $OUT/agreement_standard.json > /dev/null 2>$OUT/agreement_standard.err
$PY benchmarks/heuristic_value_agreement.py --games 500 --seed 47650000 --muggins true --out $OUT/agreement_muggins.json > /dev/null 2>$OUT/agreement_muggins.err
date -u +"agreement done %H:%M:%S"
$PY benchmarks/time_per_move.py --game cribbage_v0 --opt muggins=false --agents heuristic:value=table heuristic --games 40 --seed 47660000 > $OUT/time_per_move.json 2>&1
date -u +"all done %H:%M:%S"
