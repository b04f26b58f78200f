#!/usr/bin/env bash
# Device call: the whole pytest suite on the full build (90a;100a, so the SASS
# tests run too), spread over processes by pytest-xdist; the reliability file
# (device-memory accounting) alone and serially. Usage: OUT=... bash bench/pytest_run.sh
source "$(dirname "$0")/device_lib.sh"
tcgemm_build "90a;100a"
timeout 200 python3 -m pytest -q -rs -n 6 -p no:cacheprovider tests/python --ignore=tests/python/test_reliability.py \
  > $OUT/pytest.log 2>&1; echo "$(el) pytest -n 6 (all but reliability) rc=$?: $(tail -1 $OUT/pytest.log)"
grep -E "^FAILED|^ERROR" $OUT/pytest.log | head
timeout 60 python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_reliability.py > $OUT/pytest_rel.log 2>&1
echo "$(el) pytest test_reliability.py rc=$?: $(tail -1 $OUT/pytest_rel.log)"
