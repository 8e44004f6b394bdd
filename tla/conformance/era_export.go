package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// SpecStep is one step of a Go trace as the spec sees it.
type SpecStep struct {
	// Name is the spec action ("RecvUP", "Crash", ...), the ITF
	// mbt::actionTaken.
	Name string
	// Call is the Quint action to take, e.g. `RecvUP({ kind: "UP", ... })`,
	// or "unchanged" for a Go step the spec has no counterpart for: the
	// failure detector reporting a rank p had already marked dead on a
	// RESULTREQUEST (discoveredDead then changes nothing).
	Call string
	// Actor is the process whose pending DC steps follow (settle), -1 for
	// Crash and Lose.
	Actor int
	// State is the abstraction of the Go world after the step.
	State State
	// Text is the checker's description of the Go step.
	Text string
}

// GoTrace is a checker.Trace of the ERA environment, replayed and
// abstracted.
type GoTrace struct {
	N, F, Agreements int
	Input            [][]int // Input[p][a]: the v of p's Agreement(v, a)
	Init             State
	Steps            []SpecStep
}

// FromChecker replays tr on m (an ERA model of models/era.NewModel with op
// And, agreements 0 … nags-1) and translates every step. A trace that
// ends at a property violation (a counterexample) is accepted.
func FromChecker(m *env.Model, tr *checker.Trace, nags int) (*GoTrace, error) {
	states, err := checker.Replay(m, tr)
	var ve *checker.ViolationError
	if err != nil && !(errors.As(err, &ve) && len(states) == len(tr.Steps)+1) {
		return nil, err
	}
	w0 := states[0]
	g := &GoTrace{N: m.N(), F: m.Config().Crashes, Agreements: nags, Init: FromWorld(w0, nags)}
	for p := range g.N {
		in := make([]int, nags)
		for _, c := range w0.Calls(core.Rank(p)) {
			c := c.(era.Contribute)
			in[c.A] = value(c.V)
		}
		g.Input = append(g.Input, in)
	}
	for k, st := range tr.Steps {
		w, a := states[k], st.Action
		p, q := core.Rank(a.P), core.Rank(a.Q)
		s := SpecStep{Actor: int(a.P), State: FromWorld(states[k+1], nags), Text: st.Text}
		switch a.Kind {
		case env.Deliver, env.Lose:
			msg, ok := nthInFlight(w, int(q), int(p), MsgOf, int(a.I))
			if !ok {
				return nil, fmt.Errorf("step %d: no message %d from %v to %v", k+1, a.I, q, p)
			}
			s.Name = "Recv" + msg.Kind
			if a.Kind == env.Lose {
				s.Name, s.Actor = "DropFromCrashed", -1
			}
			s.Call = fmt.Sprintf("%s(%v)", s.Name, msg)
		case env.Crash:
			s.Name, s.Actor = "Crash", -1
			s.Call = fmt.Sprintf("Crash(%d)", p)
		case env.Detect:
			s.Name = "Detect"
			if w.Node(p).(*era.Node).Dead().Has(q) {
				s.Call = "unchanged"
			} else {
				s.Call = fmt.Sprintf("Detect(%d, %d)", p, q)
			}
		case env.Call:
			c := w.PendingCalls(p)[0].(era.Contribute)
			s.Name = "CallAgreement"
			s.Call = fmt.Sprintf("CallAgreement(%d, %d)", p, c.A)
		default:
			return nil, fmt.Errorf("step %d: action %s has no spec counterpart", k+1, env.KindName(a.Kind))
		}
		g.Steps = append(g.Steps, s)
	}
	return g, nil
}

// ITF writes the trace in the Informal Trace Format with the spec's
// variable names (S, requested, result, current, status, contributed,
// input, crashed, msgs, decided) and mbt::actionTaken. State i is the Go
// world after step i, DC included (the spec reaches it after the action
// and its settle steps); msgs holds the messages to live processes only.
func (g *GoTrace) ITF(source string) ([]byte, error) {
	ags := make([]int, g.Agreements)
	for a := range ags {
		ags[a] = a
	}
	state := func(s State) map[string]any {
		out := map[string]any{}
		dead := []any{}
		for p, pr := range s.Procs {
			dead = append(dead, []any{itfInt(p), itfSet(pr.S)})
		}
		out["S"] = map[string]any{"#map": dead}
		out["requested"] = itfRankAg(s, ags, func(_, _ int, a Agreement) any { return itfSet(a.Requested) })
		out["result"] = itfRankAg(s, ags, func(_, _ int, a Agreement) any { return itfInt(a.Result) })
		out["current"] = itfRankAg(s, ags, func(_, _ int, a Agreement) any { return itfInt(a.Current) })
		out["status"] = itfRankAg(s, ags, func(_, _ int, a Agreement) any { return a.Status })
		out["contributed"] = itfRankAg(s, ags, func(_, _ int, a Agreement) any { return itfSet(a.Contributed) })
		out["decided"] = itfRankAg(s, ags, func(_, _ int, a Agreement) any { return itfInt(a.Decided) })
		out["input"] = itfRankAg(s, ags, func(p, a int, _ Agreement) any { return itfInt(g.Input[p][a]) })
		out["crashed"] = itfSet(s.Crashed)
		msgs := []any{}
		for _, m := range sortedMsgs(s.Msgs) {
			msgs = append(msgs, []any{itfMsg(m), itfInt(s.Msgs[m])})
		}
		out["msgs"] = map[string]any{"#map": msgs}
		return out
	}
	return marshalITF(source,
		"checker.Trace of the Go ERA machines (checker/env), abstracted to the variables of tla/era_go.qnt; msgs: to live processes only",
		[]string{"S", "requested", "result", "current", "status", "contributed", "input", "crashed", "msgs", "decided", "mbt::actionTaken"},
		g.Init, g.Steps, state)
}

