package ringfd

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunIsDeterministic: the same parameters give the same report, byte
// for byte (timing aside), with random delays.
func TestRunIsDeterministic(t *testing.T) {
	p := Params{N: 32, Procs: 4, Fail: []int{3, 4, 20}, FailProcs: []int{50}, DelayMin: 1, DelayMax: 7, Seed: 42}
	var out []string
	for i := 0; i < 3; i++ {
		r, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		r.Seconds = 0
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	if out[0] != out[1] || out[1] != out[2] {
		t.Fatalf("reports differ:\n%s\n%s", out[0], out[1])
	}
	p.Seed = 43
	r, _ := Run(p)
	r.Seconds = 0
	if b, _ := json.Marshal(r); string(b) == out[0] {
		t.Fatal("another seed gives the same report: the seed is not used")
	}
}

// TestBindSimulate: the flags build the Params they name.
func TestBindSimulate(t *testing.T) {
	fs := flag.NewFlagSet("simulate ringfd", flag.ContinueOnError)
	build := BindSimulate(fs)
	if err := fs.Parse([]string{"--n", "128", "--procs", "32", "--fail", "3,5-6", "--fail-procs", "40",
		"--period", "50", "--timeout", "100", "--seed", "9", "--bmg", "ompi", "--skip=false", "--trust", "freshness"}); err != nil {
		t.Fatal(err)
	}
	p, err := build()
	if err != nil {
		t.Fatal(err)
	}
	want := Params{N: 128, Procs: 32, Fail: []int{3, 5, 6}, FailProcs: []int{40}, Period: 50, Timeout: 100, Seed: 9,
		DelayMin: 1, DelayMax: 1, BMG: 1, NoSkip: true, Trust: 1}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Fatalf("params (-want +got):\n%s", diff)
	}
	for _, bad := range [][]string{{"--fail", "x"}, {"--bmg", "ring"}, {"--trust", "eventual"}} {
		fs := flag.NewFlagSet("s", flag.ContinueOnError)
		build := BindSimulate(fs)
		_ = fs.Parse(bad)
		if _, err := build(); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := Run(Params{N: 8, Fail: []int{9}}); err == nil {
		t.Error("--fail 9 at N=8: no error")
	}
}

// BenchmarkRunProcessFailure is one process failure at N = 1024 daemons
// with 32 processes each (32,768 processes): the whole run, heartbeats
// included.
func BenchmarkRunProcessFailure(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Run(Params{N: 1024, Procs: 32, FailProcs: []int{100}, Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunDaemonFailure is one daemon failure at N = 1024, 32
// processes per daemon: detection by timeout, mending, broadcast.
func BenchmarkRunDaemonFailure(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Run(Params{N: 1024, Procs: 32, Fail: []int{100}, Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}
