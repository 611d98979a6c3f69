#!/usr/bin/env python3
"""Markdown tables of `coreset experiment` results for bench/EXPERIMENTS.md.

For each dataset in the results.csv files given (several may be merged, e.g. a costly algorithm
run with fewer trials): one row per algorithm with the trial count, the median of --metric at
each budget of --k (those the algorithm was run at; "-" otherwise) and the median construction
time at the largest of them. Standard library only.

    python3 bench/experiment_table.py results.csv [more.csv ...] --k 1,20,100,300
"""

import argparse
import collections
import csv


def median(values):
    ordered = sorted(values)
    m = len(ordered)
    return ordered[m // 2] if m % 2 else 0.5 * (ordered[m // 2 - 1] + ordered[m // 2])


def number(value):
    return f"{value:.3g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--k", required=True, help="comma-separated budgets to show")
    parser.add_argument("--metric", default="forward_kl")
    args = parser.parse_args()
    ks = [int(k) for k in args.k.split(",")]

    values = collections.defaultdict(list)   # (dataset, algorithm, k) -> metric values
    seconds = collections.defaultdict(list)  # (dataset, algorithm, k) -> construction times
    trials = collections.defaultdict(set)    # (dataset, algorithm) -> trial ids
    order = {}
    for path in args.results:
        with open(path, newline="") as handle:
            for row in csv.DictReader(handle):
                key = (row["dataset"], row["algorithm"])
                order.setdefault(row["dataset"], {}).setdefault(row["algorithm"], None)
                trials[key].add(row["trial"])
                values[key + (int(row["k"]),)].append(float(row[args.metric]))
                seconds[key + (int(row["k"]),)].append(float(row["seconds"]))

    for dataset, algorithms in order.items():
        print(f"\n{dataset}: median {args.metric}, and the median construction time at the "
              f"largest k shown\n")
        print("| algorithm | trials | " + " | ".join(f"k={k}" for k in ks) + " | time (s) |")
        print("|---|---:|" + "---:|" * len(ks) + "---:|")
        for algorithm in algorithms:
            cells = []
            last = None
            for k in ks:
                found = values.get((dataset, algorithm, k))
                cells.append(number(median(found)) if found else "-")
                if found:
                    last = k
            time = number(median(seconds[(dataset, algorithm, last)])) if last else "-"
            print(f"| {algorithm} | {len(trials[(dataset, algorithm)])} | " + " | ".join(cells) +
                  f" | {time} (k={last}) |")


if __name__ == "__main__":
    main()