// marshalITF is the ITF document of a Go trace: its source and
// description, the spec's variable names (vars) and its states, the
// initial state init and the state after each step, with the spec action
// that led to it ("init" for the first) as mbt::actionTaken; vals gives
// the spec's variables of a state.
func marshalITF[S any, T interface{ itfState() (S, string) }](source, description string, vars []string, init S, steps []T, vals func(S) map[string]any) ([]byte, error) {
	state := func(i int, s S, action string) any {
		out := vals(s)
		out["#meta"] = map[string]any{"index": i}
		out["mbt::actionTaken"] = action
		return out
	}
	states := []any{state(0, init, "init")}
	for i, st := range steps {
		s, action := st.itfState()
		states = append(states, state(i+1, s, action))
	}
	doc := map[string]any{
		"#meta": map[string]any{
			"format": "ITF", "source": source,
			"description": description,
			"timestamp":   time.Now().Unix(),
		},
		"vars":   vars,
		"states": states,
	}
	return json.MarshalIndent(doc, "", " ")
}

// itfState is the state after the step and the spec action it is.
func (s SpecStep) itfState() (State, string) { return s.State, s.Name }

// QuintRun is a Quint `run` definition named name (quint test runs the
// names ending in "Test") that takes the trace's
// steps in the spec (module eraGo) and expects, after each Go step and its
// settle steps, the state the Go machines reached.
func (g *GoTrace) QuintRun(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  run %s =\n    initWith(%s)\n      .expect(%s)\n", name, g.inputLit(), g.stateLit(g.Init, "      "))
	for i, s := range g.Steps {
		fmt.Fprintf(&b, "      // %d. %s\n      .then(%s)\n", i+1, strings.ReplaceAll(s.Text, "\n", " "), s.Call)
		if s.Actor >= 0 {
			for range g.Agreements {
				fmt.Fprintf(&b, "      .then(settle(%d))\n", s.Actor)
			}
		}
		fmt.Fprintf(&b, "      .expect(%s)\n", g.stateLit(s.State, "      "))
	}
	return b.String()
}

// QuintModule is a test module importing era_go.qnt (from importPath,
// e.g. "./era_go") with the trace's parameters, holding the given runs.
func QuintModule(module, importPath string, n, f, nags int, runs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// -*- mode: Bluespec; -*-\n// Generated by tla/conformance from checker traces of the Go ERA machines: DO NOT EDIT.\n")
	fmt.Fprintf(&b, "module %s {\n  import eraGo(N = %d, F = %d, VALUES = Set(0, 1, 2, 3), AGREEMENTS = %s).* from %q\n\n",
		module, n, f, intSet(seq(nags)), importPath)
	for _, r := range runs {
		b.WriteString(r)
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func intSet(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "Set(" + strings.Join(parts, ", ") + ")"
}

func (g *GoTrace) inputLit() string {
	var ps []string
	for p, in := range g.Input {
		var as []string
		for a, v := range in {
			as = append(as, fmt.Sprintf("%d -> %d", a, v))
		}
		ps = append(ps, fmt.Sprintf("%d -> Map(%s)", p, strings.Join(as, ", ")))
	}
	return "Map(" + strings.Join(ps, ", ") + ")"
}

// stateLit is a Quint predicate: the spec's state abstracts to s. It
// compares the spec's compact images (snapshot, inFlightCodes of
// era_go.qnt): Quint's typechecker takes about a second per state on the
// equivalent map literals.
func (g *GoTrace) stateLit(s State, indent string) string {
	snap := []string{}
	for _, x := range Snapshot(s, g.Agreements) {
		snap = append(snap, fmt.Sprint(x))
	}
	var msgs []string
	for _, m := range sortedMsgs(s.Msgs) {
		msgs = append(msgs, fmt.Sprintf("%d -> %d", MsgCode(m), s.Msgs[m]))
	}
	return "and {\n" + indent + "  snapshot == [" + strings.Join(snap, ", ") + "],\n" +
		indent + "  inFlightCodes == Map(" + strings.Join(msgs, ", ") + "),\n" + indent + "}"
}

// Snapshot is era_go.qnt's snapshot of s: per process the bitmask of S_p,
// then per agreement status (0, 1, 2), result, current, the bitmasks of
// contributed and requested, decided; last the bitmask of crashed.
func Snapshot(s State, nags int) []int {
	bits := func(xs []int) int {
		b := 0
		for _, x := range xs {
			b |= 1 << x
		}
		return b
	}
	code := map[string]int{"notcontributed": 0, "gathering": 1, "broadcasting": 2}
	var out []int
	for _, pr := range s.Procs {
		out = append(out, bits(pr.S))
		for a := range nags {
			g := pr.Ags[a]
			out = append(out, code[g.Status], g.Result, g.Current, bits(g.Contributed), bits(g.Requested), g.Decided)
		}
	}
	return append(out, bits(s.Crashed))
}

// MsgCode is era_go.qnt's msgCode.
func MsgCode(m Msg) int {
	k := map[string]int{"UP": 0, "DOWN": 1, "RESULTREQUEST": 2}[m.Kind]
	return (((k*64+m.Src)*64+m.Dst)*64+m.A)*8 + m.V + 1
}

func sortedMsgs(ms map[Msg]int) []Msg {
	out := make([]Msg, 0, len(ms))
	for m := range ms {
		out = append(out, m)
	}
	slicesSortMsgs(out)
	return out
}
