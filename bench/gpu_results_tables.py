#!/usr/bin/env python3
"""Markdown tables from one run of bench/run_gpu_carried.sh, for the README of its folder under
bench/results/: the per-iteration cases, the column-tile kernel beside cuBLAS, the primitives of
an iteration and the end-to-end builds. Reads whichever of the run's JSON files are there.

    python3 bench/gpu_results_tables.py bench/results/gpu_h100_<date>_<commit>/
"""
import json
import sys
from pathlib import Path


def load(folder, name):
    path = folder / name
    return json.loads(path.read_text()) if path.exists() else None


def iterations_table(run):
    lines = [
        "| n | S | k | Phi^T r vs copy | A-IHT II | A-IHT | A-IHT II host loop | A-IHT II without"
        " threshold reuse | A-IHT II without the fewer-launch paths | A-IHT II hinting every k"
        " | A-IHT II by other Phi^T r kernels | graph nodes (II / I) | top-k | top-k, full passes"
        " | A-IHT II selections among candidates |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for case in run["cases"]:
        if "budgets" not in case:
            continue
        for b in case["budgets"]:
            if "a-iht-2_ms_per_iteration" not in b:
                continue
            host = b.get("a-iht-2_host_loop_ms_per_iteration")
            lines.append(
                f"| {case['n']:.0e} | {case['S']} | {b['k']} "
                f"| {case['phi_t_r_fraction_of_copy_bandwidth']:.2f} "
                f"| {b['a-iht-2_ratio_to_floor']:.3f}x ({b['a-iht-2_ms_per_iteration']:.3f} ms) "
                f"| {b['a-iht_ratio_to_floor']:.3f}x ({b['a-iht_ms_per_iteration']:.3f} ms) "
                f"| {f'{host:.3f} ms' if host else '-'} "
                f"| {without_reuse(b)} "
                f"| {unfused(b)} "
                f"| {hinting_every_budget(b)} "
                f"| {other_phi_t_r(b)} "
                f"| {b['a-iht-2_graph_nodes_per_iteration']:.0f} / "
                f"{b['a-iht_graph_nodes_per_iteration']:.0f} "
                f"| {b['top_k_ms']:.3f} ms "
                f"| {full_passes(b)} | {candidate_share(b)} |")
    return lines


def without_reuse(budget):
    """A-IHT II's iteration with the top-k's threshold reuse off (at the second budget up to
    816332d, at every budget since)."""
    ms = budget.get("a-iht-2_without_threshold_reuse_ms_per_iteration")
    if ms is None:
        return "-"
    return f"{budget['a-iht-2_without_threshold_reuse_ratio_to_floor']:.3f}x ({ms:.3f} ms)"


def unfused(budget):
    """A-IHT II's iteration without the fewer-launch paths (CudaBackend::fuse_launches, since
    they were built; '-' before), and its graph nodes."""
    ms = budget.get("a-iht-2_unfused_ms_per_iteration")
    if ms is None:
        return "-"
    nodes = budget["a-iht-2_unfused_graph_nodes_per_iteration"]
    return f"{budget['a-iht-2_unfused_ratio_to_floor']:.3f}x ({ms:.3f} ms, {nodes:.0f} nodes)"


def hinting_every_budget(budget):
    """A-IHT II's iteration with hints at a k above the default's largest hinted budget (since the
    default has one), and its selections made among the candidates."""
    ms = budget.get("a-iht-2_hinting_every_budget_ms_per_iteration")
    if ms is None:
        return "-"
    among = budget["a-iht-2_hinting_every_budget_selections_by_candidates"]
    full = budget["a-iht-2_hinting_every_budget_selections_by_full_passes"]
    return f"{ms:.3f} ms ({among} of {among + full})"


def full_passes(budget):
    """The top-k with its threshold reuse off (since the reuse was built; '-' before)."""
    ms = budget.get("top_k_full_passes_ms")
    return f"{ms:.3f} ms" if ms is not None else "-"


def candidate_share(budget):
    """A-IHT II's hinted selections made among the candidates, of all its hinted selections."""
    among = budget.get("a-iht-2_selections_by_candidates")
    full = budget.get("a-iht-2_selections_by_full_passes")
    if among is None or full is None or among + full == 0:
        return "-"
    return f"{among} of {among + full}"


def tile_kernel_pair(case):
    """(gemv ms, kernel ms, difference) of a case that timed both, else None. Three layouts: before
    13f7296 phi_t_r_* was cuBLAS' and the short-column kernel had phi_t_r_short_kernel_*; at
    13f7296 and 248d8f7 phi_t_r_* was the kernel's and cuBLAS' had phi_t_r_cublas_*; since, both
    have their own keys (phi_t_r_cublas_*, phi_t_r_tiled_*) and phi_t_r_* is the backend's."""
    if "phi_t_r_short_kernel_ms" in case:
        return (case["phi_t_r_ms"], case["phi_t_r_short_kernel_ms"],
                case["phi_t_r_short_kernel_max_difference_over_largest_entry"])
    if "phi_t_r_cublas_ms" in case:
        kernel_ms = case.get("phi_t_r_tiled_ms", case["phi_t_r_ms"])
        return (case["phi_t_r_cublas_ms"], kernel_ms,
                case["phi_t_r_max_difference_from_cublas_over_largest_entry"])
    return None


def phi_t_r_kernels_table(runs):
    """Each Phi^T r kernel alone (runs since the streamed kernel: phi_t_r_<name>_ms for cublas,
    tiled, streamed), as a fraction of the copy bandwidth; empty for older runs."""
    names = ["cublas", "tiled", "streamed"]
    lines = markdown_header(["n", "S", "backend's kernel"] +
                            [f"{name} vs copy" for name in names] +
                            ["largest difference from cuBLAS / largest entry: tiled, streamed"])
    seen = set()
    for run in runs:
        if not any("phi_t_r_streamed_ms" in case for case in run["cases"]):
            continue  # a run before the streamed kernel
        for case in run["cases"]:
            key = (case.get("n"), case.get("S"))
            if "phi_t_r_cublas_ms" not in case or key in seen:
                continue
            seen.add(key)
            cells = []
            for name in names:
                ms = case.get(f"phi_t_r_{name}_ms")
                cells.append(f"{case['floor_ms'] / ms:.3f} ({ms:.4f} ms)" if ms else "-")
            differences = [case.get(f"phi_t_r_{prefix}max_difference_from_cublas_over_largest_entry")
                           for prefix in ["", "streamed_"]]
            lines.append(f"| {case['n']:.0e} | {case['S']} | {case['phi_t_r_kernel']} | " +
                         " | ".join(cells) + " | " +
                         ", ".join(f"{d:.2e}" if d is not None else "-" for d in differences) +
                         " |")
    return lines if len(lines) > 2 else []


def other_phi_t_r(budget):
    """A-IHT II's iteration with each other Phi^T r kernel that takes the columns (at the host
    loop's budget, since the streamed kernel)."""
    cells = []
    for name in ["cublas", "tiled", "streamed"]:
        ms = budget.get(f"a-iht-2_phi_t_r_by_{name}_ms_per_iteration")
        if ms is not None:
            cells.append(f"{name} {ms:.3f} ms")
    return "; ".join(cells) if cells else "-"


def tile_kernel_table(runs):
    lines = [
        "| n | S | cuBLAS gemv vs copy | column-tile kernel vs copy | largest difference /"
        " largest entry |",
        "| --- | --- | --- | --- | --- |",
    ]
    seen = set()
    for run in runs:
        for case in run["cases"]:
            key = (case.get("n"), case.get("S"))
            pair = tile_kernel_pair(case)
            if pair is None or key in seen:
                continue
            seen.add(key)
            gemv_ms, kernel_ms, difference = pair
            floor_ms = case["floor_ms"]
            lines.append(
                f"| {case['n']:.0e} | {case['S']} "
                f"| {floor_ms / gemv_ms:.3f} ({gemv_ms:.4f} ms) "
                f"| {floor_ms / kernel_ms:.3f} ({kernel_ms:.4f} ms) "
                f"| {difference:.2e} |")
    return lines if len(lines) > 2 else []


def primitives_table(run):
    lines = []
    for case in run["cases"]:
        for b in case.get("budgets", []):
            costs = b.get("primitives", {})
            if "primitives" not in costs:
                continue
            lines.append(f"n = {case['n']:.0e}, S = {case['S']}, k = {b['k']} "
                         f"(lists: {costs.get('list_sizes')})")
            lines.append("")
            lines.append("| primitive | us per call | graph nodes per call |")
            lines.append("| --- | --- | --- |")
            for name, cost in costs["primitives"].items():
                if "error" in cost:
                    lines.append(f"| {name} | error: {cost['error']} | |")
                else:
                    lines.append(f"| {name} | {cost['us_per_call']:.2f} "
                                 f"| {cost['nodes_per_call']:.1f} |")
            lines.append("")
    return lines


def stage_cell(stage):
    """A stage's seconds, with its floor when it has one; "-" when the run lacks it."""
    if stage is None:
        return "-"
    if stage["floor_seconds"] > 0:
        return f"{stage['seconds']:.3f} s (floor {stage['floor_seconds']:.3f})"
    return f"{stage['seconds']:.3f} s"


def markdown_header(columns):
    """A table's header row and its separator."""
    return ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]


