#!/bin/bash
# SPDX-License-Identifier: MIT
# crc.sh — verification's own throughput with zlib's crc32 (before) and ISA-L's (after), no I/O:
# tests/bench/verify_speed.c built twice (make bench). Each build runs CRC_ROUNDS times in turn,
# CRC_SECS seconds each; the medians are printed, MB/s of 4 KiB blocks stamped (a verified
# write's headers and CRCs) and checked (a verified read's), and the CRC alone on 512-byte
# sectors.
set -u
BEFORE=${VERIFY_SPEED_ZLIB:-build/release/bench/verify_speed_zlib}
AFTER=${VERIFY_SPEED:-build/release/bench/verify_speed}
ROUNDS=${CRC_ROUNDS:-5}
SECS=${CRC_SECS:-1}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for b in "$BEFORE" "$AFTER"; do
	[ -x "$b" ] || { echo "crc.sh: $b is not built (make bench builds it)" >&2; exit 1; }
done
rows=$(mktemp) || exit 1
trap 'rm -f "$rows"' EXIT
for ((i = 0; i < ROUNDS; i++)); do
	for b in before after; do
		bin=$BEFORE
		[ "$b" = after ] && bin=$AFTER
		read -r s c r _ < <("$bin" "$SECS") || exit 1
		echo "$b $s $c $r" >>"$rows"
	done
done
echo
echo "verification, 4 KiB blocks (CRC-32 per 512-byte sector), median of $ROUNDS x ${SECS}s:"
printf '  %-22s %12s %12s %16s\n' "" "stamp MB/s" "check MB/s" "CRC-32 512B MB/s"
for b in before after; do
	s=$(awk -v b=$b '$1 == b { print $2 }' "$rows" | median)
	c=$(awk -v b=$b '$1 == b { print $3 }' "$rows" | median)
	r=$(awk -v b=$b '$1 == b { print $4 }' "$rows" | median)
	label="zlib crc32 (before)"
	[ "$b" = after ] && label="ISA-L crc32 (after)"
	printf '  %-22s %12s %12s %16s\n' "$label" "$s" "$c" "$r"
	eval "${b}_s=$s ${b}_c=$c ${b}_r=$r"
done
awk -v a="$after_s" -v b="$before_s" -v c="$after_c" -v d="$before_c" -v e="$after_r" \
	-v f="$before_r" 'BEGIN { printf "  after/before: stamp %.2fx, check %.2fx, CRC %.2fx\n",
	a / b, c / d, e / f }'
