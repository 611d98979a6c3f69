#!/usr/bin/env bash
# `mpirun -np R coreset build` against one process on the same data: the coreset files must be
# identical byte for byte and the reports must agree on the quality, for several models and
# algorithms, -k auto included, on the built-in example and (when ../shared/data is there) the
# papers' datasets; each rank reads only its share of a file's rows, SparseVI and RBF features
# included; a bad dataset must stop every rank with one message and no output.
# Usage: check_distributed_build.sh CORESET_BINARY RANKS DATA_DIR [MPIEXEC]   (ctest: R = 1 ... 4)
set -euo pipefail
coreset="$1"
ranks="$2"
data="$3"
mpiexec="${4:-mpirun}"
subcommand=build
. "$(dirname "$0")/mpi_check.sh"

# compare_own_rows NAME FILE ARGS...: after `compare NAME --data FILE ARGS...`, the mpirun job
# again with rank r reading its own copy of FILE in which every row outside its share
# (datapoint_range: blocks of 256 rows in rank order) has its digits turned to 'x', the same
# bytes: a rank that parsed another rank's row would fail, so each must read only its own, and
# the coreset must still be one process's byte for byte.
compare_own_rows() {
  local name="$1" file="$2" r
  shift 2
  for r in $(seq 0 $((ranks - 1))); do
    awk -v r="$r" -v R="$ranks" 'NR == FNR { n = FNR - 1; next }
      FNR == 1 { b = int((n + 255) / 256); first = int(b * r / R) * 256
                 end = int(b * (r + 1) / R) * 256; print; next }
      { i = FNR - 2; if (i < first || i >= end) gsub(/[0-9]/, "x"); print }' \
      "$file" "$file" > "own_${r}_$file"
  done
  "${mpirun[@]}" bash -c 'exec "$0" -q build --data "own_${OMPI_COMM_WORLD_RANK}_$1" "${@:2}"' \
    "$coreset" "$file" "$@" --device cpu --out "own_$name.csv" ||
    fail "$name: mpirun on the ranks' own rows exited with $?"
  cmp "one_$name.csv" "own_$name.csv" || fail "$name: the ranks' own rows differ from one process"
}

# The built-in example (N = 10,000 synthetic logistic rows), smaller S to keep CI short.
compare example --model logistic -k 40 --samples 60 --max-iter 200
check_devices example --model logistic -k 40 --samples 60 --max-iter 200
compare example_float_giga --model logistic -k 30 --samples 60 --algorithm giga --precision float
compare example_sparsevi --model logistic -k 4 --samples 40 --algorithm sparsevi \
  --sparsevi-steps 5 --sparsevi-samples 20 --refit
compare example_auto --model logistic -k auto --target-error 0.3 --samples 60 --max-iter 200

# A gaussian dataset of 1,100 rows (uneven splits; at R = 4 the last rank holds 76 points).
awk 'BEGIN { srand(3); print "x1,x2,x3"
  for (i = 0; i < 1100; i++) printf "%.6f,%.6f,%.6f\n", rand() * 4 - 1, rand() - 2, rand() * 2 }' \
  > gaussian.csv
compare gaussian --data gaussian.csv --model gaussian -k 25 --samples 50 --refit
# The same rows as LIBSVM (sparse: zeros left out; comments around the rows): each rank reads
# its share by byte range, and D, the largest index, comes from the ranks together.
awk -F, 'NR == 1 { print "# generated from gaussian.csv"; next }
  { label = ($1 + $2 + 1.5 > 0.3 * $3) ? 1 : -1; line = label
    for (i = 1; i <= 3; i++) if ($i + 0 != 0 && (i != 2 || NR % 3)) line = line " " i ":" $i
    print line }
  END { print "# end" }' gaussian.csv > logistic.svm
compare libsvm --data logistic.svm --model logistic -k 20 --samples 40 --refit
# The same rows as logistic and linear CSV files (linear: a response from the covariates and
# noise). SparseVI and the linear model's RBF features run from the ranks' shares too: the
# coreset posterior's rows and the RBF centres are gathered from the ranks that hold them, the
# covariate means summed exactly over the ranks.
awk -F, 'NR == 1 { print "x1,x2,x3,y"; next }
  { printf "%s,%s,%s,%d\n", $1, $2, $3, ($1 + $2 + 1.5 > 0.3 * $3) ? 1 : -1 }' \
  gaussian.csv > logistic.csv
awk -F, 'BEGIN { srand(5) } NR == 1 { print "x1,x2,x3,y"; next }
  { printf "%s,%s,%s,%.6f\n", $1, $2, $3, $1 - 0.5 * $2 + 0.2 * $3 + rand() - 0.5 }' \
  gaussian.csv > linear.csv
