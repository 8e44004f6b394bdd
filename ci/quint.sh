#!/usr/bin/env bash
# Quint checks for the specifications in tla/: ERA (era*.qnt) and the
# Corrected Tree broadcast with checked correction (correction*.qnt).
#
#   bash ci/quint.sh            # from the repo root (or from anywhere)
#
# Installs the pinned Quint (tla/package-lock.json) with `npm ci` when
# tla/node_modules is missing or stale, then: typecheck, scenario tests,
# randomized simulation of the invariants, and the deliberately broken
# variants (which must be caught). Only the typescript backend is used: the
# Rust backend, `quint verify` and `quint compile` download binaries.
#
# Knobs (environment): QUINT_SEED (default 20240611), QUINT_SAMPLES
# (default 4000), QUINT_STEPS (default 40); for correction
# QUINT_CORRECTION_SAMPLES (default 1000; its runs take up to 200 steps,
# enough to reach quiescence, where liveness is checked).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TLA="$ROOT/tla"
cd "$ROOT"

SEED="${QUINT_SEED:-20240611}"
SAMPLES="${QUINT_SAMPLES:-4000}"
STEPS="${QUINT_STEPS:-40}"
CSAMPLES="${QUINT_CORRECTION_SAMPLES:-1000}"

start=$(date +%s)
passed=0
failed=0

# ---------------------------------------------------------------- install
lock_hash="$(sha256sum "$TLA/package-lock.json" | cut -d' ' -f1)"
stamp="$TLA/node_modules/.ftkernel-lock.sha256"
if [[ ! -x "$TLA/node_modules/.bin/quint" || ! -f "$stamp" || "$(cat "$stamp")" != "$lock_hash" ]]; then
  echo "== npm ci (tla/)"
  (cd "$TLA" && npm ci --no-audit --no-fund)
  echo "$lock_hash" > "$stamp"
fi
QUINT="$TLA/node_modules/.bin/quint"
echo "== quint $("$QUINT" --version)"

# ---------------------------------------------------------------- helpers
# step NAME CMD...: the command must succeed
step() {
  local name="$1"; shift
  local t0=$(date +%s)
  if "$@"; then
    echo "ok   $name ($(( $(date +%s) - t0 ))s)"; passed=$((passed + 1))
  else
    echo "FAIL $name ($(( $(date +%s) - t0 ))s)"; failed=$((failed + 1))
  fi
}

# expect_violation NAME CMD...: the command must exit non-zero after
# reporting "[violation]" (a bug that the checks are supposed to catch)
expect_violation() {
  local name="$1"; shift
  local t0=$(date +%s) out rc=0
  out="$("$@" 2>&1)" || rc=$?
  if [[ $rc -ne 0 ]] && grep -q '\[violation\]' <<<"$out"; then
    echo "ok   $name: violation found as expected ($(( $(date +%s) - t0 ))s)"
    grep -E '^\s*(❌|Use --seed)' <<<"$out" | sed 's/^/       /' || true
    passed=$((passed + 1))
  else
    echo "FAIL $name: expected an invariant violation (rc=$rc)"
    echo "$out" | tail -20
    failed=$((failed + 1))
  fi
}

run() { "$QUINT" run --backend typescript --seed "$SEED" --max-steps "$STEPS" --verbosity 1 "$@"; }
# correction runs end at quiescence (at most ~75 steps at P = 6)
crun() { "$QUINT" run --backend typescript --seed "$SEED" --max-steps 200 --verbosity 1 "$@"; }

echo "== seed=$SEED samples=$SAMPLES steps=$STEPS correction-samples=$CSAMPLES"

# ---------------------------------------------------------------- checks
step "typecheck era.qnt"         "$QUINT" typecheck tla/era.qnt
step "typecheck era_test.qnt"    "$QUINT" typecheck tla/era_test.qnt
step "typecheck era_mutants.qnt" "$QUINT" typecheck tla/era_mutants.qnt
step "typecheck era_go.qnt"      "$QUINT" typecheck tla/era_go.qnt

step "test era_test"     "$QUINT" test tla/era_test.qnt --main era_test --backend typescript --seed "$SEED"
step "test era_decide_once_test" "$QUINT" test tla/era_test.qnt --main era_decide_once_test --backend typescript --seed "$SEED"
step "test era_fix_test" "$QUINT" test tla/era_test.qnt --main era_fix_test --backend typescript --seed "$SEED"

# safety invariants (Inv = NoFalseSuspicion, Agreement, Irrevocability,
# Validity, Participation, DecideAfterCall)
step "run era4 Inv ($SAMPLES samples)" \
  run tla/era.qnt --main era4 --invariant Inv --max-samples "$SAMPLES"
step "run era3x2 Inv ($(( SAMPLES / 4 )) samples, two agreements)" \
  run tla/era.qnt --main era3x2 --invariant Inv --max-samples "$(( SAMPLES / 4 ))"
# the two fixes close the termination holes of the rules as written
step "run era4fixed Inv+TerminationAtQuiescence ($(( SAMPLES / 2 )) samples)" \
  run tla/era.qnt --main era4fixed --invariant "Inv and TerminationAtQuiescence" --max-samples "$(( SAMPLES / 2 ))"
