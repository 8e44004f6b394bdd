package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	abcastmodel "github.com/ftkernel/ftkernel/models/abcast"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// The Go side of tla/abcast.qnt's conformance: the statemachine/abcast
// members driven directly with the spec's model (a set of messages in
// flight, crashes that drop the messages to the crashed member and later
// sends to it, one Suspect per live member and crashed member), and the
// consensus variant's consensus replaced by models/abcast's Oracle, the
// spec's decided-batch abstraction.

// AbInstance is an instance module of tla/abcast.qnt.
type AbInstance struct {
	Module              string
	Variant             ab.Variant
	N, Msgs, K, Crashes int
	Mutant              mutant.Name // the spec's MUTANT ("" for the instances)
}

// abcastInstances are abcast.qnt's ub3, bb3 and cons3.
var abcastInstances = []AbInstance{
	{Module: "ub3", Variant: ab.UB, N: 3, Msgs: 2, K: 1, Crashes: 1},
	{Module: "bb3", Variant: ab.BB, N: 3, Msgs: 2, K: 1, Crashes: 1},
	{Module: "cons3", Variant: ab.ConsensusBased, N: 3, Msgs: 2, K: 2, Crashes: 1},
}

// quintImport is the import line of the instance's parameters.
func (in AbInstance) quintImport(path string) string {
	return fmt.Sprintf("import abcast(N = %d, MSGS = %d, VARIANT = %q, K = %d, CRASHES = %d, MUTANT = %q).* from %q",
		in.N, in.Msgs, in.Variant.String(), in.K, in.Crashes, string(in.Mutant), path)
}

// AbMsg is the spec's Msg; Batch is "o.s,o.s,…" in the batch's order.
type AbMsg struct {
	Kind     string
	Src, Dst int
	O, S     int // the id; o = -1 for none
	Num      int
	Pay      bool
	Inst     int
	Batch    string
}

func (m AbMsg) String() string {
	return fmt.Sprintf("%s p%d→p%d id=%d.%d num=%d pay=%v inst=%d batch=[%s]", m.Kind, m.Src, m.Dst, m.O, m.S, m.Num, m.Pay, m.Inst, m.Batch)
}

func idsString(b []ab.ID) string {
	parts := make([]string, len(b))
	for i, id := range b {
		parts[i] = fmt.Sprintf("%d.%d", id.Origin, id.Seq)
	}
	return strings.Join(parts, ",")
}

// abMsgOf is the spec's image of Go message m from src to dst.
func abMsgOf(src, dst core.Rank, m core.Message) (AbMsg, error) {
	x := AbMsg{Src: int(src), Dst: int(dst), O: -1, Num: -1}
	switch m := m.(type) {
	case ab.Msg:
		x.Kind, x.O, x.S, x.Num = "MSG", int(m.ID.Origin), int(m.ID.Seq), int(m.Num)
	case ab.Seq:
		x.Kind, x.O, x.S, x.Num, x.Pay = "SEQ", int(m.ID.Origin), int(m.ID.Seq), int(m.Num), m.Payload
	case ab.Decision:
		x.Kind, x.Inst, x.Batch = "DECISION", int(m.Inst), idsString(m.Batch)
	case abcastmodel.Cons:
		x.Kind, x.Inst, x.Batch = "CONS", int(m.Inst), m.Data
	default:
		return x, fmt.Errorf("message %v (%T) is not in the spec", m, m)
	}
	return x, nil
}

// AbState is what the conformance compares: every member's deliveries
// ("o.s"), the messages in flight (sorted), the crashed members and the
// calls made.
type AbState struct {
	Delivered [][]string
	Msgs      []AbMsg
	Crashed   []int
	Made      []int
}

// AbAction is a spec action: Broadcast(P), Deliver(M), Crash(P) or
// Suspect(P, Q).
type AbAction struct {
	Name string
	P, Q int
	M    AbMsg
}

func (a AbAction) String() string {
	switch a.Name {
	case "Deliver":
		return "Deliver(" + a.M.String() + ")"
	case "Suspect":
		return fmt.Sprintf("Suspect(%d, %d)", a.P, a.Q)
	}
	return fmt.Sprintf("%s(%d)", a.Name, a.P)
}

