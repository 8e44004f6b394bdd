#!/bin/bash
# ci/fuzz/standin.sh: build the fuzzers as OSS-Fuzz and ClusterFuzzLite do
# (oss-fuzz/build.sh), without their Docker images: Debian's clang and
# libFuzzer (packages clang, libfuzzer-14-dev), go-118-fuzz-build from the
# Go module proxy, and ci/fuzz/compile_native_go_fuzzer in place of the
# image's. The build runs in a copy of HEAD ($SRC/ftkernel), as in the
# image; each fuzzer built then runs RUNS (default 1000) libFuzzer inputs.
# Needs root for apt when clang is missing. Prints one line per fuzzer.
set -euo pipefail
runs=${RUNS:-1000}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ftkernel-fuzz.XXXXXX)
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang libfuzzer-14-dev >/dev/null
fi
export GOBIN=$work/bin
# The version go get resolves in oss-fuzz/build.sh today, pinned here so
# that the stand-in is reproducible.
GOFLAGS= go install github.com/AdamKorcz/go-118-fuzz-build@v0.0.0-20250520111509-a70c2aa677fa
cp "$repo/ci/fuzz/compile_native_go_fuzzer" "$GOBIN/"
export PATH=$GOBIN:$PATH SRC=$work/src OUT=$work/out
export CXX=clang++ CXXFLAGS="" LIB_FUZZING_ENGINE=-fsanitize=fuzzer
mkdir -p "$SRC/ftkernel" "$OUT"
git -C "$repo" archive HEAD | tar -x -C "$SRC/ftkernel"
cd "$SRC/ftkernel"
GOFLAGS=-mod=mod bash oss-fuzz/build.sh >"$work/build.log" 2>&1 || {
	tail -20 "$work/build.log"
	echo "build failed: $work/build.log"
	exit 1
}
cd "$work"
for f in "$OUT"/*; do
	if "$f" -runs="$runs" >"$f.log" 2>&1; then
		echo "$(basename "$f"): $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$f.log")"
	else
		echo "$(basename "$f"): FAILED ($f.log)"
	fi
done