def end_to_end_cases(runs):
    """Every end-to-end case of the runs, in order."""
    for run in runs:
        for case in run.get("end_to_end_cases", []):
            yield case


def end_to_end_table(runs):
    order = ["setup", "laplace", "sampling", "upload_and_projection", "solve", "evaluation"]
    lines = markdown_header(["N", "S", "total", "floor", "ratio"] + order + ["outside stages"])
    for case in end_to_end_cases(runs):
        stages = case["stages"]
        cells = [stage_cell(stages.get(name)) for name in order]
        lines.append(
            f"| {case['N']:.0e} | {case['S']} | {case['seconds_total']:.3f} s "
            f"| {case['floor_seconds']:.3f} s "
            f"| {case['seconds_total'] / case['floor_seconds']:.2f}x | " + " | ".join(cells) +
            f" | {case.get('seconds_outside_stages', float('nan')):.3f} s |")
    return lines


def alone_table(runs):
    """The end-to-end parts timed again alone beside the build (older runs lack some: "-")."""
    order = ["model_alone", "model_copied_alone", "session_alone", "upload_alone",
             "upload_registered_alone",
             "laplace_alone", "projection_alone", "phi_release_alone"]
    lines = markdown_header(["N", "S"] + order + ["registered: register / copy / unregister",
                                                   "projection: set-up / GEMMs / link passes /"
                                                   " between blocks"])
    for case in end_to_end_cases(runs):
        stages = case["stages"]
        cells = [stage_cell(stages.get(name)) for name in order]
        registered = case.get("upload_registered", {})
        if "seconds" in registered:
            parts = (f"{registered['register_seconds']:.3f} / {registered['copy_seconds']:.3f}"
                     f" / {registered['unregister_seconds']:.3f} s")
        else:
            parts = registered.get("failed", "-")
        projection = case.get("projection_parts")
        if projection:
            projection_cell = (f"{projection['setup_seconds']:.3f} / "
                               f"{projection['products_seconds']:.3f} / "
                               f"{projection['link_passes_seconds']:.3f} / "
                               f"{projection['between_blocks_seconds']:.3f} s "
                               f"({projection['blocks']} blocks)")
        else:
            projection_cell = "-"
        lines.append(f"| {case['N']:.0e} | {case['S']} | " + " | ".join(cells) +
                     f" | {parts} | {projection_cell} |")
    return lines


