#!/bin/sh
# Where each I/O goes (issue 16a), read back from the trace: random_pct = 50 makes about half of
# the I/Os start where the previous one ended (queue depth 1 and one thread, so the trace's
# order is the issue order).
. "$TOP/tests/e2e/lib.sh"

# run NAME WORKLOAD-KEYS: one short run of 4K I/O on a 64M scratch file; its trace as NAME.csv
run() {
cat >"$1.cfg" <<CFG
iomatrix = 1;
name = "$1";
targets = ( { label = "a"; path = "a.scratch"; size = "64M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; queue_depth = 1;
             threads = 1; $2 };
timing = { warmup = "0s"; duration = "200ms"; rest = "0s"; repeat = 1; };
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
exit $fail
