package fuzz

// tb is what the helpers shared by the fuzz targets use of a test or
// fuzz target: the methods of testing.TB that go-118-fuzz-build's testing.F
// and testing.T also have, so that the targets build as libFuzzer binaries
// for OSS-Fuzz and ClusterFuzzLite (oss-fuzz/build.sh), where a target's
// file sees that package in place of the standard one.
type tb interface {
	Helper()
	Name() string
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}
