package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	gm "github.com/ftkernel/ftkernel/models/gossipfd"
	repmodel "github.com/ftkernel/ftkernel/models/replica"
	"github.com/ftkernel/ftkernel/models/twophase"
	"github.com/ftkernel/ftkernel/registry"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
	"github.com/ftkernel/ftkernel/tla/conformance"
)

// Variables of the exports that exportStates writes itself.
var (
	envITFVars      = []string{"procs", "crashed", "detected", "inFlight", "now", "action", "mbt::actionTaken"}
	twoPhaseITFVars = []string{"rmState", "tmState", "tmPrepared", "msgs", "mbt::actionTaken"}
	textITFVars     = []string{"state", "action", "mbt::actionTaken"}
)

// exportStates writes the ITF document of tr from ss, the states it
// passes through (registry.ReplayStates): through the Quint abstractions
// of gossipfd's round model and of replica's perfect-detector model, in
// TwoPhase.tla's variables for twophase, and otherwise in the generic
// variables of message-passing worlds (envITF) or as text (textITF).
func exportStates(r registry.Runner, tr *checker.Trace, ss []any, source string) ([]byte, int, error) {
	switch s0 := ss[0].(type) {
	case *gm.RoundState:
		return gossipITF(tr, ss, source)
	case *env.World:
		if _, ok := s0.Node(0).(*sm.Node); ok && tr.Params[registry.ModelParam] == "replica" {
			return replicaITF(r, tr, s0, source)
		}
		return envITF(r, tr, ss, source)
	case twophase.State:
		return twoPhaseITF(r, tr, ss, source)
	}
	return textITF(r, tr, ss, source)
}

// gossipITF is the round model's trace in tla/gossipfd.qnt's variables: a
// step that advances the round is Round, any other Crash(p).
func gossipITF(tr *checker.Trace, ss []any, source string) ([]byte, int, error) {
	init, err := conformance.FromRoundState(ss[0].(*gm.RoundState))
	if err != nil {
		return nil, 0, err
	}
	g := &conformance.GTrace{Init: init}
	for k, st := range tr.Steps {
		prev, next := ss[k].(*gm.RoundState), ss[k+1].(*gm.RoundState)
		gs, err := conformance.FromRoundState(next)
		if err != nil {
			return nil, 0, fmt.Errorf("step %d: %w", k+1, err)
		}
		step := conformance.GStep{Name: "Round", Text: st.Text, State: gs}
		if next.G == prev.G {
			step.Name, step.P = "Crash", int(st.Action.P)
		}
		g.Steps = append(g.Steps, step)
	}
	doc, err := g.ITF(source)
	return doc, len(g.Steps) + 1, err
}

// replicaITF is a replica trace in tla/replica.qnt's variables, the layout
// read from the replicas of the initial world.
func replicaITF(r registry.Runner, tr *checker.Trace, w0 *env.World, source string) ([]byte, int, error) {
	em, ok := registry.EnvModel(r)
	if !ok {
		return nil, 0, fmt.Errorf("replica: no message-passing model")
	}
	var degrees []int
	for p := range w0.N() {
		nd := w0.Node(core.Rank(p)).(*sm.Node)
		for len(degrees) <= nd.Logical() {
			degrees = append(degrees, 0)
		}
		degrees[nd.Logical()] = max(degrees[nd.Logical()], nd.Index()+1)
	}
	layout, err := sm.NewLayoutDegrees(degrees)
	if err != nil {
		return nil, 0, err
	}
	crashes, _ := strconv.Atoi(tr.Params["crashes"])
	in := conformance.RepInstance{Module: r.Name(), Program: tr.Params["program"], Degrees: degrees, F: crashes}
	g, err := conformance.FromReplicaChecker(in, &repmodel.Model{Model: em, Config: sm.Config{Layout: layout}}, tr)
	if err != nil {
		return nil, 0, err
	}
	doc, err := g.ITF(source)
	return doc, len(g.Steps) + 1, err
}

// envITF is a trace of a message-passing model (checker/env) in generic
// variables: procs, each rank's state as text (Node.String); crashed, the
// set of crashed ranks; detected, rank ↦ the set of ranks whose crash it
// was told of; inFlight, the messages in flight as records {from, to, msg}
// (msg as text) in the world's order; now, the bounded-delay clock (0 in
// the other timings); action, the step that led to the state as a record
// {kind, p, q, text} (kind "init" for the initial state; p and q as the
// checker's Action); mbt::actionTaken, the action's kind.
func envITF(r registry.Runner, tr *checker.Trace, ss []any, source string) ([]byte, int, error) {
	states := make([]map[string]any, len(ss))
	for k, s := range ss {
		w := s.(*env.World)
		n := w.N()
		procs := make([]any, n)
		crashed := []any{}
		detected := make([]any, n)
		for p := range n {
			procs[p] = w.Node(core.Rank(p)).String()
			if w.Crashed(core.Rank(p)) {
				crashed = append(crashed, itfBig(p))
			}
			ds := []any{}
			for q := range n {
				if w.Detected(core.Rank(p), core.Rank(q)) {
					ds = append(ds, itfBig(q))
				}
			}
			detected[p] = []any{itfBig(p), map[string]any{"#set": ds}}
		}
		flight := []any{}
		for _, e := range w.InFlight() {
			flight = append(flight, map[string]any{"from": itfBig(int(e.From)), "to": itfBig(int(e.To)), "msg": e.Msg.String()})
		}
		st := map[string]any{
			"procs":    procs,
			"crashed":  map[string]any{"#set": crashed},
			"detected": map[string]any{"#map": detected},
			"inFlight": flight,
			"now":      itfBig(int(w.Now())),
		}
		stepAction(st, tr, k, func(s checker.Step) string { return env.KindName(s.Action.Kind) })
		states[k] = st
	}
	return itfDocument(source, "checker.Trace of "+r.Name()+" (checker/env worlds, generic variables)", envITFVars, states)
}

