#!/usr/bin/env bash
# The table of docs/performance.md (reductions × models): runs `ftcheck check
# --json` once per row and prints a Markdown table of distinct states,
# generated states, seconds, generated per second and bytes per state.
# Not part of CI (about a quarter of an hour on 2 cores); run it on an idle
# machine:
#
#   bash ci/reductions.sh > /tmp/reductions.md
#
# Knobs (environment): QUICK=1 keeps only the rows that take seconds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BIN="$(mktemp -d)/ftcheck"
go build -o "$BIN" ./cmd/ftcheck

rows=(
  "twophase --rm 8 --workers 1"
  "twophase --rm 8"
  "twophase --rm 8 --dfs"
  "twophase --rm 8 --symmetry"
  "twophase --rm 8 --por"
  "twophase --rm 9 --workers 1"
  "twophase --rm 9"
  "twophase --rm 9 --dfs"
  "twophase --rm 9 --symmetry"
  "era --n 4 --crashes 3"
  "era --n 4 --crashes 3 --por"
  "era --n 4 --crashes 3 --dfs"
  "era --n 5 --crashes 1"
  "era --n 5 --crashes 1 --por"
  "era --n 6 --crashes 1 --dfs"
  "correction --P 6 --correction opportunistic --d 1 --faults 2 --faults-before-correction"
  "correction --P 6 --correction opportunistic --d 1 --faults 2 --faults-before-correction --por"
  "correction --P 10 --faults 3 --timing rounds --faults-before-correction"
  "correction --P 10 --faults 3 --timing rounds --faults-before-correction --por"
)
if [[ -z "${QUICK:-}" ]]; then
  rows+=(
    "twophase --rm 10"
    "twophase --rm 10 --symmetry"
    "twophase --rm 10 --dfs"
    "era --n 5 --crashes 2 --dfs"
  )
fi

echo "| model and flags | distinct | generated | seconds | generated/s | bytes/state | note |"
echo "|---|---:|---:|---:|---:|---:|---|"
for r in "${rows[@]}"; do
  # shellcheck disable=SC2086
  out="$("$BIN" check $r --json --quiet 2>/dev/null || true)"
  jq -r --arg r "$r" '"| `\($r)` | \(.states) | \(.transitions) | \(.seconds*100|round/100) | \(.generated_per_sec/1e6*100|round/100) M | \(.bytes_per_state*10|round/10) | \(if .por then "por: \(.slept) skipped" elif .por_note then "por: off (\(.por_note))" else "" end)\(if .complete then "" else " incomplete (\(.stop))" end) |"' <<<"$out"
done
echo
echo "Reference: TLC with one worker generates about 0.43 M states/s (43 s for RM=8 on this class of machine)."
echo "Machine: $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)."
