package msglog

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/registry"
)

func simulateWith(t *testing.T, args ...string) (*registry.SimReport, error) {
	t.Helper()
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := defineSimulate(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return run(context.Background(), func(string) {})
}

// TestMeasureFlag: simulate --measure domino reports Fig. 2.2's only
// recovery line, --measure recovery its table, and bad values are one
// error each.
func TestMeasureFlag(t *testing.T) {
	rep, err := simulateWith(t, "--measure", "domino")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Figures["only_initial_state"] != true || !strings.Contains(rep.Text, "init_0 Ck_{1,0} init_2: recovery line") {
		t.Fatalf("domino: %v\n%s", rep.Figures, rep.Text)
	}
	rep, err = simulateWith(t, "--measure", "recovery", "--program", "masterworker", "--procs", "3", "--intervals", "0")
	if err != nil {
		t.Fatal(err)
	}
	if rows, ok := rep.Figures["recovery"].([]RecoveryRow); !ok || len(rows) != 2 {
		t.Fatalf("recovery: %v", rep.Figures)
	}
	for _, bad := range [][]string{
		{"--measure", "dominos"},
		{"--measure", "recovery", "--intervals", "1,-1"},
		{"--measure", "cost", "--app-us", "-3"},
	} {
		if _, err := simulateWith(t, bad...); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want one line", bad, err)
		}
	}
}
