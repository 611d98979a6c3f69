#!/usr/bin/env python3
"""Two runs of bench/run_gpu_carried.sh side by side: what moved between them. For each A-IHT II
and A-IHT iteration case, each primitive of an iteration and each end-to-end stage present in
both, the earlier and the later number and their quotient (later / earlier: below 1 is faster);
graph nodes beside the primitives' times. Compare runs on the same kind of GPU: absolute times
do not carry across GPUs (the iteration ratios, to a floor measured in each run, do).

    python3 bench/gpu_results_compare.py bench/results/<earlier>/ bench/results/<later>/

--changed-by F (default 0) prints only the rows whose quotient is off 1 by more than F (0.1: by
more than 10%), and the rows whose graph nodes differ.
"""
import argparse
from pathlib import Path

from gpu_results_tables import end_to_end_cases, load, markdown_header


def budgets(run):
    """(n, S, k) -> the budget's record, for every case of a run that has budgets."""
    found = {}
    for case in (run or {}).get("cases", []):
        for budget in case.get("budgets", []):
            found[(case["n"], case["S"], budget["k"])] = budget
    return found


def case_name(key):
    n, samples, k = key
    return f"n {n:.0e}, S {samples}, k {k}"


def quotient(earlier, later):
    return later / earlier if earlier else float("inf")


def nodes(count):
    """A node count as the runs record it (a float, or absent)."""
    return "-" if count is None else f"{count:g}"


def table(columns, rows):
    """A markdown table of `rows` under `columns`; none when there are no rows."""
    return markdown_header(columns) + rows if rows else []


def shown(q, nodes_moved, changed_by):
    return nodes_moved or abs(q - 1.0) > changed_by


def iteration_rows(earlier, later, changed_by):
    """Each solver's ms per iteration and ratio to the floor, in both runs."""
    rows = []
    before, after = budgets(earlier), budgets(later)
    for key in sorted(before.keys() & after.keys()):
        for solver in ("a-iht-2", "a-iht"):
            ms = f"{solver}_ms_per_iteration"
            if ms not in before[key] or ms not in after[key]:
                continue
            node_count = f"{solver}_graph_nodes_per_iteration"
            nodes_before, nodes_after = before[key].get(node_count), after[key].get(node_count)
            q = quotient(before[key][ms], after[key][ms])
            if not shown(q, nodes_before != nodes_after, changed_by):
                continue
            ratio = f"{solver}_ratio_to_floor"
            rows.append(f"| {case_name(key)} | {solver} | {before[key][ms]:.3f} ms "
                        f"({before[key][ratio]:.2f}x) | {after[key][ms]:.3f} ms "
                        f"({after[key][ratio]:.2f}x) | {q:.2f} | {nodes(nodes_before)} -> {nodes(nodes_after)} |")
    return table(["case", "solver", "earlier", "later", "later / earlier", "graph nodes"], rows)


def primitive_rows(earlier, later, changed_by):
    """Each primitive's us per call and nodes per call, in both runs."""
    rows = []
    before, after = budgets(earlier), budgets(later)
    for key in sorted(before.keys() & after.keys()):
        costs_before = before[key].get("primitives", {}).get("primitives", {})
        costs_after = after[key].get("primitives", {}).get("primitives", {})
        for name in sorted(costs_before.keys() & costs_after.keys()):
            a, b = costs_before[name], costs_after[name]
            if "us_per_call" not in a or "us_per_call" not in b:
                rows.append(f"| {case_name(key)} | {name} | {a.get('error', '-')} "
                            f"| {b.get('error', '-')} | - | - |")
                continue
            q = quotient(a["us_per_call"], b["us_per_call"])
            if not shown(q, a["nodes_per_call"] != b["nodes_per_call"], changed_by):
                continue
            rows.append(f"| {case_name(key)} | {name} | {a['us_per_call']:.2f} "
                        f"| {b['us_per_call']:.2f} | {q:.2f} "
                        f"| {a['nodes_per_call']:g} -> {b['nodes_per_call']:g} |")
        for name in sorted(costs_after.keys() - costs_before.keys()):
            b = costs_after[name]
            later_us = f"{b['us_per_call']:.2f}" if "us_per_call" in b else b.get("error", "-")
            rows.append(f"| {case_name(key)} | {name} (new) | - | {later_us} | - "
                        f"| {nodes(b.get('nodes_per_call'))} |")
    return table(
        ["case", "primitive", "earlier us", "later us", "later / earlier", "graph nodes"], rows)


def builds(folder):
    """(N, S) -> each end-to-end build of a run's folder."""
    runs = [load(folder, name) for name in ("bench_end_to_end.json", "bench_end_to_end_1e8.json")]
    return {(case["N"], case["S"]): case for case in end_to_end_cases(run for run in runs if run)}


def end_to_end_rows(earlier, later, changed_by):
    """Each build's total and stages, in both runs."""
    rows = []
    before, after = builds(earlier), builds(later)
    for key in sorted(before.keys() & after.keys()):
        a, b = before[key], after[key]
        pairs = [("total", a["seconds_total"], b["seconds_total"])]
        for stage in sorted(a.get("stages", {}).keys() & b.get("stages", {}).keys()):
            pairs.append((stage, a["stages"][stage]["seconds"], b["stages"][stage]["seconds"]))
        for stage, x, y in pairs:
            q = quotient(x, y)
            if stage != "total" and not shown(q, False, changed_by):
                continue
            rows.append(f"| N {key[0]:.0e}, S {key[1]} | {stage} | {x:.3f} s | {y:.3f} s "
                        f"| {q:.2f} |")
    return table(["build", "stage", "earlier", "later", "later / earlier"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("earlier")
    parser.add_argument("later")
    parser.add_argument("--changed-by", type=float, default=0.0)
    args = parser.parse_args()
    earlier, later = Path(args.earlier), Path(args.later)
    for folder in (earlier, later):
        if not folder.is_dir():
            parser.error(f"{folder}: no such folder")
    sections = [
        ("Per iteration", iteration_rows(load(earlier, "bench_iterations.json"),
                                         load(later, "bench_iterations.json"),
                                         args.changed_by)),
        ("Each primitive alone in a CUDA graph",
         primitive_rows(load(earlier, "bench_primitives.json"),
                        load(later, "bench_primitives.json"), args.changed_by)),
        ("End to end", end_to_end_rows(earlier, later, args.changed_by)),
    ]
    for title, lines in sections:
        if lines:
            print(f"## {title}\n")
            print("\n".join(lines))
            print()


if __name__ == "__main__":
    main()