// picks is a's operands.
func (a AbAction) picks() string {
	return strings.TrimSuffix(strings.TrimPrefix(a.String(), a.Name+"("), ")")
}

// AbWorld is the Go members of an instance under the spec's model.
type AbWorld struct {
	in        AbInstance
	nodes     []*ab.Node
	flight    map[AbMsg]core.Message
	crashed   []bool
	suspected [][]bool
	made      []int
	delivered [][]string
}

// NewAbWorld builds the members of in, with mutant mut.
func NewAbWorld(in AbInstance, mut mutant.Name) (*AbWorld, error) {
	cfg := ab.Config{N: in.N, Variant: in.Variant, K: in.K, Messages: in.Msgs, Mutant: mut}
	if in.Variant == ab.ConsensusBased {
		cfg.Consensus = abcastmodel.Oracle{}
	}
	w := &AbWorld{in: in, flight: map[AbMsg]core.Message{}, crashed: make([]bool, in.N),
		made: make([]int, in.N), delivered: make([][]string, in.N)}
	for r := range core.Rank(in.N) {
		n, err := ab.New(r, cfg)
		if err != nil {
			return nil, err
		}
		w.nodes = append(w.nodes, n)
		w.suspected = append(w.suspected, make([]bool, in.N))
	}
	return w, nil
}

// step steps member p with ev and carries out its effects.
func (w *AbWorld) step(p int, ev core.Event) error {
	effs, err := w.nodes[p].Step(ev, nil)
	if err != nil {
		return err
	}
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			if w.crashed[e.To] {
				continue
			}
			k, err := abMsgOf(core.Rank(p), e.To, e.Msg)
			if err != nil {
				return err
			}
			if _, dup := w.flight[k]; dup {
				return fmt.Errorf("%v sent twice (the spec's network is a set)", k)
			}
			w.flight[k] = e.Msg
		case core.EffDeliver:
			id := e.Value.(ab.ID)
			w.delivered[p] = append(w.delivered[p], fmt.Sprintf("%d.%d", id.Origin, id.Seq))
		}
	}
	return nil
}

// Apply takes a, or says why the spec would not enable it.
func (w *AbWorld) Apply(a AbAction) error {
	live := func(p int) bool { return p >= 0 && p < w.in.N && !w.crashed[p] }
	switch a.Name {
	case "Broadcast":
		if !live(a.P) || w.made[a.P] >= w.in.Msgs {
			return fmt.Errorf("%v not enabled", a)
		}
		w.made[a.P]++
		return w.step(a.P, core.Call(ab.Broadcast{Seq: uint32(w.made[a.P] - 1)}))
	case "Deliver":
		m, ok := w.flight[a.M]
		if !ok || !live(a.M.Dst) {
			return fmt.Errorf("%v not enabled", a)
		}
		delete(w.flight, a.M)
		return w.step(a.M.Dst, core.Receive(core.Rank(a.M.Src), m))
	case "Crash":
		if a.P == int(ab.Sequencer) || !live(a.P) || w.ncrashed() >= w.in.Crashes {
			return fmt.Errorf("%v not enabled", a)
		}
		w.crashed[a.P] = true
		for k := range w.flight {
			if k.Dst == a.P {
				delete(w.flight, k)
			}
		}
		return nil
	case "Suspect":
		if !live(a.P) || a.Q < 0 || a.Q >= w.in.N || !w.crashed[a.Q] || w.suspected[a.P][a.Q] {
			return fmt.Errorf("%v not enabled", a)
		}
		w.suspected[a.P][a.Q] = true
		return w.step(a.P, core.Suspect(core.Rank(a.Q)))
	}
	return fmt.Errorf("unknown action %v", a)
}

func (w *AbWorld) ncrashed() int {
	k := 0
	for _, c := range w.crashed {
		if c {
			k++
		}
	}
	return k
}

// Enabled lists the actions the spec enables, deliveries first (sorted).
func (w *AbWorld) Enabled() []AbAction {
	var out []AbAction
	for _, m := range w.State().Msgs {
		out = append(out, AbAction{Name: "Deliver", M: m})
	}
	for p := range w.in.N {
		if w.crashed[p] {
			continue
		}
		if w.made[p] < w.in.Msgs {
			out = append(out, AbAction{Name: "Broadcast", P: p})
		}
		if p != int(ab.Sequencer) && w.ncrashed() < w.in.Crashes {
			out = append(out, AbAction{Name: "Crash", P: p})
		}
		for q := range w.in.N {
			if w.crashed[q] && !w.suspected[p][q] {
				out = append(out, AbAction{Name: "Suspect", P: p, Q: q})
			}
		}
	}
	return out
}

