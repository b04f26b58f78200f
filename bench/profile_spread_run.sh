#!/usr/bin/env bash
# Device call: ncu of one Ada kernel at 4096^3 fp16 (default sm89.mma_spread_8w.s3, TN):
# details, raw metrics and per-instruction stall samples, packed into one tarball.
# Usage: OUT=... bash bench/profile_spread_run.sh [kernel:layout ...]
source "$(dirname "$0")/device_lib.sh"
tcgemm_build 90a
P=/tmp/prof; mkdir -p $P
timeout 120 ncu -k regex:mma_sync --set full --import-source no -o $P/prof \
  python3 bench/profile_ada.py 4096 ${@:-sm89.mma_spread_8w.s3:TN} > $P/ncu.log 2>&1; echo "$(el) ncu rc=$?"
ncu -i $P/prof.ncu-rep --page details > $P/details.txt 2>&1
ncu -i $P/prof.ncu-rep --page raw --csv > $P/raw.csv 2>&1
ncu -i $P/prof.ncu-rep --page source --csv --print-source sass > $P/source.csv 2>&1
ls -la $P; (cd $P && tar czf $OUT/prof.tgz ncu.log details.txt raw.csv source.csv)
echo "$(el) done"
