#!/usr/bin/env bash
# The test command the README gives: every package's tests, the rapid
# state-machine tests and the fuzz targets' seed corpora, within CI's budget.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 15m ./...
