#!/bin/bash
# Usage: OLD=path/to/coreset(d9bbc31) NEW=path/to/coreset(3317bd4) bash run.sh, after make_data.py.
# Cold one-shot builds: each after 12 s idle. old = d9bbc31 (huge pages advised for Matrix storage),
# new = 3317bd4 default (no advice) and CORESET_HUGE_PAGES=1 (advice for Matrix storage and the model).
run() { label=$1; shift; sleep 12; env "$@" --data /tmp/big.npy --model logistic --samples 100 -k 100 --max-iter 5 --device cpu --report /tmp/huge_pages_report.json >/dev/null 2>&1; /usr/bin/python3 -c "
import json;r=json.load(open('/tmp/huge_pages_report.json'))['seconds'];print('$label', ' '.join('%s %.3f'%(k,r[k]) for k in ['setup','pihat','projection','solve','total']))"; }
for i in 1 2 3; do
  run "d9bbc31          " "$OLD" build
  run "3317bd4 default  " "$NEW" build
  run "3317bd4 THP=1    " CORESET_HUGE_PAGES=1 "$NEW" build
done
