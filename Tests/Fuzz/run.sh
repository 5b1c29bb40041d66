#!/usr/bin/env bash
# Runs each fuzz target for SECONDS on its seed corpus (Tests/Fuzz/corpus/TARGET) and what
# earlier runs in OUTDIR found, and prints each target's executions and coverage. Exits 1 when
# a target crashed, broke an oracle or timed out; the input is kept as OUTDIR/artifacts/TARGET-*.
#   Tests/Fuzz/run.sh OUTDIR SECONDS [TARGET ...]     (targets: rules regex json framing)
# FUZZ_SEED fixes libFuzzer's seed (make test's short runs use 1, so each run tries the same
# inputs first); unset, every run draws its own.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR SECONDS [TARGET ...]}
seconds=${2:?usage: run.sh OUTDIR SECONDS [TARGET ...]}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(rules regex json framing)
failed=0
mkdir -p "$out/artifacts"
for target in "${targets[@]}"; do
    case $target in
        json) max_len=65536 ;;
        rules|regex) max_len=4096 ;;
        *) max_len=8192 ;;
    esac
    mkdir -p "$out/corpus/$target"
    log="$out/$target.log"
    FUZZ_TARGET=$target "$out/fuzz" "$out/corpus/$target" "$here/corpus/$target" \
        -dict="$here/dicts/$target.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=$max_len ${FUZZ_SEED:+-seed=$FUZZ_SEED} -print_final_stats=1 -artifact_prefix="$out/artifacts/$target-" > "$log" 2>&1
    status=$?
    executions=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    if [ $status -eq 0 ]; then
        echo "fuzz $target: ${executions:-?} executions in ${seconds} s, ${coverage:-no coverage line}, 0 crashes"
    else
        failed=1
        echo "fuzz $target: FAILED (status $status) after ${executions:-?} executions; the log is $log:"
        grep -E "FUZZ ORACLE|ERROR: |SUMMARY|input:|Test unit written" "$log" | head -20
    fi
done
exit $failed