// twoPhaseITF is a twophase trace in TwoPhase.tla's variables: rmState
// (RM ↦ "working", "prepared", "committed" or "aborted"), tmState ("init",
// "committed", "aborted"; "invalid" is the abort-typo mutant's value
// outside the type), tmPrepared (a set of RMs) and msgs (a set of records
// [type |-> "Prepared", rm |-> r], [type |-> "Commit"], [type |->
// "Abort"]); RMs are the strings "r0", "r1", …; mbt::actionTaken is the
// TwoPhase.tla action (TMCommit, RMPrepare, …).
func twoPhaseITF(r registry.Runner, tr *checker.Trace, ss []any, source string) ([]byte, int, error) {
	n, err := strconv.Atoi(tr.Params["rm"])
	if err != nil || n < 1 {
		return nil, 0, fmt.Errorf("twophase trace: rm %q is not a positive number", tr.Params["rm"])
	}
	rmNames := []string{"working", "prepared", "committed", "aborted"}
	tmNames := []string{"init", "committed", "aborted", "invalid"}
	rm := func(i int) string { return "r" + strconv.Itoa(i) }
	states := make([]map[string]any, len(ss))
	for k, s := range ss {
		x := s.(twophase.State)
		rms, prepared, msgs := []any{}, []any{}, []any{}
		for i := range n {
			rms = append(rms, []any{rm(i), rmNames[x.RM(i)]})
			if x.TMPrepared(n)>>i&1 != 0 {
				prepared = append(prepared, rm(i))
			}
			if x.PreparedMsg(n, i) {
				msgs = append(msgs, map[string]any{"type": "Prepared", "rm": rm(i)})
			}
		}
		if x.CommitMsg(n) {
			msgs = append(msgs, map[string]any{"type": "Commit"})
		}
		if x.AbortMsg(n) {
			msgs = append(msgs, map[string]any{"type": "Abort"})
		}
		st := map[string]any{
			"rmState":    map[string]any{"#map": rms},
			"tmState":    tmNames[x.TM(n)],
			"tmPrepared": map[string]any{"#set": prepared},
			"msgs":       map[string]any{"#set": msgs},
		}
		stepAction(st, tr, k, func(s checker.Step) string { name, _, _ := strings.Cut(s.Text, "("); return name })
		delete(st, "action")
		states[k] = st
	}
	return itfDocument(source, "checker.Trace of "+r.Name()+" in the variables of TwoPhase.tla", twoPhaseITFVars, states)
}

// textITF is a trace of a model of any other kind: state, the state as
// text (fmt's %v), action and mbt::actionTaken as in envITF, the kind a
// number.
func textITF(r registry.Runner, tr *checker.Trace, ss []any, source string) ([]byte, int, error) {
	states := make([]map[string]any, len(ss))
	for k, s := range ss {
		st := map[string]any{"state": fmt.Sprint(s)}
		stepAction(st, tr, k, nil)
		states[k] = st
	}
	return itfDocument(source, "checker.Trace of "+r.Name()+" (states as text)", textITFVars, states)
}

// stepAction sets st's action record and mbt::actionTaken for the state
// after step k (k = 0: "init"); kind names a step's kind, nil for its
// action's number.
func stepAction(st map[string]any, tr *checker.Trace, k int, kind func(checker.Step) string) {
	if k == 0 {
		st["action"] = map[string]any{"kind": "init", "p": itfBig(0), "q": itfBig(0), "text": ""}
		st["mbt::actionTaken"] = "init"
		return
	}
	s := tr.Steps[k-1]
	name := strconv.Itoa(int(s.Action.Kind))
	if kind != nil {
		name = kind(s)
	}
	st["action"] = map[string]any{"kind": name, "p": itfBig(int(s.Action.P)), "q": itfBig(int(s.Action.Q)), "text": s.Text}
	st["mbt::actionTaken"] = name
}

// itfDocument is the ITF document of states, each given its #meta index.
func itfDocument(source, description string, vars []string, states []map[string]any) ([]byte, int, error) {
	for i, st := range states {
		st["#meta"] = map[string]any{"index": i}
	}
	doc, err := json.MarshalIndent(map[string]any{
		"#meta":  map[string]any{"format": "ITF", "source": source, "description": description},
		"vars":   vars,
		"states": states,
	}, "", " ")
	return doc, len(states), err
}

// itfBig is an ITF integer: {"#bigint": "n"}.
func itfBig(n int) any { return map[string]any{"#bigint": strconv.Itoa(n)} }
