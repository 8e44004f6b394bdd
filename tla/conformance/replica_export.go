package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	repmodel "github.com/ftkernel/ftkernel/models/replica"
)

// RepStep is one step of a Go replica trace as a replica.qnt action: its
// name (the ITF mbt::actionTaken), operands, and the state reached.
type RepStep struct {
	Name  string // Start, Deliver, Pump, Crash, Detect
	P, Q  int    // Start, Pump, Crash: P; Detect: P learns Q crashed
	Msg   RepMsg // Deliver
	Text  string // the checker's description of the step
	State RepState
}

// RepTrace is a Go trace of a replica instance in the spec's terms.
type RepTrace struct {
	Instance RepInstance
	Init     RepState
	Steps    []RepStep
}

// FromReplicaChecker replays tr on m (the instance's Go model) and turns
// each step into the replica.qnt action it is, with the state reached. A
// trace that ends in a property violation (a mutant's) is kept.
func FromReplicaChecker(in RepInstance, m *repmodel.Model, tr *checker.Trace) (*RepTrace, error) {
	states, err := checker.Replay(m.Model, tr)
	var ve *checker.ViolationError
	if err != nil && !(errors.As(err, &ve) && len(states) == len(tr.Steps)+1) {
		return nil, err
	}
	layout := m.Config.Layout
	init, err := FromReplicaWorld(states[0], layout)
	if err != nil {
		return nil, err
	}
	g := &RepTrace{Instance: in, Init: init}
	for k, st := range tr.Steps {
		w, a := states[k], st.Action
		s := RepStep{Text: st.Text, P: int(a.P)}
		if s.State, err = FromReplicaWorld(states[k+1], layout); err != nil {
			return nil, err
		}
		switch a.Kind {
		case env.Call:
			s.Name = "Start"
		case env.Deliver:
			msg, ok := nthInFlight(w, int(a.Q), int(a.P), RepMsgOf, int(a.I))
			if !ok {
				return nil, fmt.Errorf("step %d: no message %d from p%d to p%d", k+1, a.I, a.Q, a.P)
			}
			s.Name, s.Msg, s.P = "Deliver", msg, 0
		case env.Fire:
			s.Name = "Pump"
		case env.Crash:
			s.Name = "Crash"
		case env.Detect:
			s.Name, s.Q = "Detect", int(a.Q)
		default:
			return nil, fmt.Errorf("step %d: %s has no replica.qnt counterpart", k+1, env.KindName(a.Kind))
		}
		g.Steps = append(g.Steps, s)
	}
	return g, nil
}

// ---------------------------------------------------------------- images

// repMIDInts, repMsgInts, ... are replica.qnt's midInts, msgInts, ...
func repMIDInts(m RepMID) []int { return []int{m.Src, m.Dst, m.Tag, m.Time} }

func repMsgInts(m RepMsg) []int {
	k := 2
	if m.Kind == "DATA" {
		k = 1
	}
	return append(append([]int{k, m.Src, m.Dst}, repMIDInts(m.MID)...), m.Payload)
}

