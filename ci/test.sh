#!/usr/bin/env bash
# The README's test command, exactly: every package's tests, the rapid
# state-machine tests and the fuzz targets' seed corpora, with go test's
# own defaults (a 10-minute timeout per package).
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./...