// State is the compared abstraction of w.
func (w *AbWorld) State() AbState {
	s := AbState{Made: slices.Clone(w.made)}
	for p := range w.in.N {
		s.Delivered = append(s.Delivered, slices.Clone(w.delivered[p]))
		if w.crashed[p] {
			s.Crashed = append(s.Crashed, p)
		}
	}
	for k := range w.flight {
		s.Msgs = append(s.Msgs, k)
	}
	slices.SortFunc(s.Msgs, func(a, b AbMsg) int { return strings.Compare(a.String(), b.String()) })
	return s
}

// RandomAbWalk walks the Go members of in (mutant mut) for at most steps
// steps from seed: a delivery with probability 3/4 when one is enabled,
// else any enabled action. It returns the actions and the state after
// each (States[0] is the initial state).
func RandomAbWalk(in AbInstance, mut mutant.Name, seed uint64, steps int) (acts []AbAction, states []AbState, err error) {
	w, err := NewAbWorld(in, mut)
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	states = append(states, w.State())
	for range steps {
		en := w.Enabled()
		if len(en) == 0 {
			break
		}
		nd := 0
		for nd < len(en) && en[nd].Name == "Deliver" {
			nd++
		}
		a := en[rng.IntN(len(en))]
		if nd > 0 && rng.IntN(4) != 0 {
			a = en[rng.IntN(nd)]
		}
		if err := w.Apply(a); err != nil {
			return acts, states, err
		}
		acts, states = append(acts, a), append(states, w.State())
	}
	return acts, states, nil
}

// ------------------------------------------------------- spec values

// fromAbSpec reads abcast.qnt's state st.
func fromAbSpec(st map[string]any) (s AbState, err error) {
	defer recoverPicks(&err)
	nodes := intKeyed(st["node"])
	made := intKeyed(st["made"])
	for p := range len(nodes) {
		var d []string
		for _, id := range nodes[p].(map[string]any)["delivered"].([]any) {
			r := id.(map[string]any)
			d = append(d, fmt.Sprintf("%d.%d", asInt(r["o"]), asInt(r["s"])))
		}
		s.Delivered = append(s.Delivered, d)
		s.Made = append(s.Made, asInt(made[p]))
	}
	s.Crashed = asInts(st["crashed"])
	for _, m := range st["msgs"].([]any) {
		s.Msgs = append(s.Msgs, asAbMsg(m))
	}
	slices.SortFunc(s.Msgs, func(a, b AbMsg) int { return strings.Compare(a.String(), b.String()) })
	return s, nil
}

// asAbMsg reads a spec Msg.
func asAbMsg(v any) AbMsg {
	r := v.(map[string]any)
	id := r["id"].(map[string]any)
	var batch []string
	for _, x := range r["batch"].([]any) {
		b := x.(map[string]any)
		batch = append(batch, fmt.Sprintf("%d.%d", asInt(b["o"]), asInt(b["s"])))
	}
	return AbMsg{Kind: r["kind"].(string), Src: asInt(r["src"]), Dst: asInt(r["dst"]), O: asInt(id["o"]), S: asInt(id["s"]),
		Num: asInt(r["num"]), Pay: r["pay"].(bool), Inst: asInt(r["inst"]), Batch: strings.Join(batch, ",")}
}

// abActionOf reads the action the spec took into state st.
func abActionOf(st map[string]any) (a AbAction, err error) {
	defer recoverPicks(&err)
	a.Name, _ = st["mbt::actionTaken"].(string)
	if p, ok := pick(st, "p"); ok {
		a.P = asInt(p)
	}
	if q, ok := pick(st, "q"); ok {
		a.Q = asInt(q)
	}
	if m, ok := pick(st, "m"); ok {
		a.M = asAbMsg(m)
	}
	return a, nil
}

// ------------------------------------------------------- Quint literals

func abIDLit(s string) string {
	o, q, _ := strings.Cut(s, ".")
	return fmt.Sprintf("{ o: %s, s: %s }", o, q)
}

