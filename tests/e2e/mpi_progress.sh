#!/bin/sh
# SPDX-License-Identifier: MIT
# Progress under mpirun (docs/hosts.md): mpirun gives each rank a pseudo-terminal for its
# standard output even when mpirun's own goes to a file, so rank 0 asks its launcher's too.
# With mpirun's output in a file, a 2-run study on 2 ranks writes plain lines: no carriage
# return, no escape sequence, one line per run, rank 0's only. Under script(1), a terminal
# for mpirun: Open MPI gives rank 0 a pseudo-terminal, so the status line is kept; MPICH's
# Hydra gives it a pipe, so the lines stay plain there too.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_mpi

cat >p.cfg <<CFG
iomatrix = 1;
name = "progress";
targets = ( { label = "a"; path = "$WORK/p\${rank}.scratch"; size = "4M"; } );
workload = { engine = "psync"; direct = false; block_size = [ "4K", "8K" ]; read_pct = 100; };
timing = { warmup = "0s"; duration = "1500ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG
mpi -np 2 "$MPI_BIN" run p.cfg -o out >run.txt 2>run.err || die "mpirun run: $(tail -n 20 run.err)"
if grep -q "$(printf '\r')" run.txt || grep -q "$(printf '\033')" run.txt; then
    die "escapes in a redirected output: $(od -c run.txt | head -n 20)"
fi
[ "$(grep -c ' run [12]/2 rep 1 ' run.txt)" -eq 2 ] || die "not one line per run: $(cat run.txt)"
if command -v script >/dev/null 2>&1; then
    # a terminal for mpirun: the status line (erased with \r and ESC [K) is kept
    script -qec "timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe -np 2 $MPI_BIN run p.cfg -o tty" \
        /dev/null >tty.txt 2>&1 </dev/null || die "mpirun under script: $(tail -n 20 tty.txt)"
    if mpirun --version 2>&1 | grep -q 'Open MPI'; then
        grep -q "$(printf '\033')\[K" tty.txt || die "no status line on a terminal: $(od -c tty.txt | head -n 20)"
    else
        # Hydra: rank 0's stdout is a pipe whatever mpiexec's is
        grep -q "$(printf '\033')" tty.txt && die "escapes through Hydra's pipe: $(od -c tty.txt | head -n 20)"
        [ "$(grep -c ' run [12]/2 rep 1 ' tty.txt)" -eq 2 ] || die "not one line per run under Hydra: $(cat tty.txt)"
    fi
else
    echo "script is not installed: the terminal's side not tried"
fi
exit $fail
