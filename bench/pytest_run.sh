#!/usr/bin/env bash
# Device call: the whole pytest suite on the full build (ARCHS, default
# 90a;100a so the SASS tests run too), spread over N processes by pytest-xdist
# with -v, so every failure's test id is in the log even if the time limit cuts
# the summary; the failures re-run serially with tracebacks (flaky or not?);
# the reliability file (device-memory accounting) alone and serially.
# Usage: OUT=... [ARCHS=...] [N=...] bash bench/pytest_run.sh
source "$(dirname "$0")/device_lib.sh"
tcgemm_build "${ARCHS:-90a;100a}"
python3 -c "from tcgemm import _core; print('ldmatrix-fed ceiling (best of 5): %.0f TFLOPS' % _core.mma_sync_peak(_core.Accum.f32, ldmatrix_fed=True))"
timeout ${PYTEST_TIMEOUT:-240} python3 -m pytest -v -rs -n ${N:-6} tests/python --ignore=tests/python/test_reliability.py \
  > $OUT/pytest.log 2>&1; echo "$(el) pytest -n ${N:-6} (all but reliability) rc=$?: $(tail -1 $OUT/pytest.log)"
grep -E " (FAILED|ERROR) " $OUT/pytest.log | head
timeout 90 python3 -m pytest -q --lf --lfnf=none --tb=short tests/python --ignore=tests/python/test_reliability.py \
  > $OUT/pytest_lf.log 2>&1; echo "$(el) the failures again, serially, rc=$?: $(tail -1 $OUT/pytest_lf.log)"
grep -E "^E |^FAILED|Error" $OUT/pytest_lf.log | head -30
timeout 60 python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_reliability.py > $OUT/pytest_rel.log 2>&1
echo "$(el) pytest test_reliability.py rc=$?: $(tail -1 $OUT/pytest_rel.log)"
(cd $OUT && gzip -f pytest.log)