def host_memory_table(runs):
    """Where the set-up's fresh pages came from (runs since bench_host_memory.hpp), in GB."""
    lines = markdown_header(["N", "setup", "of it: dataset checks / model / context / memory checks",
                             "free before", "of it in blocks >= 2 MiB",
                             "process RSS at the first stage", "of it in huge pages"])
    for case in end_to_end_cases(runs):
        memory = case.get("host_memory")
        if not memory:
            continue
        before = memory["before_build"]
        process = memory["process_at_first_stage"] or {}
        gb = lambda value: f"{value / 1e9:.1f}" if value is not None and value >= 0 else "-"
        parts = case.get("setup_parts")  # runs since pipeline/setup_parts.hpp
        split = " / ".join(f"{parts[f'{name}_seconds']:.3f}" for name in
                           ("dataset_checks", "model", "context", "memory_checks")) if parts else "-"
        lines.append(f"| {case['N']:.0e} | {case['stages']['setup']['seconds']:.3f} s | {split} "
                     f"| {gb(before.get('mem_free_bytes'))} "
                     f"| {gb(before.get('free_in_blocks_of_a_huge_page_or_more_bytes'))} "
                     f"| {gb(process.get('rss_bytes'))} "
                     f"| {gb(process.get('anon_huge_pages_bytes'))} |")
    return lines if len(lines) > 2 else []