# eraGo: the rules of the Go machine (statemachine/era); `step` lets DC be
# delayed, a superset of the Go schedules (`stepEager`)
step "run eraGo4 Inv+TerminationAtQuiescence ($(( SAMPLES / 4 )) samples)" \
  run tla/era_go.qnt --main eraGo4 --invariant "Inv and TerminationAtQuiescence" --max-samples "$(( SAMPLES / 4 ))"
# a committed checker counterexample (uniform agreement) replayed in eraGo;
# the full conformance (quint traces on the Go machines and Go traces in
# the spec) is the Go test tla/conformance, run by `go test ./...`
# (ci/test.sh) now that quint is installed
step "test traces/go/replayUniform" "$QUINT" test tla/traces/go/replayUniform.qnt \
  --main replayUniform --backend typescript --seed "$SEED"

# evidence: these must be caught
expect_violation "era4 TerminationAtQuiescence (known hole of the paper's rules)" \
  run tla/era.qnt --main era4 --invariant TerminationAtQuiescence --max-samples "$SAMPLES"
expect_violation "mutant rootEarly" \
  run tla/era_mutants.qnt --main rootEarly --invariant Inv --max-samples "$SAMPLES"
# rare under random simulation (~1 in 10^4 traces): replay the seed of a
# violating trace found by a longer search (quint run picks the seed of
# each trace from --seed; "Use --seed=... to reproduce" prints it)
expect_violation "mutant decideTwice (seed 0x1db1d1)" \
  "$QUINT" run tla/era_mutants.qnt --main decideTwice --backend typescript \
  --invariant Inv --max-samples 1 --max-steps 40 --seed 0x1db1d1 --verbosity 1

# ------------------------------------------ correction (checked correction)
echo "== correction: Corrected Tree broadcast, checked correction (tla/correction*.qnt)"
# (correction_test.qnt and correction_mutants.qnt are typechecked by the
# test and run steps below: every quint invocation costs ~2 s of start-up)
step "typecheck correction.qnt" "$QUINT" typecheck tla/correction.qnt
step "test correction_test (scenarios, section 3.1's example, a big gap)" \
  "$QUINT" test tla/correction_test.qnt --main correction_test --backend typescript --seed "$SEED"

# Correct = Integrity, Payload, NoDuplicates, OnlyParticipantsCorrect,
# Termination in every state; NonFaultyLiveness and Coverage at quiescence
# ccorrect MODULE SAMPLES [NOTE]: correction.qnt's MODULE satisfies Correct
ccorrect() {
  step "run $1 Correct ($2 samples${3:+, $3})" \
    crun tla/correction.qnt --main "$1" --invariant Correct --max-samples "$2"
}
ccorrect correction4 "$CSAMPLES"
ccorrect correction6inorder "$(( CSAMPLES * 3 / 10 ))" "in-order tree: big gaps"
# conformance with the Go machines, both directions, is the Go test
# tla/conformance (correction_*_test.go), run by `go test ./...`

# evidence: each mutant is caught by the property named
# cmutant MODULE INVARIANT: correction_mutants.qnt's MODULE violates INVARIANT
cmutant() {
  expect_violation "correction mutant $1 ($2)" \
    crun tla/correction_mutants.qnt --main "$1" --invariant "$2" --max-samples "$CSAMPLES"
}
cmutant stopEarly Coverage
cmutant stopBoth NonFaultyLiveness
cmutant uncoloredCorrect Integrity
cmutant noMask NoDuplicates
cmutant noLimit Termination

# ------------------------------------------ ringfd (observation ring detector)
echo "== ringfd: observation ring + mending + BMG forwarding (tla/ringfd*.qnt)"
RSAMPLES="${QUINT_RINGFD_SAMPLES:-400}"
# ringfd runs end at quiescence (< 60 steps at N = 4, F = 2)
rrun() { "$QUINT" run --backend typescript --seed "$SEED" --max-steps 60 --verbosity 1 "$@"; }
step "test ringfd_test (single crash, mending chain, skip)" \
  "$QUINT" test tla/ringfd_test.qnt --main ringfd_test --backend typescript --seed "$SEED"
# Inv = Integrity, ForwardAtMostOnce, ring repair and completeness at quiescence
step "run ringfd4 Inv ($RSAMPLES samples)" \
  rrun tla/ringfd.qnt --main ringfd4 --invariant Inv --max-samples "$RSAMPLES"
expect_violation "ringfd mutant noMending (RepairAtQuiescence)" \
  rrun tla/ringfd_mutants.qnt --main noMending --invariant RepairAtQuiescence --max-samples "$RSAMPLES"
expect_violation "ringfd mutant forwardAlways (ForwardAtMostOnce)" \
  rrun tla/ringfd_mutants.qnt --main forwardAlways --invariant ForwardAtMostOnce --max-samples "$RSAMPLES"
# without time, a stale HBREQ of a dead observer can win (see tla/README.md)
expect_violation "ringfd4 ObsRepairAtQuiescence (needs delays below eta)" \
  rrun tla/ringfd.qnt --main ringfd4 --invariant ObsRepairAtQuiescence --max-samples "$RSAMPLES"
# conformance with the Go daemons is the Go test tla/conformance (ringfd_*_test.go)

echo "== quint checks took $(( $(date +%s) - start ))s"
echo "quint: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
