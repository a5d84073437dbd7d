#!/bin/sh
# SPDX-License-Identifier: MIT
# Where each I/O goes (random_pct, distribution), read back from the trace: random_pct = 50 makes about half of
# the I/Os start where the previous one ended (queue depth 1 and one thread, so the trace's
# order is the issue order); distribution = "zipf:1.2" puts at least half of the I/Os on the
# hottest 10 % of the blocks, uniform about 10 %; the run's cell records the distribution.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

# run NAME WORKLOAD-KEYS: one run of BYTES (64M: 16384 4K I/Os; bytes-bound, so as many on a
# busy machine) on a SIZE (64M) scratch file; its trace as NAME.csv
run() {
cat >"$1.cfg" <<CFG
iomatrix = 1;
name = "$1";
targets = ( { label = "a"; path = "a.scratch"; size = "${SIZE:-64M}"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; queue_depth = 1;
             threads = 1; $2 };
timing = { warmup = "0s"; bytes = "${BYTES:-64M}"; rest = "0s"; repeat = 1; };
CFG
    "$IOMATRIX" run "$1.cfg" -o "out-$1" >"$1.txt" 2>&1 || { die "$1: run: $(cat "$1.txt")"; return 1; }
    "$IOMATRIX" trace "out-$1/traces/00001.trace.gz" --format csv -o "$1.csv" 2>err ||
        { die "$1: trace: $(cat err)"; return 1; }
}

# The share (in %) of I/Os that start where the previous one ended.
seq_share() {
    python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
prev, seq = None, 0
for r in rows:
    off, n = int(r["offset"]), int(r["bytes"])
    if prev is not None and off == prev:
        seq += 1
    prev = off + n
print("%.1f %d" % (100.0 * seq / max(1, len(rows) - 1), len(rows)))
PY
}

if run rnd50 'random_pct = 50;'; then
    set -- $(seq_share rnd50.csv)
    echo "random_pct 50: $1 % sequential successors of $2 I/Os"
    [ "$2" -ge 1000 ] || die "random_pct 50: only $2 I/Os in the trace"
    python3 -c "import sys; sys.exit(not 40 <= float(sys.argv[1]) <= 60)" "$1" ||
        die "random_pct 50: $1 % sequential successors, want about 50"
fi
if run rnd100 ''; then
    set -- $(seq_share rnd100.csv)
    echo "random_pct 100 (default): $1 % sequential successors"
    python3 -c "import sys; sys.exit(not float(sys.argv[1]) <= 2)" "$1" ||
        die "uniform random: $1 % sequential successors, want almost none"
fi
# The share (in %) of the I/Os on the hottest 10 % of the file's blocks of 4K.
hot_share() {
    python3 - "$1" "$2" <<'PY'
import collections, csv, sys
blocks = int(sys.argv[2])
hits = collections.Counter(int(r["offset"]) // 4096 for r in csv.DictReader(open(sys.argv[1])))
counts = sorted(hits.values(), reverse=True)
n = sum(counts)
print("%.1f %d" % (100.0 * sum(counts[:blocks // 10]) / max(1, n), n))
PY
}

SIZE=4M BYTES=128M
if run zipf 'distribution = "zipf:1.2";'; then
    set -- $(hot_share zipf.csv 1024)
    echo "zipf:1.2: $1 % of $2 I/Os on the hottest 10 % of the blocks"
    [ "$2" -ge 5000 ] || die "zipf: only $2 I/Os in the trace"
    python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= 50)" "$1" ||
        die "zipf:1.2: $1 % on the hottest 10 %, want at least 50"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cell"];
sys.exit(c.get("distribution") != "zipf:1.2")' out-zipf/runs/00001.json ||
        die "the run's cell does not record distribution zipf:1.2"
fi
if run uniform ''; then
    set -- $(hot_share uniform.csv 1024)
    echo "uniform: $1 % of $2 I/Os on the hottest 10 % of the blocks"
    [ "$2" -ge 20000 ] || die "uniform: only $2 I/Os in the trace (the 9-16 % bound needs 20 per block)"
    python3 -c "import sys; sys.exit(not 9 <= float(sys.argv[1]) <= 16)" "$1" ||
        die "uniform: $1 % on the hottest 10 %, want about 10"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cell"];
sys.exit("distribution" in c or "random_pct" in c)' out-uniform/runs/00001.json ||
        die "a run that does not use the new keys names them in its cell"
fi
exit $fail
