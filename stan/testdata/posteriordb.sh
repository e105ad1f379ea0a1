#!/bin/sh
# posteriordb.sh copies posteriordb's 46 posteriors with reference draws into
# testdata/posteriordb: NAME.stan (the program), DATA.json.zip (the data, as
# posteriordb ships it) and NAME.ref.json (the mean and sd of each parameter
# over the reference's 10 chains of 1000 draws, by CmdStan's names) plus
# index.json (posterior -> model, data). A reference the mirror lacks (a file
# too large for it) is left out and its posterior runs unchecked. Run from stan/:
#   sh testdata/posteriordb.sh /path/to/posteriordb.git
set -e
GIT=${1:-/work/.mirror/stan-dev+posteriordb/repo}
OUT=testdata/posteriordb
mkdir -p $OUT
g() { git --git-dir="$GIT" show HEAD:posterior_database/"$1"; }
echo '[' > $OUT/index.json
sep=
for z in $(git --git-dir="$GIT" ls-tree --name-only HEAD:posterior_database/reference_posteriors/draws/draws); do
	name=${z%.json.zip}
	meta=$(g posteriors/$name.json)
	model=$(echo "$meta" | python3 -c 'import json,sys; print(json.load(sys.stdin)["model_name"])')
	data=$(echo "$meta" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data_name"])')
	g models/stan/$model.stan > $OUT/$model.stan
	g data/data/$data.json.zip > $OUT/$data.json.zip
	# a reference whose blob the mirror lacks (too large) gets no .ref.json
	g reference_posteriors/draws/draws/$z > /tmp/ref.$$.zip 2>/dev/null || { rm -f /tmp/ref.$$.zip; echo "$name: no reference draws in the mirror" >&2; }
	[ -f /tmp/ref.$$.zip ] && python3 -c '
import io, json, math, re, sys, zipfile
zf = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
chains = json.loads(zf.read(zf.namelist()[0]))
out = {"chains": len(chains), "draws": len(next(iter(chains[0].values()))), "summary": {}}
for k in chains[0]:
    v = [x for c in chains for x in c[k]]
    m = sum(v) / len(v)
    s = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))
    out["summary"][re.sub(r"\[(.*)\]", lambda g: "." + g.group(1).replace(",", "."), k)] = [m, s]
json.dump(out, sys.stdout, indent=1, sort_keys=True)
' < /tmp/ref.$$.zip > $OUT/$name.ref.json
	rm -f /tmp/ref.$$.zip
	printf '%s {"name": "%s", "model": "%s", "data": "%s"}\n' "$sep" $name $model $data >> $OUT/index.json
	sep=,
done
echo ']' >> $OUT/index.json
