#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds (default 600) on the seeds in
# fuzz/seeds/<target>; new corpus entries go to fuzz/corpus/<target>.
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(split_invariance nothing_lost roundtrip)
# The output below is filtered: a missing tool must not pass for a quiet run.
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: needs cargo-fuzz and a nightly toolchain (cargo install cargo-fuzz)" >&2
  exit 2
fi
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  echo "== $t for ${secs}s"
  # Keep what matters: the final stats, and a crash's message and file.
  cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" -- -max_total_time="$secs" -max_len=65536 -print_final_stats=1 2>&1 \
    | grep -a -E "panicked|assertion|Done [0-9]+ runs|stat::number_of_executed_units|Test unit written|SUMMARY" -A2 || true
done
