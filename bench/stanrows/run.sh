#!/usr/bin/env bash
# run.sh DIR: the same logistic regression on DIR's data (go run ./bench/stanrows
# -out DIR) by langevin run --model logistic (CSV) and by the Stan program with
# --rows N (JSON), default sampler, one after the other; prints each run's
# summary and its CPU seconds (user + system) and peak memory.
set -euo pipefail
dir=${1:?usage: run.sh DIR}
lv=${LANGEVIN:-langevin}
cd "$dir"
echo "== langevin run --model logistic"
/usr/bin/time -f 'cpu %U user %S system, max RSS %M KB' "$lv" run --model logistic --data data.csv --target y \
  --test-frac 0 --standardize=false --out out-logistic 2>&1 | grep -v '^langevin: [0-9]* iterations'
echo "== langevin run --stan logistic.stan --rows N"
/usr/bin/time -f 'cpu %U user %S system, max RSS %M KB' "$lv" run --stan logistic.stan --data data.json --rows N \
  --seed 2 --out out-stan 2>&1 | grep -v '^langevin: [0-9]* iterations'
