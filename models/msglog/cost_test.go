package msglog

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

func costModel(t *testing.T) elmodel.CostModel {
	t.Helper()
	cost, _, _, err := elmodel.Calibrate(1)
	if err != nil {
		t.Fatal(err)
	}
	return cost
}

// TestCostCurve checks the cost curves at 128 processes: each logger's
// overhead grows with the fraction of non-deterministic events; at MG's
// 99.8 % Parallel Paxos costs least and Classic Paxos most (Table 5.4's
// order); and two points by hand, one per regime: below saturation the
// overhead is fraction × unloaded latency / app, the centralized logger's
// unloaded latency being 2 latencies + 4 messages' CPU (the process's
// SAVE and ack, the logger's) + one store; at saturation it is
// procs × fraction / (capacity × app) − 1, with the capacity the anchor
// the cost model was fitted to (83 det/ms).
func TestCostCurve(t *testing.T) {
	cost := costModel(t)
	app := DefaultApp(cost)
	fr := []float64{0.01, 0.1, 0.5, 0.998}
	pts, err := CostCurve([]int{128}, fr, app, cost)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]CostPoint{}
	for _, q := range pts {
		at[fmt.Sprint(q.Logger, q.NonDet)] = q
	}
	for _, k := range CostLoggers {
		for i := 1; i < len(fr); i++ {
			a, b := at[fmt.Sprint(k, fr[i-1])], at[fmt.Sprint(k, fr[i])]
			if b.Overhead < a.Overhead {
				t.Errorf("%v: overhead %.4f at %g, lower than %.4f at %g", k, b.Overhead, fr[i], a.Overhead, fr[i-1])
			}
		}
	}
	mg := func(k el.Kind) float64 { return at[fmt.Sprint(k, 0.998)].Overhead }
	if !(mg(el.Parallel) < mg(el.Centralized) && mg(el.Centralized) < mg(el.Classic)) {
		t.Errorf("at 99.8%%: parallel %.2f, centralized %.2f, classic %.2f; want parallel < centralized < classic", mg(el.Parallel), mg(el.Centralized), mg(el.Classic))
	}
	l0 := 2*cost.Latency + 4*cost.Msg + cost.Consensus
	if got, want := at[fmt.Sprint(el.Centralized, 0.01)].Overhead, 0.01*l0/app; math.Abs(got-want) > 0.01*want {
		t.Errorf("centralized at 1%%: overhead %.5f, by hand %.5f", got, want)
	}
	if got, want := mg(el.Centralized), 128*0.998/(elmodel.AnchorCentralized/1000*app)-1; math.Abs(got-want) > 0.05*want {
		t.Errorf("centralized at 99.8%%: overhead %.3f, by hand %.3f", got, want)
	}
}

// TestNonDeterminism is Table 5.3's measure on the shipped programs.
func TestNonDeterminism(t *testing.T) {
	for _, c := range []struct {
		prog           string
		procs          int
		events, nonDet int
	}{
		{"fig51", 3, 5, 3},          // P1's three ANY_SOURCE receives of five deliveries
		{"masterworker", 8, 28, 14}, // the master's 2·7 of 4·7
		{"ring", 8, 72, 0},
		{"probe", 8, 15, 7}, // seven probes, eight deliveries
		{"gather", 8, 7, 7},
	} {
		e, d, err := NonDeterminism(Params{Program: c.prog, Procs: c.procs, F: 1})
		if err != nil {
			t.Fatal(err)
		}
		if e != c.events || d != c.nonDet {
			t.Errorf("%s %d: %d of %d events non-deterministic, want %d of %d", c.prog, c.procs, d, e, c.nonDet, c.events)
		}
	}
}

// TestCostFig writes docs/msglog-cost.svg with MSGLOG_WRITE_FIG=1 (the
// sweep at 16 and 128 processes) and prints the table docs/msglog.md
// shows.
func TestCostFig(t *testing.T) {
	if os.Getenv("MSGLOG_WRITE_FIG") == "" {
		t.Skip("MSGLOG_WRITE_FIG=1 writes the figure")
	}
	cost := costModel(t)
	pts, err := CostCurve([]int{16, 128}, CostFractions, DefaultApp(cost), cost)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCostFig(&b, pts, cost, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<svg") {
		t.Fatal("not an SVG")
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "msglog-cost.svg"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if png := os.Getenv("MSGLOG_PNG"); png != "" {
		b.Reset()
		if err := WriteCostFig(&b, pts, cost, "png"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(png, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
