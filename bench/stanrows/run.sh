#!/usr/bin/env bash
# run.sh DIR: the same logistic regression on DIR's data (go run ./bench/stanrows
# -out DIR) by langevin run --model logistic (CSV) and by the Stan program with
# --rows N (JSON), default sampler, one after the other (the Stan program twice:
# with the default seed, and with --seed 2), then the table of docs/stan.md.
# Each run's output is in DIR/*.log with its /usr/bin/time line (CPU, max RSS).
set -euo pipefail
dir=${1:?usage: run.sh DIR}
lv=${LANGEVIN:-langevin}
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$dir"
rm -rf out-logistic out-stan out-stan-seed2
run() { # LOG ARGS...: one run, its output in LOG without the progress lines
  local log=$1; shift
  /usr/bin/time -f 'time: %U user %S system, max RSS %M KB' "$lv" run "$@" 2>&1 | grep -v '^langevin: [0-9]* iterations' >"$log"
}
run logistic.log --model logistic --data data.csv --target y --test-frac 0 --standardize=false --out out-logistic
run stan.log --stan logistic.stan --data data.json --rows N --out out-stan
run stan-seed2.log --stan logistic.stan --data data.json --rows N --seed 2 --out out-stan-seed2
grep -H -E '^(cpu:|time:)' logistic.log stan.log stan-seed2.log
cd "$here" && go run ./bench/stanrows -compare "$dir"
