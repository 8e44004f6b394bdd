#!/usr/bin/env bash
# Long guards that CI runs as a step of its own after the README's test
# command, within its budget: the partial-order reduction compared with
# the unreduced search on every mutant of every configuration (about four
# minutes on 2 idle cores). The longer lists (TestPersistentSoundnessP4,
# the forgetting and dropping guards, the pinned large counts) run with
#
#   FTKERNEL_LONG=1 go test ./...
#
# on demand.
set -euo pipefail
cd "$(dirname "$0")/.."
FTKERNEL_LONG=1 go test -count=1 -timeout 20m -run 'TestPORSoundness$' ./models/all