compare sparsevi --data logistic.csv --model logistic -k 6 --samples 40 --algorithm sparsevi \
  --sparsevi-steps 5 --sparsevi-samples 20 --refit
compare_own_rows sparsevi logistic.csv --model logistic -k 6 --samples 40 --algorithm sparsevi \
  --sparsevi-steps 5 --sparsevi-samples 20 --refit
compare rbf --data linear.csv --model linear --rbf --rbf-centers 20 --rbf-scales 0.5,1,2 -k 20 \
  --samples 50
compare_own_rows rbf linear.csv --model linear --rbf --rbf-centers 20 --rbf-scales 0.5,1,2 \
  -k 20 --samples 50
compare rbf_sparsevi --data linear.csv --model linear --rbf --rbf-centers 10 \
  --rbf-scales 0.5,1 -k 5 --samples 40 --algorithm sparsevi --sparsevi-steps 5 \
  --sparsevi-samples 20
compare_own_rows rbf_sparsevi linear.csv --model linear --rbf --rbf-centers 10 \
  --rbf-scales 0.5,1 -k 5 --samples 40 --algorithm sparsevi --sparsevi-steps 5 \
  --sparsevi-samples 20

# The same rows as a logistic .npy (the last column the label): each rank maps only its share.
/usr/bin/python3 - <<'PY' 2>/dev/null || true
import numpy as np
x = np.loadtxt("gaussian.csv", delimiter=",", skiprows=1)
y = np.where(x[:, 0] + x[:, 1] + 1.5 > 0.3 * x[:, 2], 1.0, -1.0)
np.save("logistic.npy", np.column_stack([x, y]))
np.save("logistic_f.npy", np.asfortranarray(np.column_stack([x, y])))
PY
if [ -e logistic.npy ]; then
  compare npy --data logistic.npy --model logistic -k 20 --samples 40 --algorithm a-iht --refit
  compare npy_fortran --data logistic_f.npy --model logistic -k 20 --samples 40 --precision float
else
  echo "note: numpy is absent; the .npy builds were skipped"
fi

if [ -d "$data" ]; then
  compare ds1 --data "$data/ds1.csv" --model logistic -k 30 --samples 80
  compare biketrips --data "$data/biketrips_large.csv" --model poisson -k 50 --samples 60 \
    --algorithm a-iht --max-iter 150
else
  echo "note: $data is absent; the papers' datasets were skipped"
fi

# A bad dataset (each rank reads its own copy here; the last rank's is broken on line 1100, in
# the last rank's share): every rank stops, one message names the file, line and rank, the exit
# code is the input error's (3), nothing written.
if [ "$ranks" -ge 2 ]; then
  bad=$((ranks - 1))
  for r in $(seq 0 $((ranks - 1))); do cp gaussian.csv "data_$r.csv"; done
  sed -i '1100s/^[^,]*,/oops,/' "data_$bad.csv"
  set +e
  "${mpirun[@]}" bash -c 'exec "$0" -q build --data "data_${OMPI_COMM_WORLD_RANK}.csv" \
      --model gaussian -k 10 --out bad.csv --report bad.json' "$coreset" 2> bad.err
  status=$?
  set -e
  expect_one_failure "bad file" "$status" 3 bad.err "data_$bad.csv:1100:1: .*(rank $bad of $ranks)"
  [ ! -e bad.csv ] && [ ! -e bad.json ] || fail "bad file: an output was written"

  # A target that no k reaches: exit 8 (kTargetNotReached), one message, nothing written.
  set +e
  "${mpirun[@]}" "$coreset" -q build --data gaussian.csv --model gaussian -k auto \
    --target-error 1e-12 --samples 30 --out none.csv 2> none.err
  status=$?
  set -e
  expect_one_failure "unreachable target" "$status" 8 none.err
  [ ! -e none.csv ] || fail "unreachable target: an output was written"

  # Ctrl-C reaching the last rank alone, in the middle of a long solve: every rank stops at the
  # same iteration and exits with 130, one message, nothing written (no rank left waiting).
  set +e
  "${mpirun[@]}" bash -c 'echo $$ > "pid_${OMPI_COMM_WORLD_RANK}"; exec "$0" -q build       --model logistic -k 500 --samples 500 --max-iter 100000 --tol 1e-300 --out stop.csv'       "$coreset" 2> stop.err &
  job=$!
  for _ in $(seq 100); do [ -s "pid_$bad" ] && break; sleep 0.2; done
  sleep 3
  kill -INT "$(cat "pid_$bad")"
  wait "$job"
  status=$?
  set -e
  expect_one_failure "Ctrl-C on one rank" "$status" 130 stop.err "interrupted.*stopped, no output written"
  [ ! -e stop.csv ] || fail "Ctrl-C on one rank: an output was written"
fi
echo "ok: $ranks ranks"