def stage_shape_table(runs):
    """The staged upload through other pinned buffers (runs since kernels::StageShape)."""
    lines = markdown_header(["N", "staged", "buffers x MiB: seconds (GB/s)"])
    for case in end_to_end_cases(runs):
        shapes = case.get("upload_by_stage_shape")
        if not shapes:
            continue
        cells = [f"{run['buffers']} x {run['stage_bytes'] / 2**20:g}: {run['seconds']:.3f} s "
                 f"({run['bytes_per_second'] / 1e9:.1f})" for run in shapes["runs"]]
        lines.append(f"| {case['N']:.0e} | {shapes['staged']} | " + "; ".join(cells) + " |")
    return lines if len(lines) > 2 else []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1])
    iterations = load(folder, "bench_iterations.json")
    primitives = load(folder, "bench_primitives.json")
    ends = [run for run in (load(folder, "bench_end_to_end.json"),
                            load(folder, "bench_end_to_end_1e8.json")) if run]
    sections = []
    if iterations:
        sections.append(("Per iteration (ratio to one read of Phi at the copy bandwidth)",
                         iterations_table(iterations)))
        comparison = iterations.get("cpu_comparison")
        if comparison:
            sections.append(("GPU against the CPU backend", [
                f"n = {comparison['n']:.0e}, S = {comparison['S']}, k = {comparison['k']}: "
                f"{comparison['gpu_ms_per_iteration']:.3f} ms against "
                f"{comparison['cpu_ms_per_iteration']:.1f} ms "
                f"({comparison['cpu_threads']} threads), {comparison['speedup']:.1f}x"
            ]))
    kernels = phi_t_r_kernels_table([run for run in (iterations, primitives) if run])
    if kernels:
        sections.append(("Phi^T r: each kernel alone", kernels))
    tiles = [] if kernels else tile_kernel_table([run for run in (iterations, primitives) if run])
    if tiles:
        sections.append(("Phi^T r: the column-tile kernel beside cuBLAS", tiles))
    if primitives:
        sections.append(("Each primitive of an A-IHT II iteration, alone in a CUDA graph",
                         primitives_table(primitives)))
    if ends:
        sections.append(("End to end", end_to_end_table(ends)))
        sections.append(("End to end: parts timed again alone", alone_table(ends)))
        shapes = stage_shape_table(ends)
        if shapes:
            sections.append(("End to end: the upload through other pinned stages", shapes))
        memory = host_memory_table(ends)
        if memory:
            sections.append(("End to end: the host's memory (GB)", memory))
    for title, lines in sections:
        print(f"## {title}\n")
        print("\n".join(lines))
        print()


if __name__ == "__main__":
    main()
