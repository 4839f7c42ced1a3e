#!/bin/sh
# The measurements that need more cores than the 2-core development machine, as one
# script for a lent many-core machine (docs/performance.md, "Measurements on many cores"):
#
#   issue 34: Kalah-v0 vector steps on 1, 2 and 16 threads, 1024 and 8192 games;
#   issue 32: the optimal Mastermind search on 1 and 16 threads (4 x 8, then 5 x 6).
#
# Usage, from the repository root:  sh bench/device_checks.sh TAG [SECONDS]
#
# Each step has its own time limit and runs only if that much of SECONDS (default 540)
# is left, so the script ends inside one command's limit and says what it skipped. The
# log and every result file named after TAG go to $OUT (or bench/results without it).
# Gymnasium (needed by bench/envs.py) is installed from wheels in .whl when the machine
# lacks it (made beforehand where pip works: `python3 -m pip download --no-deps
# --only-binary=:all: --python-version 3.12 -d .whl gymnasium==1.4.0 farama-notifications`,
# then `carry` names .whl); OpenSpiel's comparison runs only where pyspiel imports.
# PYTHON names the interpreter (default python3).
set -u
tag=${1:?usage: sh bench/device_checks.sh TAG [SECONDS]}
total=${2:-540}
case $tag in *[!A-Za-z0-9_-]*) echo "device_checks: TAG must be letters, digits, - or _" >&2; exit 2;; esac
out=${OUT:-bench/results}
mkdir -p "$out"
log="$out/device_$tag.log"
start=$(date +%s)
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
py=${PYTHON:-python3}

if ! "$py" -c "import gymnasium" 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
    "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi

{
    "$py" -c "import sys, numba, numpy; print(sys.version.split()[0], 'numba', numba.__version__, 'numpy', numpy.__version__)"
    nproc
    lscpu | grep "Model name"
    "$py" -c "import gymnasium; print('gymnasium', gymnasium.__version__)" 2>&1 | tail -1
} >"$log" 2>&1

step() {  # step LIMIT COMMAND...: run COMMAND under LIMIT seconds if that many are left
    limit=$1; shift
    left=$((total - ($(date +%s) - start)))
    if [ "$left" -lt "$limit" ]; then
        echo "=== skipped (needs ${limit}s, ${left}s left): $*" >>"$log"
        return
    fi
    echo "=== $(date -u +%H:%M:%S) [${limit}s] $*" >>"$log"
    timeout -s INT "$limit" "$@" >>"$log" 2>&1
    echo "=== rc=$?" >>"$log"
}

step 150 "$py" bench/envs.py --only vector --kalah-only --envs 1024 8192 --threads 1 2 16 \
    --repeats 5 --vector-steps 100 --out "bench/results/envs_vector_16core_$tag.json"
step 120 "$py" bench/mastermind_scaling.py --sizes 4x8 --threads 1 16 --repeats 3 \
    --out "mastermind_scaling_16core_${tag}_4x8.json"
step 120 "$py" bench/mastermind_scaling.py --sizes 5x6 --threads 16 \
    --out "mastermind_scaling_16core_${tag}_5x6_16.json"
step 400 "$py" bench/mastermind_scaling.py --sizes 5x6 --threads 1 \
    --out "mastermind_scaling_16core_${tag}_5x6_1.json"
echo "=== done, $((total - ($(date +%s) - start))) s left" >>"$log"

if [ "$out" != bench/results ]; then
    for f in bench/results/*"$tag"*; do
        [ -f "$f" ] && cp "$f" "$out/"
    done
fi
cat "$log"