func repEntriesInts(l []RepEntry) []int {
	out := []int{len(l)}
	for _, e := range l {
		out = append(append(out, repMIDInts(e.MID)...), e.Payload)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// RepSnapshot is replica.qnt's image(...).snap of s: per replica the
// fields of nodeInts, then the crashed set.
func RepSnapshot(s RepState) []int {
	var out []int
	set := func(xs []int) { out = append(append(out, len(xs)), xs...) }
	chans := func(cs []RepChan) {
		out = append(out, len(cs))
		for _, c := range cs {
			out = append(out, c.Peer, c.Tag, c.N)
		}
	}
	mids := func(ms []RepMID) {
		out = append(out, len(ms))
		for _, m := range ms {
			out = append(out, repMIDInts(m)...)
		}
	}
	for _, n := range s.Nodes {
		out = append(out, b2i(n.Started), n.PC, n.Acc, n.Tick)
		chans(n.SendSeq)
		chans(n.RecvSeq)
		set(n.Dead)
		out = append(out, repEntriesInts(n.Backup)...)
		mids(n.Log)
		mids(n.History)
		out = append(out, repEntriesInts(n.Queue)...)
		out = append(out, len(n.Outbox))
		for _, m := range n.Outbox {
			out = append(out, repMsgInts(m)...)
		}
		out = append(out, b2i(n.Armed))
		out = append(out, repEntriesInts(n.Delivered)...)
		set(n.Outputs)
		out = append(out, n.SentData, n.SentCommit)
	}
	set(s.Crashed)
	return out
}

func intsLit(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// repImageLit is replica.qnt's image of s as a Quint record literal.
func repImageLit(s RepState) string {
	var flight []string
	for m, c := range s.Flight {
		flight = append(flight, intsLit(append(repMsgInts(m), c)))
	}
	// map order is random; the literal is a set, but keep files stable
	slices.Sort(flight)
	if len(flight) == 0 {
		return "{ snap: " + intsLit(RepSnapshot(s)) + ", flight: Set() }"
	}
	return "{ snap: " + intsLit(RepSnapshot(s)) + ", flight: Set(" + strings.Join(flight, ", ") + ") }"
}

// QuintRun is a Quint run named name: replica.qnt's replayGo of the
// trace, in the instance as RepQuintModule imports it (qualified by the
// module name), which takes its steps in the spec and expects, after
// each, the image of the state the Go machines reached.
func (g *RepTrace) QuintRun(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  run %s = %s::replayGo(\n    %s,\n    [\n", name, g.Instance.qual(), repImageLit(g.Init))
	for i, s := range g.Steps {
		m := []int{0, 0, 0, 0, 0, 0, 0, 0}
		if s.Name == "Deliver" {
			m = repMsgInts(s.Msg)
		}
		fmt.Fprintf(&b, "      // %d. %s\n      { act: %q, p: %d, q: %d, m: %s, after: %s },\n",
			i+1, strings.ReplaceAll(s.Text, "\n", " "), s.Name, s.P, s.Q, intsLit(m), repImageLit(s.State))
	}
	b.WriteString("    ])\n")
	return b.String()
}

// qual is the name the instance is imported as in generated Quint
// modules: "qpingpong" for pingpong (the module names themselves are
// taken).
func (in RepInstance) qual() string { return "q" + in.Module }

// quintArgs are the instance's parameters of replica.qnt.
func (in RepInstance) quintArgs() string {
	progs := map[string]string{"ping-pong": "pingPong", "mid-example": "midExample"}[in.Program]
	expected := map[string]string{"ping-pong": "[[2], [2]]", "mid-example": "[[], [], [-1]]"}[in.Program]
	deg := make([]string, len(in.Degrees))
	for i, d := range in.Degrees {
		deg[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("DEGREES = [%s], PROGS = %s, F = %d, EXPECTED = %s, VARIANT = \"\"",
		strings.Join(deg, ", "), progs, in.F, expected)
}

// RepQuintModule is a test module importing replica.qnt from importPath
// (e.g. "./replica") once per instance, qualified by the instance's
// module name, and holding the runs.
func RepQuintModule(module, importPath string, ins []RepInstance, runs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// -*- mode: Bluespec; -*-\n// Generated by tla/conformance from checker traces of the Go replica machines: DO NOT EDIT.\n")
	fmt.Fprintf(&b, "module %s {\n  import programs.* from %q\n", module, importPath)
	for _, in := range ins {
		fmt.Fprintf(&b, "  import replica(%s) as %s from %q\n", in.quintArgs(), in.qual(), importPath)
	}
	b.WriteString("\n")
	for _, r := range runs {
		b.WriteString(r)
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// ---------------------------------------------------------------- ITF

func itfMID(m RepMID) any {
	return map[string]any{"src": itfInt(m.Src), "dst": itfInt(m.Dst), "tag": itfInt(m.Tag), "time": itfInt(m.Time)}
}

func itfRepMsg(m RepMsg) any {
	return map[string]any{"kind": m.Kind, "src": itfInt(m.Src), "dst": itfInt(m.Dst), "mid": itfMID(m.MID), "payload": itfInt(m.Payload)}
}

func itfEntries(l []RepEntry) any {
	out := []any{}
	for _, e := range l {
		out = append(out, map[string]any{"mid": itfMID(e.MID), "payload": itfInt(e.Payload)})
	}
	return out
}

func itfRepState(s RepState) map[string]any {
	chans := func(cs []RepChan) any {
		l := []any{}
		for _, c := range cs {
			l = append(l, []any{map[string]any{"#tup": []any{itfInt(c.Peer), itfInt(c.Tag)}}, itfInt(c.N)})
		}
		return map[string]any{"#map": l}
	}
	mids := func(ms []RepMID) any {
		l := []any{}
		for _, m := range ms {
			l = append(l, itfMID(m))
		}
		return map[string]any{"#set": l}
	}
	nodes := []any{}
	for r, n := range s.Nodes {
		backup := []any{}
		for _, e := range n.Backup {
			backup = append(backup, []any{itfMID(e.MID), itfInt(e.Payload)})
		}
		outbox, outputs := []any{}, []any{}
		for _, m := range n.Outbox {
			outbox = append(outbox, itfRepMsg(m))
		}
		for _, v := range n.Outputs {
			outputs = append(outputs, itfInt(v))
		}
		nodes = append(nodes, []any{itfInt(r), map[string]any{
			"started": n.Started, "pc": itfInt(n.PC), "acc": itfInt(n.Acc), "tick": itfInt(n.Tick),
			"sendSeq": chans(n.SendSeq), "recvSeq": chans(n.RecvSeq), "dead": itfSet(n.Dead),
			"backup": map[string]any{"#map": backup}, "log": mids(n.Log), "history": mids(n.History),
			"queue": itfEntries(n.Queue), "outbox": outbox, "armed": n.Armed,
			"delivered": itfEntries(n.Delivered), "outputs": outputs,
			"sentData": itfInt(n.SentData), "sentCommit": itfInt(n.SentCommit),
		}})
	}
	flight := []any{}
	for _, m := range sortedRepMsgs(s.Flight) {
		flight = append(flight, []any{itfRepMsg(m), itfInt(s.Flight[m])})
	}
	return map[string]any{
		"node":    map[string]any{"#map": nodes},
		"crashed": itfSet(s.Crashed),
		"msgs":    map[string]any{"#map": flight},
	}
}

// ITF is the trace as an ITF document with replica.qnt's variable names
// (node, crashed, msgs) and each step's action as mbt::actionTaken.
func (g *RepTrace) ITF(source string) ([]byte, error) {
	states := []any{}
	add := func(i int, s RepState, action string) {
		st := itfRepState(s)
		st["#meta"] = map[string]any{"index": i}
		if action != "" {
			st["mbt::actionTaken"] = action
		}
		states = append(states, st)
	}
	add(0, g.Init, "init")
	for i, s := range g.Steps {
		add(i+1, s.State, s.Name)
	}
	return json.MarshalIndent(map[string]any{
		"#meta":  map[string]any{"format": "ITF", "source": source, "description": "Go replica trace of " + g.Instance.Module},
		"vars":   []string{"node", "crashed", "msgs"},
		"states": states,
	}, "", " ")
}

func sortedRepMsgs(f map[RepMsg]int) []RepMsg {
	var out []RepMsg
	for m := range f {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b RepMsg) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}
