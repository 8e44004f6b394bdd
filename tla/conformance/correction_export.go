package conformance

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// CorrStep is one step of a Go trace of the correction environment as
// correction.qnt sees it.
type CorrStep struct {
	Name  string    // the spec action, the ITF mbt::actionTaken
	P     int       // the process it picks (Start, SendSlot, Crash)
	Msg   CorrMsg   // the message it picks (RecvTree, RecvCorrection)
	State CorrState // the Go world after the step
	Text  string    // the checker's description of the Go step
}

// CorrTrace is a checker.Trace of a correction environment, replayed and
// abstracted.
type CorrTrace struct {
	Instance CorrInstance
	Init     CorrState
	Steps    []CorrStep
}

// FromCorrectionChecker replays tr on m (a model of in.Model) and
// translates every step into the spec action it is. A trace that ends at a
// property violation (a counterexample) is accepted.
func FromCorrectionChecker(in CorrInstance, m *env.Model, tr *checker.Trace) (*CorrTrace, error) {
	states, err := checker.Replay(m, tr)
	var ve *checker.ViolationError
	if err != nil && !(errors.As(err, &ve) && len(states) == len(tr.Steps)+1) {
		return nil, err
	}
	init, err := FromCorrectionWorld(states[0])
	if err != nil {
		return nil, err
	}
	g := &CorrTrace{Instance: in, Init: init}
	for k, st := range tr.Steps {
		w, a := states[k], st.Action
		p, q := core.Rank(a.P), core.Rank(a.Q)
		s := CorrStep{Text: st.Text}
		if s.State, err = FromCorrectionWorld(states[k+1]); err != nil {
			return nil, err
		}
		switch a.Kind {
		case env.Call:
			if p != 0 {
				return nil, fmt.Errorf("step %d: a call at %v, not at the root", k+1, p)
			}
			s.Name = "Broadcast"
		case env.Deliver:
			msg, ok := nthInFlight(w, int(q), int(p), CorrMsgOf, int(a.I))
			if !ok {
				return nil, fmt.Errorf("step %d: no message %d from %v to %v", k+1, a.I, q, p)
			}
			s.Name, s.Msg = "RecvCorrection", msg
			if msg.Kind == correction.KindTree {
				s.Name = "RecvTree"
			}
		case env.Clock:
			s.Name = "Clock"
		case env.Fire:
			switch uint64(a.I) {
			case correction.TimerStart:
				s.Name = "Start"
			case correction.TimerSendSlot:
				s.Name = "SendSlot"
			default:
				return nil, fmt.Errorf("step %d: timer %d has no spec counterpart", k+1, a.I)
			}
			s.P = int(p)
		case env.Crash:
			s.Name, s.P = "Crash", int(p)
		default:
			return nil, fmt.Errorf("step %d: action %s has no spec counterpart", k+1, env.KindName(a.Kind))
		}
		g.Steps = append(g.Steps, s)
	}
	return g, nil
}

