# The dataset of run.sh: 2e6 rows, 20 standard normal covariates and a logistic label, as .npy.
import numpy as np

rng = np.random.default_rng(1)
n, covariates = 2000000, 20
x = rng.standard_normal((n, covariates))
z = x @ np.where(np.arange(covariates) % 2 == 0, 0.3, -0.2)
y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
np.save("/tmp/big.npy", np.column_stack([x, y]))
