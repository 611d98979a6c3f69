"""Forward and symmetric KL of A-IHT II coresets against k, on the built-in logistic data.

Needs matplotlib (Debian: python3-matplotlib). Writes kl_vs_k.png (or the path given).
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import coreset  # noqa: E402

X, y = coreset.synthetic_logistic()
budgets = [5, 10, 20, 50, 100, 200]
runs = [coreset.build(X, y, model="logistic", k=k, max_iter=1000, device="auto") for k in budgets]
forward = [run.report["quality"]["forward_kl"] for run in runs]
symmetric = [run.report["quality"]["symmetric_kl"] for run in runs]

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(budgets, forward, "o-", label="KL(full || coreset)")
ax.loglog(budgets, symmetric, "s--", label="symmetric KL")
ax.set_xlabel("coreset size k")
ax.set_ylabel("KL divergence (nats)")
ax.set_title("A-IHT II coresets, synthetic logistic (N = 10,000)")
ax.legend()
ax.grid(True, which="both", alpha=0.3)
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "kl_vs_k.png"
fig.savefig(out, dpi=120)
print("wrote", out)