// ITF writes the trace in the Informal Trace Format with correction.qnt's
// variable names (node, armed, clock, crashed, msgs) and
// mbt::actionTaken: state i is the Go world after step i.
func (g *CorrTrace) ITF(source string) ([]byte, error) {
	state := func(s CorrState) map[string]any {
		out := map[string]any{}
		nodes, armed := []any{}, []any{}
		for p, n := range s.Nodes {
			del := []any{}
			for _, v := range n.Delivered {
				del = append(del, itfInt(v))
			}
			nodes = append(nodes, []any{itfInt(p), map[string]any{
				"color": n.Color, "started": n.Started, "turn": n.Turn,
				"reachL": itfInt(n.ReachL), "reachR": itfInt(n.ReachR),
				"heardL": itfInt(n.HeardL), "heardR": itfInt(n.HeardR),
				"sent": itfInt(n.Sent), "delivered": del,
			}})
			ts := []any{}
			if n.SlotArmed {
				ts = append(ts, "slot")
			}
			if n.StartArmed {
				ts = append(ts, "start")
			}
			armed = append(armed, []any{itfInt(p), map[string]any{"#set": ts}})
		}
		out["node"] = map[string]any{"#map": nodes}
		out["armed"] = map[string]any{"#map": armed}
		out["clock"] = s.Clock
		out["crashed"] = itfSet(s.Crashed)
		msgs := []any{}
		for _, m := range sortedCorrMsgs(s.Msgs) {
			msgs = append(msgs, []any{map[string]any{"kind": m.Kind, "dir": m.Dir, "src": itfInt(m.Src),
				"dst": itfInt(m.Dst), "v": itfInt(m.V)}, itfInt(s.Msgs[m])})
		}
		out["msgs"] = map[string]any{"#map": msgs}
		return out
	}
	return marshalITF(source,
		"checker.Trace of the Go Corrected Tree machines (checker/env), abstracted to the variables of tla/correction.qnt",
		[]string{"node", "armed", "clock", "crashed", "msgs", "mbt::actionTaken"},
		g.Init, g.Steps, state)
}

// itfState is the state after the step and the spec action it is.
func (s CorrStep) itfState() (CorrState, string) { return s.State, s.Name }

// QuintRun is a Quint `run` definition named name (quint test runs the
// names ending in "Test"): correction.qnt's replayGo of the trace, in the
// instance as CorrQuintModule imports it, which
// takes its steps in the spec and expects, after each, the image of the
// state the Go machines reached. The trace is data (a list of GoStep
// records of a few integers each): quint's typechecker is slow on long
// chains of .then/.expect and on long literals.
func (g *CorrTrace) QuintRun(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  run %s = %s::replayGo(\n    %s,\n    [\n", name, g.Instance.qual(), corrImageLit(g.Init))
	for i, s := range g.Steps {
		p := 0
		switch s.Name {
		case "RecvTree", "RecvCorrection":
			p = CorrMsgCode(s.Msg)
		case "Start", "SendSlot", "Crash":
			p = s.P
		}
		fmt.Fprintf(&b, "      // %d. %s\n      { act: %q, p: %d, after: %s },\n",
			i+1, strings.ReplaceAll(s.Text, "\n", " "), s.Name, p, corrImageLit(s.State))
	}
	b.WriteString("    ])\n")
	return b.String()
}

// CorrImageSnap is the snap of correction.qnt's image of s: the snapshot
// entries + 1 as the digits of a base-256 number, the first most
// significant.
func CorrImageSnap(s CorrState) *big.Int {
	x := new(big.Int)
	for _, v := range CorrSnapshot(s) {
		x.Lsh(x, 8)
		x.Add(x, big.NewInt(int64(v+1)))
	}
	return x
}

// corrImageLit is correction.qnt's image of s as a Quint record literal.
func corrImageLit(s CorrState) string {
	var flight []string
	for _, x := range CorrFlight(s) {
		flight = append(flight, fmt.Sprint(x))
	}
	return "{ snap: " + CorrImageSnap(s).String() + ", flight: Set(" + strings.Join(flight, ", ") + ") }"
}

// CorrQuintModule is a test module importing correction.qnt from
// importPath (e.g. "./correction") once per instance, qualified as
// QuintRun expects ("c4" for correction4), and holding the runs.
func CorrQuintModule(module, importPath string, ins []CorrInstance, runs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// -*- mode: Bluespec; -*-\n// Generated by tla/conformance from checker traces of the Go Corrected Tree machines: DO NOT EDIT.\n")
	fmt.Fprintf(&b, "module %s {\n  import trees.* from %q\n", module, importPath)
	for _, in := range ins {
		b.WriteString(in.quintImport(importPath))
	}
	b.WriteString("\n")
	for _, r := range runs {
		b.WriteString(r)
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.String()
}
