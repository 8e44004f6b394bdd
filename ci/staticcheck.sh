#!/usr/bin/env bash
# Static analysis beyond vet: staticcheck (honnef.co/go/tools), pinned.
# Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
