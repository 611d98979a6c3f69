#!/usr/bin/env bash
# `mpirun -np R coreset solve` against one process on the same files: the coreset files must be
# identical byte for byte, for every algorithm, from --phi and from --loglik, with and without
# --y; and a bad file on one rank must stop every rank with one message and no output.
# Usage: check_distributed_solve.sh CORESET_BINARY RANKS [MPIEXEC]   (ctest: R = 1, 2, 3, 4)
set -euo pipefail
coreset="$1"
ranks="$2"
mpiexec="${3:-mpirun}"
subcommand=solve
. "$(dirname "$0")/mpi_check.sh"

# Phi (S x n, CSV: S lines) with n = 1100: four reduction blocks of 256 and a short one, so R = 3
# and 4 give uneven splits and the last rank fewer points than k. Columns share a direction, as
# centred log-likelihoods do; columns 900 and 1030 copy columns 3 and 600 (duplicates that cross
# ranks). The log-likelihoods (n x S) and a target y (S values) come from the same generator.
awk -v S=30 -v n=1100 'BEGIN {
  srand(7)
  for (i = 0; i < S; i++) common[i] = rand() - 0.5
  for (j = 0; j < n; j++) for (i = 0; i < S; i++) phi[i, j] = (rand() - 0.5) / 3 + common[i]
  for (i = 0; i < S; i++) { phi[i, 900] = phi[i, 3]; phi[i, 1030] = phi[i, 600] }
  for (i = 0; i < S; i++) {
    line = ""
    for (j = 0; j < n; j++) line = line (j ? "," : "") sprintf("%.17g", phi[i, j])
    print line > "phi.csv"
  }
  for (j = 0; j < n; j++) {
    line = ""
    for (i = 0; i < S; i++) line = line (i ? "," : "") sprintf("%.17g", -1 - 3 * rand())
    print line > "loglik.csv"
  }
  for (i = 0; i < S; i++) print 200 * common[i] + rand() > "y.csv"
}'

compare aiht2 --phi phi.csv -k 40
compare aiht2_y_refit --phi phi.csv --y y.csv -k 40 --refit
compare aiht_batch --phi phi.csv -k 40 --algorithm a-iht --batch-fraction 0.3 --seed 5
compare iht --phi phi.csv -k 40 --algorithm iht --max-iter 50 --seed 2
compare giga --phi phi.csv -k 40 --algorithm giga
compare fw_refit --phi phi.csv -k 40 --algorithm fw --refit
compare is --phi phi.csv -k 40 --algorithm is --seed 3
compare uniform --phi phi.csv -k 40 --algorithm uniform --seed 3
compare loglik_float --loglik loglik.csv -k 30 --precision float
# Every gather in rounds of at most 64 bytes from all ranks together (one from each rank at R =
# 64): the same coreset.
CORESET_MPI_GATHER_ROUND_BYTES=64 compare gather_rounds --phi phi.csv -k 40 --refit
# The same matrices as .npy in both orders: each rank reads only its block's bytes.
/usr/bin/python3 - <<'PY' 2>/dev/null || true
import numpy as np
phi = np.loadtxt("phi.csv", delimiter=",")
loglik = np.loadtxt("loglik.csv", delimiter=",")
np.save("phi_c.npy", phi)
np.save("phi_f.npy", np.asfortranarray(phi))
np.save("loglik_c.npy", loglik.astype(np.float32))
np.save("loglik_f.npy", np.asfortranarray(loglik))
PY
if [ -e phi_c.npy ]; then
  cmp <("$coreset" -q solve --phi phi.csv -k 40) <("$coreset" -q solve --phi phi_c.npy -k 40) ||
    fail "the .npy Phi is not the CSV's"
  compare npy_c --phi phi_c.npy -k 40
  compare npy_f_giga --phi phi_f.npy -k 40 --algorithm giga
  compare loglik_npy_c --loglik loglik_c.npy -k 30 --precision float
  compare loglik_npy_f --loglik loglik_f.npy -k 30 --refit
else
  echo "note: numpy is absent; the .npy solves were skipped"
fi

check_devices aiht2 --phi phi.csv -k 40

# A bad file on one rank (each rank reads its own copy here): every rank stops, one message names
# the file, line and rank, the exit code is the input error's (3), and nothing is written.
if [ "$ranks" -ge 2 ]; then
  bad=$((ranks - 1))
  for r in $(seq 0 $((ranks - 1))); do cp phi.csv "phi_$r.csv"; done
  # The last cell of line 5: the last datapoint, the last rank's (each rank parses only its own
  # columns of a CSV Phi).
  sed -i '5s/,[^,]*$/,oops/' "phi_$bad.csv"
  set +e
  "${mpirun[@]}" bash -c 'exec "$0" -q solve --phi "phi_${OMPI_COMM_WORLD_RANK}.csv" -k 40 \
      --out bad.csv' "$coreset" 2> bad.err
  status=$?
  set -e
  expect_one_failure "bad file" "$status" 3 bad.err "phi_$bad.csv:5:1100: .*(rank $bad of $ranks)"
  [ ! -e bad.csv ] || fail "bad file: an output was written"
fi
echo "ok: $ranks ranks"
