#!/bin/sh
# The scaling benchmark of docs/scaling-out.md with the command line's own
# path: generate N rows of logistic data as CSV, convert it once to a float32
# store (langevin convert), and fit it with the default sampler
# (langevin run --data FILE.lvs: --sampler auto, streamed from the store),
# each step under /usr/bin/time -v (peak resident memory, user and system
# CPU time). The run's "time:" and "cpu:" lines give each phase's wall and
# CPU time.
#
#   bench/scaling/run.sh N [DIR]     # e.g. 1000000 /tmp/scal
set -e
N=${1:?usage: run.sh N [DIR]}
DIR=${2:-/tmp/scal}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$DIR"
(cd "$ROOT" && go build -o "$DIR/scaling" ./bench/scaling && go build -o "$DIR/langevin" ./cmd/langevin)
cd "$DIR"
[ -f "d$N.csv" ] || ./scaling gen -n "$N" -out "d$N.csv"
rm -f "d$N.lvs"
/usr/bin/time -v ./langevin convert --data "d$N.csv" --target y --out "d$N.lvs" --float32 > "convert-$N.out" 2> "convert-$N.time"
/usr/bin/time -v ./langevin run --data "d$N.lvs" --out "run-$N" --overwrite --quiet > "run-$N.out" 2> "run-$N.time"
for f in "convert-$N" "run-$N"; do
	echo "== $f"
	grep -E '^(d[0-9]+\.lvs:|logistic|time:|cpu:|auto: +length|draws:|sampling:)' "$f.out" || true
	grep -E 'Maximum resident|User time|System time|Elapsed' "$f.time"
done
