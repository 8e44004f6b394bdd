#!/bin/bash -eu
# The OSS-Fuzz and ClusterFuzzLite build script: every native Go fuzz target
# of ./fuzz (go test -fuzz) built as a libFuzzer binary in $OUT with
# compile_native_go_fuzzer, the base-builder-go image's wrapper of
# go-118-fuzz-build and clang. Run in the builder's copy of the source,
# $SRC/ftkernel, which it changes:
#
#   - go-118-fuzz-build compiles no _test.go file, and the fuzz package is
#     made of them (the targets and the helpers they share), so they become
#     ordinary files of the package (*_test_fuzz.go);
#   - go-118-fuzz-build's testing package, which replaces the standard one
#     in a target's file, is added to go.mod.
#
# Locally, without the image: bash ci/fuzz/standin.sh.
set -eu
cd "$SRC/ftkernel"
for f in fuzz/*_test.go; do
	mv "$f" "${f%_test.go}_test_fuzz.go"
done
printf 'package fuzz\n\nimport _ "github.com/AdamKorcz/go-118-fuzz-build/testing"\n' >fuzz/register_libfuzzer.go
go get github.com/AdamKorcz/go-118-fuzz-build/testing
# Each target: its Go function and the fuzzer's name in $OUT. Helpers
# shared by targets take the fuzz package's tb interface, which both the
# standard testing types and go-118-fuzz-build's satisfy. Every Fuzz
# function of ./fuzz is listed (TestBuildScriptListsEveryTarget).
while read -r fn name; do
	compile_native_go_fuzzer github.com/ftkernel/ftkernel/fuzz "$fn" "$name"
done <<'TARGETS'
FuzzAbcastDecode abcast_decode
FuzzERASchedule era_schedule
FuzzERADecode era_decode
FuzzCorrectionSchedule correction_schedule
FuzzDgrpDecode dgrp_decode
FuzzDgrpStep dgrp_step
FuzzDiagnosisDecode diagnosis_decode
FuzzDiagnosisSchedule diagnosis_schedule
FuzzEventloggerDecode eventlogger_decode
FuzzEventloggerSchedule eventlogger_schedule
FuzzGossipfdDecode gossipfd_decode
FuzzGossipfdSchedule gossipfd_schedule
FuzzHyperquicksortSchedule hyperquicksort_schedule
FuzzMsglogDecodeMessage msglog_decode_message
FuzzMsglogDecodeWorld msglog_decode_world
FuzzMsglogParseDet msglog_parse_det
FuzzMsglogSchedule msglog_schedule
FuzzPaxosDecode paxos_decode
FuzzPaxosStep paxos_step
FuzzReplicaSchedule replica_schedule
FuzzRingfdDecode ringfd_decode
TARGETS
