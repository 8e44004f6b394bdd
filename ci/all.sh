#!/usr/bin/env bash
# The whole CI job: Go modules, the Quint toolchain from npm, vet, the test
# command from the README, the Quint checks.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
echo "== go $(go version | cut -d' ' -f3-) on $(nproc) cores"
echo "== go mod download"
go mod download
echo "== go vet ./..."
go vet ./...
echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './tla/node_modules/*'))
if [ -n "$bad" ]; then echo "gofmt would change: $bad"; exit 1; fi
if [ -f ci/quint.sh ]; then
  echo "== quint (typecheck, test, run)"
  bash ci/quint.sh
fi
echo "== tests (the README's test command)"
bash ci/test.sh
echo "== CI done in $(( $(date +%s) - start )) s"
