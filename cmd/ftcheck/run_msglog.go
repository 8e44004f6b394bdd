package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
)

// msglogScenario is `ftcheck run msglog`: every application process runs
// its program (--program, default fig51) over the event logger's server
// (rank --procs, never killed); a killed process restarted with
// --restart rolls back to its checkpoint, read from its stable storage on
// disk, and replays. A process has finished once it ran its whole program;
// its outputs are the program's output operations, and the run compares
// them with the failure-free runs of the same program.
var msglogScenario = runScenario{
	doc: "every application process runs its program (--program) over the centralized event logger (the last rank, never killed); " +
		"--kill then --restart of a rank restarts it from its stable storage on disk (its checkpoint, its determinants from the logger), " +
		"and it replays; a process has finished once it ran its whole program; its outputs are the program's output operations, " +
		"and they must be those of a failure-free run of the program",
	crashFlag:   "crashes",
	recoverFlag: "recoveries",
	output:      core.EffDeliver,
	keep:        isMsglogOutput,
	finish:      finishProgram,
	label:       "op ",
	perRank:     true,
	compare:     msglogCompare,
	flags:       msglogFlags,
}

// msglogFlags adds --n, the number of application processes as the other
// models' runs name their size: the model's --procs (the logger's server
// is one more process).
func msglogFlags(fs *flag.FlagSet) func() error {
	fs.Var(flagAlias{fs, "procs"}, "n", "the number of application processes `N`: --procs (the event logger's server is one more process)")
	return func() error { return nil }
}

// isMsglogOutput picks a program's output operations among a msglog
// process's history records (every send, receive, probe and output is an
// EffDeliver): their values print as "output(ACC)" (statemachine/msglog
// Event).
func isMsglogOutput(e core.Effect) bool {
	return e.Kind == core.EffDeliver && e.Value != nil && strings.HasPrefix(e.Value.String(), "output(")
}

// msglogReferenceStates bounds the failure-free search of msglogCompare.
const msglogReferenceStates = 1 << 18

// msglogCompare checks that the live processes' last outputs are those of
// some failure-free run of the program: the output vectors of every
// quiescent state of the model without crashes, found exhaustively.
// Receives with ANY_SOURCE make several such runs; a faithful recovery
// replays the crashed incarnation's receive order, so the run's outputs
// are one of them.
func msglogCompare(h *runHeader, rep *runReport) (string, []string) {
	params := maps.Clone(h.Params)
	params["crashes"], params["recoveries"] = "0", "0"
	ref, complete, err := failureFreeOutputs(h.Model, params)
	if err != nil {
		return "", []string{fmt.Sprintf("the failure-free runs: %v", err)}
	}
	if !complete {
		return fmt.Sprintf("outputs not compared: the failure-free runs have more than %d states", msglogReferenceStates), nil
	}
	got := make([]string, h.N)
	for _, p := range rep.Processes {
		if !p.Killed && len(p.Returns) > 0 {
			got[p.Rank] = p.Returns[len(p.Returns)-1].Value
		}
	}
	line := strings.TrimSpace(strings.Join(got, " "))
	alts := slices.Sorted(maps.Keys(ref))
	note := fmt.Sprintf("outputs [%s]; the failure-free runs output one of %d vectors: [%s]", line, len(alts), strings.Join(alts, "] ["))
	if !ref[line] {
		return note, []string{fmt.Sprintf("the outputs [%s] are those of no failure-free run", line)}
	}
	return note + "; equal to one", nil
}

// failureFreeOutputs explores the model of params exhaustively (up to
// msglogReferenceStates states) and returns the output vectors of its
// quiescent states: each process's last output, space-separated.
func failureFreeOutputs(model string, params map[string]string) (map[string]bool, bool, error) {
	p, err := registry.Lookup(model)
	if err != nil {
		return nil, false, err
	}
	r, err := p.BuildParams(params)
	if err != nil {
		return nil, false, err
	}
	m, ok := registry.EnvModel(r)
	if !ok {
		return nil, false, fmt.Errorf("model %s is not a message-passing model", model)
	}
	out := map[string]bool{}
	seen := map[string]bool{}
	stack := m.Init()
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := string(m.Encode(nil, w))
		if seen[k] {
			continue
		}
		if seen[k] = true; len(seen) > msglogReferenceStates {
			return out, false, nil
		}
		acts := m.Actions(w, nil)
		if len(acts) == 0 || m.Quiescent(w) {
			out[lastOutputs(w)] = true
		}
		for _, a := range acts {
			next, err := m.Apply(w, a)
			if err != nil {
				return nil, false, err
			}
			stack = append(stack, next)
		}
	}
	return out, true, nil
}

// lastOutputs is each process's last output in w, space-separated (none
// for a process without: the logger, the last rank).
func lastOutputs(w *env.World) string {
	vals := make([]string, w.N())
	for q := range w.N() {
		for _, rec := range w.History(core.Rank(q)) {
			if isMsglogOutput(core.Effect{Kind: rec.Kind, Value: rec.Value}) {
				vals[q] = rec.Value.String()
			}
		}
	}
	return strings.TrimSpace(strings.Join(vals, " "))
}
