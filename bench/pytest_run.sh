#!/usr/bin/env bash
# Device call: the whole pytest suite on the full build (ARCHS, default
# 90a;100a so the SASS tests run too), spread over N processes by pytest-xdist
# with -v, so every failure's test id is in the log even if the time limit cuts
# the summary; those ids re-run serially with tracebacks (flaky or not?); the
# reliability file (device-memory accounting) alone and serially.
# Usage: OUT=... [ARCHS=...] [N=...] [PYTEST_TIMEOUT=...] bash bench/pytest_run.sh
source "$(dirname "$0")/device_lib.sh"
tcgemm_build "${ARCHS:-90a;100a}"
timeout 60 python3 -c "from tcgemm import _core; print('ldmatrix-fed ceiling (best of 5): %.0f TFLOPS' % _core.mma_sync_peak(_core.Accum.f32, ldmatrix_fed=True))"
timeout ${PYTEST_TIMEOUT:-240} python3 -m pytest -v -rs -n ${N:-6} -p no:cacheprovider tests/python \
  --ignore=tests/python/test_reliability.py > $OUT/pytest.log 2>&1
echo "$(el) pytest -n ${N:-6} (all but reliability) rc=$?: $(tail -1 $OUT/pytest.log)"
# Failed or erroring ids, from the per-test lines (the summary may have been cut).
grep -oE "(FAILED|ERROR) tests/python/[^ ]+" $OUT/pytest.log | awk '{print $2}' | sort -u > $OUT/failed.txt
if [ -s $OUT/failed.txt ]; then
  mapfile -t failed < $OUT/failed.txt
  echo "failed: ${failed[*]}"
  timeout 90 python3 -m pytest -q --tb=short -p no:cacheprovider "${failed[@]}" > $OUT/pytest_again.log 2>&1
  echo "$(el) the failures again, serially, rc=$?: $(tail -1 $OUT/pytest_again.log)"
  grep -E "^E |^FAILED|Error" $OUT/pytest_again.log | head -30
fi
timeout 60 python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_reliability.py > $OUT/pytest_rel.log 2>&1
echo "$(el) pytest test_reliability.py rc=$?: $(tail -1 $OUT/pytest_rel.log)"
(cd $OUT && gzip -f pytest.log)
