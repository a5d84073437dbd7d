#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpuwin.py — the CPU a benchmark tool's whole process tree used over its measured window,
measured the same way for every tool (make bench, bench-ab, bench-knobs).

  cpuwin.py run TIMELINE CMD...   runs CMD (exec'd as is: it may be `taskset -c 1 fio …`),
                                  samples every 50 ms the CPU time of every thread of CMD's
                                  process and of its descendants, and writes TIMELINE: lines
                                  "wall_ns cpu_ns" (CLOCK_REALTIME; cumulative CPU). Exits with
                                  CMD's status.
  cpuwin.py window TIMELINE START_NS END_NS
                                  prints the CPU seconds per second over [START, END] shrunk by
                                  WINDOW_MARGIN at each end (interpolated between samples), and
                                  the seconds it covered.

Every thread counts: a thread's CPU is the first field of /proc/PID/task/TID/schedstat (ns on
CPU), so io_uring's iou-wrk-* and iou-sqp-* workers, which are threads of the process that set
up the ring, count for the tool that made them — fio's own usr_cpu + sys_cpu count only its
job thread (getrusage RUSAGE_THREAD). fio's job processes are children of fio: descendants are
followed through /proc/PID/task/TID/children. A thread that ends keeps the CPU it was last seen
with, so the sum never falls.
"""
import os
import subprocess
import sys
import time

PERIOD = 0.05
WINDOW_MARGIN = 0.15  # s: off each end of the tool's window (its start and end are stamped
                      # by the tool, a few ms from its first and last I/O)


def tree_tasks(pid):
    """(pid, tid) of every thread of pid and of its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for t in tids:
            out.append((p, int(t)))
            try:
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                pass
    return out


def sample(pid, last):
    for p, t in tree_tasks(pid):
        try:
            with open("/proc/%d/task/%d/schedstat" % (p, t)) as f:
                last[t] = max(last.get(t, 0), int(f.read().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
    return sum(last.values())


def run(timeline, cmd):
    child = subprocess.Popen(cmd)
    last, rows = {}, []
    while child.poll() is None:
        rows.append((time.time_ns(), sample(child.pid, last)))
        time.sleep(PERIOD)
    with open(timeline, "w") as f:
        for w, c in rows:
            f.write("%d %d\n" % (w, c))
    return child.returncode


def at(rows, t):
    """Cumulative CPU at wall time t, linear between the samples around it."""
    for (w0, c0), (w1, c1) in zip(rows, rows[1:]):
        if w0 <= t <= w1:
            return c0 + (c1 - c0) * (t - w0) / (w1 - w0) if w1 > w0 else c0
    return None


def rate(timeline, start, end):
    """(CPU seconds per second, seconds covered) over [start, end] (ns, CLOCK_REALTIME) shrunk
    by WINDOW_MARGIN at each end; (nan, 0) when the timeline does not cover it."""
    rows = [tuple(map(int, l.split())) for l in open(timeline) if l.strip()]
    a, b = start + WINDOW_MARGIN * 1e9, end - WINDOW_MARGIN * 1e9
    ca, cb = (at(rows, a), at(rows, b)) if b > a else (None, None)
    if ca is None or cb is None:
        return float("nan"), 0.0
    return (cb - ca) / (b - a), (b - a) / 1e9


def window(timeline, start, end):
    print("%.6f %.3f" % rate(timeline, start, end))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3:]))
    if len(sys.argv) == 5 and sys.argv[1] == "window":
        window(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        sys.exit(0)
    sys.exit(__doc__)
