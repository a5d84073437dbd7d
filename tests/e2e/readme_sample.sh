#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's sample output reads as the tool prints it: contrib/readme-sample.sh --check runs
# the demo matrix (its windows shortened) and compares the words of its output with the
# README's sample, figures, margins and verdict marks aside; it fails when a message, a legend
# or a column changed without `contrib/readme-sample.sh --update`. A run that stalls on a busy
# machine (or does too few I/Os for a p99) prints more than the sample: tried three times,
# then skipped. docs/tour.md says of
# DiskSpd's -g what the tool does (an offered load, rate_mb_s).
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
grep -q '<!-- sample: contrib/readme-sample.sh --update -->' "$TOP/README.md" || die "README.md has no sample markers"
grep -q "won/tied/lost\|Welch p < 0.05, better by the margin beneath; else 'tie'" "$TOP/README.md" &&
    die "README.md still shows the old verdict words"
rc=3
for i in 1 2 3; do
    IOMATRIX=$IOMATRIX README_SAMPLE_SET="timing.duration=400ms timing.warmup=0s timing.rest=0s" \
        "$TOP/contrib/readme-sample.sh" --check >check.txt 2>&1 && { rc=0; break; } || rc=$?
    [ "$rc" -eq 3 ] || break
done
[ "$rc" -eq 3 ] && skip "every try had a stalled or short run (a busy machine)"
[ "$rc" -eq 0 ] || die "$(cat check.txt)"
grep -q "^README.md's sample matches the tool ([0-9]* words, figures aside)$" check.txt ||
    die "the check said: $(cat check.txt)"

# DiskSpd's -g is taken (an offered load), as the tour says
"$IOMATRIX" diskspd -g100 -c1M -d1 x.dat --matrix >g.cfg 2>g.err || die "diskspd -g100: $(cat g.err)"
grep -q 'rate_mb_s = "0.1";' g.cfg || die "-g100 is not rate_mb_s 0.1: $(grep rate g.cfg)"
grep -q '`-g` throttling' "$TOP/docs/tour.md" && die "docs/tour.md still says -g is refused"
grep -q '(`-g<bytes per ms>` throttling is taken: an offered load, `rate_mb_s`)' "$TOP/docs/tour.md" ||
    die "docs/tour.md does not say -g is taken"
exit $fail
