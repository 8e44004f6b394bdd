#!/usr/bin/env bash
# The whole CI job: Go modules, the Quint toolchain from npm, vet, gofmt,
# staticcheck, the test
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
echo "== staticcheck"
bash ci/staticcheck.sh
# The message-sequence-chart test drives a real headless browser. Install
# Debian's chromium when we may (CI runs as root); otherwise that test skips
# and says why.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== apt-get install chromium (for checker/msc's browser test)"
    (timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq chromium >/dev/null) \
      || echo "chromium could not be installed: TestBrowser will skip with a message"
  else
    echo "chromium not found and cannot be installed here: TestBrowser will skip with a message"
  fi
fi
if [ -f ci/quint.sh ]; then
  echo "== quint (typecheck, test, run)"
  bash ci/quint.sh
fi
echo "== tests (the README's test command)"
bash ci/test.sh
echo "== long guards (ci/long.sh)"
bash ci/long.sh
echo "== CI done in $(( $(date +%s) - start )) s"
