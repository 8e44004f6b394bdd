package gossipfd

import (
	"flag"
	"io"
	"testing"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

func runSim(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	fs := flag.NewFlagSet("simulate gossipfd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := DefineSimulate(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	m, _, err := run()
	return m, err
}

// TestSimulateJSONNames: the exact JSON names.
func TestSimulateJSONNames(t *testing.T) {
	m, err := runSim(t, "--variant", "rr", "--n", "16", "--cleanup-min")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := CleanupMin(fd.RR, 16, 1)
	if m["cleanup_rounds_best"] != float64(want.Best) || m["cleanup_rounds_worst"] != float64(want.Worst) {
		t.Errorf("cleanup-min JSON %v, want best %d worst %d", m, want.Best, want.Worst)
	}
	m, err = runSim(t, "--variant", "dbrr", "--n", "8", "--fd-failure", "--exact")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["p_cut"]; !ok || m["p_disconnected"] == nil || m["p_cut_ci95"] != nil {
		t.Errorf("exact JSON %v", m)
	}
	m, err = runSim(t, "--variant", "brr", "--n", "8", "--fd-failure", "--trials", "1000", "--seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	if m["p_cut_ci95"] == nil || m["p_disconnected_ci95"] == nil || m["trials"] != float64(1000) {
		t.Errorf("Monte Carlo JSON %v", m)
	}
}

func TestSimulateRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--n", "8"}, // no analysis
		{"--cleanup-min", "--load"},
		{"--fd-failure"}, // neither --exact nor --trials
		{"--fd-failure", "--exact", "--trials", "10"}, // both
		{"--variant", "xx", "--cleanup-min"},
		{"--variant", "random", "--fd-failure", "--exact"},
	} {
		if _, err := runSim(t, args...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
