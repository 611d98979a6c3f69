"""What calling the engine from Python costs: coreset.solve on an n x S float32 Phi against the
same solve inside the C++ library, timed in the same call.

The library times its own solve (report["seconds"]: validation, the iterations and the result,
measured inside solve()), so wall time minus that is exactly what the binding adds: the argument
checks, the array handling, building the Coreset and the report. The copies are read from the
report (report["python"]["arrays"]). Usage (after README's Python set-up, or with PYTHONPATH set
to build/python):

    python3 bench/bench_python.py [--n 1000000] [--samples 500] [--k 100] [--max-iter 20]
                                  [--repeats 3] [--out bench/results/python_<date>.json]
"""

import argparse
import json
import os
import platform
import time

import numpy as np

import coreset


def planted_phi(n, samples, seed=0):
    """Phi = B C + noise in Fortran order, built in column blocks to bound the temporary memory."""
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(samples, 8)).astype(np.float32)
    phi = np.empty((samples, n), dtype=np.float32, order="F")
    for start in range(0, n, 100000):
        stop = min(n, start + 100000)
        block = basis @ rng.normal(size=(8, stop - start)).astype(np.float32)
        block += 0.05 * rng.standard_normal(size=block.shape, dtype=np.float32)
        phi[:, start:stop] = block
    return phi


def cpu_description():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000000)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--max-iter", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--out")
    args = parser.parse_args()

    phi = planted_phi(args.n, args.samples)
    runs = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        result = coreset.solve(phi, k=args.k, max_iter=args.max_iter, tol=0.0,
                               device=args.device)
        wall = time.perf_counter() - started
        inside = result.report["seconds"]
        runs.append({"python_seconds": wall, "library_seconds": inside,
                     "overhead_seconds": wall - inside, "overhead_ratio": wall / inside,
                     "iterations": result.report["iterations"]})
    best = min(runs, key=lambda run: run["overhead_ratio"])
    worst = max(runs, key=lambda run: run["overhead_ratio"])
    summary = {
        "benchmark": "python_solve_overhead",
        "n": args.n, "samples": args.samples, "k": args.k, "max_iter": args.max_iter,
        "dtype": "float32", "phi_bytes": phi.nbytes,
        "backend": result.report["runtime"]["backend"],
        "arrays": result.report["python"]["arrays"],
        "machine": {"cpu": cpu_description(), "cores": os.cpu_count(),
                    "gpu": result.report["runtime"]["gpu"]},
        "coreset_version": coreset.__version__, "numpy": np.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "runs": runs,
        "overhead_ratio_best": best["overhead_ratio"],
        "overhead_ratio_worst": worst["overhead_ratio"],
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    main()
