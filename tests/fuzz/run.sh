#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every libFuzzer harness for SECONDS each: run.sh SECONDS BUILD_DIR [NAME…]
# Each harness gets its own corpus directory under BUILD_DIR/fuzz/corpus-NAME, seeded from the
# tree (matrices and tests/bad for the matrix reader, tests/fixtures/trace for the trace reader,
# the JSON fixtures for the result reader, tests/fixtures/import for the import readers,
# tests/fuzz/seeds/resdir-* for the results-directory readers); what the fuzzer learns stays
# there between runs.
# A crash, leak or sanitizer report fails the script and leaves the reproducer in
# BUILD_DIR/fuzz/artifacts-NAME/. Extra libFuzzer options come from $FUZZ_FLAGS. FUZZ_JOBS
# harnesses run at a time (default 1; each is one process on one core), their lines printed in
# the order of the names.
set -u
secs=${1:?usage: run.sh SECONDS BUILD_DIR [NAME...]}
b=${2:?usage: run.sh SECONDS BUILD_DIR [NAME...]}
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
names=${*:-matrix trace result import resdir}

seed() {
	dir=$1
	shift
	mkdir -p "$dir"
	for f in "$@"; do
		[ -f "$f" ] && cp "$f" "$dir/seed-$(echo "$f" | sed 's|^'"$top"'/||; s|/|_|g')"
	done
	return 0
}

# Leaks inside third-party libraries that iomatrix cannot fix (see the file).
LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

# fuzz_one NAME: seeds and runs harness NAME; its lines on stdout, non-zero when it failed
fuzz_one() {
	n=$1
	bin=$b/fuzz/fuzz_$n
	corpus=$b/fuzz/corpus-$n
	art=$b/fuzz/artifacts-$n/
	mkdir -p "$corpus" "$art"
	case $n in
	matrix) seed "$corpus" "$top"/matrices/*.cfg "$top"/tests/bad/*.cfg ;;
	trace)  seed "$corpus" "$top"/tests/fixtures/trace/*
		# the decompressed streams, behind the 0x01 byte that asks fuzz_trace to compress
		for f in "$top"/tests/fixtures/trace/*.gz; do
			{ printf '\001'; gzip -dc "$f" 2>/dev/null; } >"$corpus/plain-$(basename "$f" .gz)"
		done ;;
	import) # each file behind the byte of its reader (fuzz_import.c: 0 fio, 1 icf, 2 XML)
		for f in "$top"/tests/fixtures/import/*; do
			case $f in *.fio) k='\000' ;; *.icf) k='\001' ;; *) k='\002' ;; esac
			{ printf "$k"; cat "$f"; } >"$corpus/seed-$(basename "$f")"
		done ;;
	result) seed "$corpus" $(find "$top/tests/fixtures/results" "$top/tests/fixtures/report" \
			-name '*.json' | sort | head -200) "$top"/tests/fuzz/seeds/result-*.json ;;
	resdir) seed "$corpus" "$top"/tests/fuzz/seeds/resdir-* ;;
	esac
	echo "fuzz_$n: $secs s"
	# shellcheck disable=SC2086
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$art" ${FUZZ_FLAGS:-} "$corpus" \
		>"$b/fuzz/fuzz_$n.log" 2>&1; then
		echo "fuzz_$n: FAILED (see $b/fuzz/fuzz_$n.log and $art)"
		tail -n 60 "$b/fuzz/fuzz_$n.log"
		return 1
	else
		grep -E '^stat::(number_of_executed_units|new_units_added)' "$b/fuzz/fuzz_$n.log" |
			sed "s/^/fuzz_$n: /"
	fi
}

# reap: waits for the running harnesses (PID:NAME each) and prints their lines in order
fail=0 running="" i=0
reap() {
	for j in $running; do
		wait "${j%%:*}" || fail=1
		cat "$b/fuzz/fuzz_${j#*:}.out"
	done
	running="" i=0
}
for n in $names; do
	fuzz_one "$n" >"$b/fuzz/fuzz_$n.out" 2>&1 &
	running="$running $!:$n"
	i=$((i + 1))
	[ "$i" -ge "${FUZZ_JOBS:-1}" ] && reap
done
reap
exit $fail