func abListLit(ids []string) string {
	if len(ids) == 0 {
		return "List()"
	}
	parts := make([]string, len(ids))
	for i, s := range ids {
		parts[i] = abIDLit(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// abMsgLit is m as a Quint Msg.
func abMsgLit(m AbMsg) string {
	var batch []string
	if m.Batch != "" {
		batch = strings.Split(m.Batch, ",")
	}
	return fmt.Sprintf("{ kind: %q, src: %d, dst: %d, id: { o: %d, s: %d }, num: %d, pay: %v, inst: %d, batch: %s }",
		m.Kind, m.Src, m.Dst, m.O, m.S, m.Num, m.Pay, m.Inst, abListLit(batch))
}

// abImageLit is s as abcast.qnt's Image.
func abImageLit(s AbState) string {
	var del, made, msgs, crashed []string
	for p, d := range s.Delivered {
		del = append(del, fmt.Sprintf("%d -> %s", p, abListLit(d)))
		made = append(made, fmt.Sprintf("%d -> %d", p, s.Made[p]))
	}
	for _, m := range s.Msgs {
		msgs = append(msgs, abMsgLit(m))
	}
	for _, c := range s.Crashed {
		crashed = append(crashed, strconv.Itoa(c))
	}
	return fmt.Sprintf("{ delivered: Map(%s), msgs: Set(%s), crashed: Set(%s), made: Map(%s) }",
		strings.Join(del, ", "), strings.Join(msgs, ", "), strings.Join(crashed, ", "), strings.Join(made, ", "))
}

// abActionLit is a as a call of the spec's action.
func abActionLit(a AbAction) string {
	switch a.Name {
	case "Deliver":
		return "Deliver(" + abMsgLit(a.M) + ")"
	case "Suspect":
		return fmt.Sprintf("Suspect(%d, %d)", a.P, a.Q)
	}
	return fmt.Sprintf("%s(%d)", a.Name, a.P)
}

// AbQuintRun is a Quint run that takes acts from init and expects, before
// and after each, the Go state (states[i] before acts[i]).
func AbQuintRun(name string, acts []AbAction, states []AbState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  run %s =\n    init\n      .expect(image == %s)\n", name, abImageLit(states[0]))
	for i, a := range acts {
		fmt.Fprintf(&b, "      .then(%s)\n      .expect(image == %s)\n", abActionLit(a), abImageLit(states[i+1]))
	}
	return b.String()
}

// AbQuintModule is a module importing instance in of the spec at path
// with the runs given.
func AbQuintModule(module, path string, in AbInstance, runs ...string) string {
	return fmt.Sprintf("// Generated by tla/conformance (abcast_test.go) from walks of the Go members\n// of statemachine/abcast: each step must be a step of abcast.qnt reaching the same image.\nmodule %s {\n  %s\n\n%s}\n",
		module, in.quintImport(path), strings.Join(runs, "\n"))
}

// ReplayAbcastITF replays the ITF trace at path, written by `quint run
// abcast.qnt --mbt`, on the Go members of in with mutant mut, comparing
// the states after every step; it returns a *Divergence at the first
// difference or step the Go side cannot take.
func ReplayAbcastITF(path string, in AbInstance, mut mutant.Name) (Stats, error) {
	st, tr, err := readReplay(path)
	if err != nil {
		return st, err
	}
	w, err := NewAbWorld(in, mut)
	if err != nil {
		return st, err
	}
	for i, s := range tr.States {
		var a AbAction
		if i > 0 {
			if a, err = abActionOf(s); err != nil {
				return st, fmt.Errorf("%s: state %d: %w", path, i, err)
			}
			if err := w.Apply(a); err != nil {
				return st, &Divergence{File: path, Step: i, Action: a.Name, Picks: a.picks(), Diff: err.Error()}
			}
			st.GoSteps++
		}
		spec, err := fromAbSpec(s)
		if err != nil {
			return st, fmt.Errorf("%s: state %d: %w", path, i, err)
		}
		if d := cmp.Diff(spec, w.State()); d != "" {
			return st, &Divergence{File: path, Step: i, Action: a.Name, Picks: a.picks(), Diff: d}
		}
		st.Compared++
	}
	return st, nil
}
