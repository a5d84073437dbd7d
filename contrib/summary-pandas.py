#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read the summary.csv of one or more iomatrix results directories with pandas.

Prints, for every cell, the mean of a figure over the repetitions for each target side by side
(the same layout as `iomatrix report`, without its statistics), and the ratio of the others to
the first target. An example to start your own analysis from; iomatrix does not need it.

    contrib/summary-pandas.py results/atto-boot1 [results/atto-boot2 ...]
        [--value iops|mb_s|lat_mean_us|lat_p99_us|...] [--csv OUT.csv]

Several directories are read as one table, with a 'study' column naming each directory (a
controller comparison across two boots: the same targets in both, told apart by study).
"""
import argparse
import os
import sys

try:
    import pandas as pd
except ImportError:
    sys.exit("summary-pandas.py needs pandas (Debian, Ubuntu: apt install python3-pandas)")

# Every dimension a summary.csv may hold, in its column order.
DIMENSIONS = ["target", "block_size", "queue_depth", "threads", "read_pct", "pattern",
              "engine", "direct", "verify"]


def read_dirs(dirs):
    frames = []
    for d in dirs:
        path = os.path.join(d, "summary.csv")
        if not os.path.exists(path):
            sys.exit(f"summary-pandas.py: '{d}' has no summary.csv (not a results directory?)")
        f = pd.read_csv(path)
        f.insert(0, "study", os.path.basename(os.path.normpath(d)))
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR", help="results directories")
    ap.add_argument("--value", default="iops", help="the column to compare (default iops)")
    ap.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    a = ap.parse_args()

    runs = read_dirs(a.dirs)
    if a.value not in runs.columns:
        sys.exit(f"summary-pandas.py: no column '{a.value}' (have: {', '.join(runs.columns)})")
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        sys.exit("summary-pandas.py: no finished run")
    dropped = len(runs) - len(ok)

    # the dimensions that vary; the target (and the study, with several) become the columns
    dims = [c for c in DIMENSIONS if c in ok.columns and ok[c].nunique() > 1 and c != "target"]
    across = ["study", "target"] if ok["study"].nunique() > 1 else ["target"]
    table = ok.pivot_table(index=dims or None, columns=across, values=a.value,
                           aggfunc="mean") if dims else \
        ok.groupby(across)[a.value].mean().to_frame().T
    if table.shape[1] > 1:
        def label(col):
            return "/".join(map(str, col)) if isinstance(col, tuple) else str(col)
        first = table.columns[0]
        for col in list(table.columns[1:]):
            table[f"{label(col)} / {label(first)}"] = table[col] / table[first]
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    print(f"mean {a.value} over the repetitions of {len(ok)} runs"
          + (f" ({dropped} not ok, left out)" if dropped else ""))
    print(table.round(3).to_string())
    if a.csv:
        table.to_csv(a.csv)


if __name__ == "__main__":
    main()
