#!/usr/bin/env python3
"""Plots the results.csv of `coreset experiment` the way the A-IHT papers do.

One PNG per dataset, beside results.csv unless --out says otherwise: on the left the forward KL
(symmetrised for the large experiment, or --metric) against k on a log scale, on the right the construction time (seconds) against k;
for each algorithm the median over the trials as a line and the papers' percentile band
(spec 4.6: 25th-75th for gaussian and rbf, 35th-65th for logistic, poisson and large) as a
shaded area.

Needs python3 with matplotlib (Debian: apt-get install python3-matplotlib). No test uses it.

    python3 bench/plot_experiment.py experiment-logistic/results.csv [--out DIR]
"""

import argparse
import collections
import csv
import os
import sys

BANDS = {"gaussian": (25, 75), "rbf": (25, 75), "logistic": (35, 65), "poisson": (35, 65),
         "large": (35, 65)}
DEFAULT_BAND = (25, 75)
METRICS = ("forward_kl", "reverse_kl", "symmetric_kl", "map_distance", "relative_error",
           "objective")
LABELS = {
    "forward_kl": "forward KL(full || coreset)",
    "reverse_kl": "reverse KL(coreset || full)",
    "symmetric_kl": "symmetrised KL",
    "map_distance": "MAP distance",
    "relative_error": "||y - Phi w|| / ||y||",
    "objective": "||y - Phi w||^2",
}


def read_results(path):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        sys.exit(f"{path}: no results")
    missing = {"experiment", "dataset", "algorithm", "k", "trial", "seconds"} - set(rows[0])
    if missing:
        sys.exit(f"{path}: not a coreset experiment table (missing {', '.join(sorted(missing))})")
    return rows


def percentile(values, q):
    """Linear-interpolation percentile, as numpy's default, without needing numpy."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(rows, column, band):
    """{algorithm: (ks, medians, lows, highs)} for one dataset's rows."""
    by_run = collections.defaultdict(list)
    for row in rows:
        by_run[(row["algorithm"], int(row["k"]))].append(float(row[column]))
    algorithms = list(dict.fromkeys(row["algorithm"] for row in rows))  # first-seen order
    curves = {}
    for algorithm in algorithms:
        ks = sorted(k for (a, k) in by_run if a == algorithm)
        values = [by_run[(algorithm, k)] for k in ks]
        curves[algorithm] = (ks, [percentile(v, 50) for v in values],
                             [percentile(v, band[0]) for v in values],
                             [percentile(v, band[1]) for v in values])
    return curves


def plot_panel(axes, curves, ylabel, band):
    for algorithm, (ks, medians, lows, highs) in curves.items():
        line, = axes.plot(ks, medians, marker="o", markersize=3, label=algorithm)
        axes.fill_between(ks, lows, highs, color=line.get_color(), alpha=0.2, linewidth=0)
    axes.set_yscale("log")  # zeros (an exact fit) are masked
    axes.set_xlabel("coreset size budget k")
    axes.set_ylabel(ylabel)
    axes.grid(True, which="major", alpha=0.3)
    axes.set_title(f"median, {band[0]}th-{band[1]}th percentile band")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="results.csv written by `coreset experiment`")
    parser.add_argument("--out", help="folder for the PNGs (default: the folder of results.csv)")
    parser.add_argument("--metric", choices=METRICS,
                        help="quality column for the left panel (default: symmetric_kl for the "
                             "large experiment, as [IHT2] Fig. 4 plots it; forward_kl otherwise)")
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_results(args.results)
    out_dir = args.out or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out_dir, exist_ok=True)
    datasets = collections.defaultdict(list)
    for row in rows:
        datasets[(row["experiment"], row["dataset"])].append(row)

    for (experiment, dataset), dataset_rows in datasets.items():
        band = BANDS.get(experiment, DEFAULT_BAND)
        metric = args.metric or ("symmetric_kl" if experiment == "large" else "forward_kl")
        # Trials per algorithm: a costly one (sparsevi) may have been run with fewer.
        per_algorithm = collections.defaultdict(set)
        for row in dataset_rows:
            per_algorithm[row["algorithm"]].add(row["trial"])
        counts = collections.Counter(len(trials) for trials in per_algorithm.values())
        common = counts.most_common(1)[0][0]
        trials = f"{common} trials" + "".join(
            f", {algorithm} {len(t)}" for algorithm, t in per_algorithm.items()
            if len(t) != common)
        figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
        plot_panel(left, summarise(dataset_rows, metric, band), LABELS[metric], band)
        plot_panel(right, summarise(dataset_rows, "seconds", band), "construction time (s)",
                   band)
        left.legend(fontsize="small")
        figure.suptitle(f"{experiment}: {dataset} ({trials})")
        figure.tight_layout()
        path = os.path.join(out_dir, f"{dataset}.png")
        figure.savefig(path, dpi=120)
        plt.close(figure)
        print(path)


if __name__ == "__main__":
    main()
