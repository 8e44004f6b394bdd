package eventlogger

import (
	"errors"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// mutantRow is one row of docs/eventlogger.md's mutant table: `ftcheck
// check eventlogger ARGS --property PROP` with the mutant on (a mutant of
// statemachine/eventlogger by --mutant, or, for the environment's timing
// and fault-budget properties, a broken environment rule of
// env.DelayMutants or env.FaultMutants, which only tests can turn on) is
// caught by PROP alone after Steps steps (breadth-first: a shortest
// counterexample), and the same ARGS without the mutant hold PROP on a
// complete search of Control states (0: the control run is not made,
// because the correct model's search does not end at these bounds).
type mutantRow struct {
	args    string
	mut     mutant.Name // a model mutant: --mutant
	envMut  mutant.Name // an environment mutant: env.SetDelayMutant or SetFaultMutant
	prop    string
	steps   int
	control int64
}

// mutantRows cover every property `ftcheck check eventlogger` checks:
// linearizable and termination (the logger's), delivery-window and
// timer-deadline (the environment's bounded delay, always listed), and
// losses-, recoveries- and duplicates-within-budget (the fault budgets,
// listed with --loss, --recoveries or --dup).
var mutantRows = []mutantRow{
	{args: "--logger parallel --procs 1 --crashes 0 --loss 2", mut: "retrieve-since-one-acceptor", prop: Linearizable_, steps: 28, control: 4564},
	{args: "--logger centralized --procs 1 --crashes 1 --recoveries 1 --saves 2", mut: "drop-queued-call", prop: Termination, steps: 12, control: 165},
	{args: "--logger parallel --procs 1 --crashes 1 --recoveries 1 --saves 2", mut: "drop-queued-call", prop: Termination, steps: 37, control: 20874},
	{args: "--logger centralized --procs 1 --crashes 0", envMut: env.DelayWindowSendTick, prop: env.PropDeliveryWindow, steps: 2, control: 11},
	{args: "--logger parallel --procs 1 --crashes 0", envMut: env.DelayTimerEarly, prop: env.PropTimerDeadline, steps: 1, control: 310},
	{args: "--logger parallel --procs 1 --crashes 0 --loss 1", envMut: env.FaultLoseFree, prop: env.PropLosses, steps: 3, control: 1500},
	{args: "--logger centralized --procs 1 --crashes 1 --recoveries 1", envMut: env.FaultRecoverFree, prop: env.PropRecoveries, steps: 3, control: 105},
	{args: "--logger centralized --procs 1 --crashes 1 --recoveries 1", envMut: env.FaultRecoverVolatile, prop: env.PropRecoveries, steps: 3, control: 105},
	{args: "--logger parallel --procs 1 --crashes 0 --dup 1", envMut: env.FaultDupTwice, prop: env.PropDuplicates, steps: 3, control: 2487},
}

// TestMutantsCaught: every property `ftcheck check eventlogger` checks
// catches a mutant alone, with the shortest counterexample's length pinned
// (it replays to the same violation), and holds without the mutant at the
// same bounds (docs/eventlogger.md, "Mutants").
func TestMutantsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive searches")
	}
	caught := map[string]bool{}
	for _, c := range mutantRows {
		name := string(c.mut) + string(c.envMut)
		t.Run(name+" "+c.args, func(t *testing.T) {
			args := strings.Fields(c.args)
			opt := checker.Options{Properties: []string{c.prop}, MaxStates: 1 << 21}
			if c.control > 0 {
				res := modeltest.Build(t, "eventlogger", args...).BFS(opt)
				modeltest.PinCounts(t, c.args+" --property "+c.prop, res, "", c.control, 0, 0)
			}
			if c.mut != mutant.None {
				args = append(args, "--mutant", string(c.mut))
			}
			restore := func() {}
			switch {
			case strings.HasPrefix(string(c.envMut), "delay-"):
				restore = env.SetDelayMutant(c.envMut)
			case c.envMut != mutant.None:
				restore = env.SetFaultMutant(c.envMut)
			}
			defer restore()
			r := modeltest.Build(t, "eventlogger", args...)
			res := r.BFS(opt)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if len(res.Violations) == 0 {
				t.Fatalf("survived %d states (complete=%v)", res.States, res.Complete)
			}
			tr := res.Violations[0]
			t.Logf("caught by %s after %d steps (%d states): %s", tr.Violation.Property, len(tr.Steps), res.States, tr.Violation.Message)
			if tr.Violation.Property != c.prop || len(tr.Steps) != c.steps {
				t.Fatalf("caught by %s after %d steps, want %s after %d", tr.Violation.Property, len(tr.Steps), c.prop, c.steps)
			}
			var ve *checker.ViolationError
			if err := r.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != c.prop {
				t.Fatalf("replay: %v", err)
			}
			caught[c.prop] = true
		})
	}
	// Every property the model lists with every budget on has a row.
	p := Params{Kind: DefaultCheck.Kind, Procs: 1, F: 1, Saves: 1, Crashes: 1, Recoveries: 1, Loss: 1, Dup: 1, Timing: env.BoundedDelay, Delta: 1}
	for _, q := range Properties(p) {
		if !caught[q.Name] {
			t.Errorf("property %s: no mutant caught by it", q.Name)
		}
	}
}
