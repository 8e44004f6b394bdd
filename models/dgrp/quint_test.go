package dgrp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/golden"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// The Quint specification tla/dgrp.qnt (module dgrp: membership with
// re-admission, the consensus abstracted as a global log each process
// learns in order) and the Go machine agree both ways. The Go nodes run
// with driven, a consensus that decides what the driver tells it, which is
// the spec's abstraction (Paxos itself is tla/paxos.qnt's):
//
//   - spec → code: TestQuintTracesReplayOnGo replays the committed quint
//     traces tla/traces/dgrp3_seed20240611_*.itf.json (made by `npx quint
//     run dgrp.qnt --main dgrp3 --backend typescript --invariant Inv
//     --max-samples 40 --max-steps 60 --seed 20240611 --n-traces 3
//     --out-itf traces/dgrp3_seed20240611_{seq}.itf.json` in tla/) on the
//     Go nodes, action by action, and compares after each: every node's
//     counters, round, views read at the barriers and re-admissions
//     applied, the proposals, and the EVENTS and READMIT_REQ in flight;
//   - code → spec: TestGoRunAsQuintReplay writes a seeded random run of the
//     Go nodes as the Quint test tla/traces/go/dgrp_replay.qnt, whose run
//     takes the same actions and expects every Go state (`npx quint test
//     traces/go/dgrp_replay.qnt --main dgrp_replay --backend typescript`
//     in tla/, run by ci/quint.sh). The test fails when the committed file
//     differs from what the Go machine gives now; DGRP_WRITE_REPLAY=1
//     rewrites it.

// driven is a dg.Consensus whose machine decides a command when it
// receives decision{data}: the driver plays the consensus.
type driven struct{}

type drivenNode struct{}

type decision struct{ Data string }

type drivenValue string

type drivenInput string

func (decision) Kind() string                      { return "DECISION" }
func (m decision) AppendBinary(b []byte) []byte    { return core.AppendString(b, m.Data) }
func (m decision) String() string                  { return "decision(" + m.Data + ")" }
func (v drivenValue) AppendBinary(b []byte) []byte { return core.AppendString(b, string(v)) }
func (v drivenValue) String() string               { return string(v) }
func (v drivenInput) AppendBinary(b []byte) []byte { return core.AppendString(b, string(v)) }
func (v drivenInput) String() string               { return "propose " + string(v) }

func (drivenNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if m, ok := ev.Msg.(decision); ok && ev.Kind == core.EvReceive {
		return append(out, core.Decide(0, drivenValue(m.Data))), nil
	}
	return out, nil
}
func (drivenNode) Clone() core.Machine          { return drivenNode{} }
func (drivenNode) AppendBinary(b []byte) []byte { return b }
func (drivenNode) String() string               { return "driven" }

func (driven) New(int, core.Rank) (core.Machine, error) { return drivenNode{}, nil }
func (driven) Propose(data string) core.Input           { return drivenInput(data) }
func (driven) Decided(v core.Value) (string, bool)      { return string(v.(drivenValue)), true }
func (driven) Log(core.Machine) []string                { return nil }
func (driven) Timer() uint64                            { return 1 }
func (driven) DecodeNode(int, core.Rank, []byte) (core.Machine, error) {
	return drivenNode{}, nil
}
func (driven) DecodeMessage(int, []byte) (core.Message, error) {
	return nil, errors.New("driven messages are not encoded")
}

// envelope is a message in flight; r is the sender's round when it sent
// it (the spec's READMIT_REQ carries it).
type envelope struct {
	from, to core.Rank
	r        uint32
	m        core.Message
}

// driver steps the Go nodes of one DGRP over a network of envelopes and
// plays the consensus: proposals in the order made, a log, and how far
// each node learned it.
type driver struct {
	nodes    []*dg.Node
	flight   []envelope
	proposed []dg.Proposal
	log      []dg.Event
	decided  []bool
	learned  []int
}

func newDriver(t *testing.T, n, zeta, rounds int, slow [][]dg.Slow) *driver {
	t.Helper()
	d := &driver{learned: make([]int, n)}
	cfg := dg.Config{N: n, Zeta: zeta, Rounds: rounds, Consensus: driven{}}
	for r := range n {
		node, err := dg.New(core.Rank(r), cfg)
		if err != nil {
			t.Fatal(err)
		}
		d.nodes = append(d.nodes, node)
		d.step(t, core.Rank(r), core.Call(dg.Start{Slow: slow[r]}))
	}
	return d
}

// step gives ev to p, keeps what it sends and records its proposals.
func (d *driver) step(t *testing.T, p core.Rank, ev core.Event) {
	t.Helper()
	n := d.nodes[p]
	before := len(n.Proposals())
	effs, err := n.Step(ev, nil)
	if err != nil {
		t.Fatalf("%v: %v: %v", p, ev, err)
	}
	for _, e := range effs {
		if e.Kind == core.EffSend {
			d.flight = append(d.flight, envelope{from: p, to: e.To, r: n.Round(), m: e.Msg})
		}
	}
	for _, pr := range n.Proposals()[before:] {
		d.proposed = append(d.proposed, pr)
		d.decided = append(d.decided, false)
	}
}

// deliver takes the first envelope in flight that match accepts and gives
// it to its receiver; false if there is none.
func (d *driver) deliver(t *testing.T, match func(envelope) bool) bool {
	t.Helper()
	k := slices.IndexFunc(d.flight, match)
	if k < 0 {
		return false
	}
	e := d.flight[k]
	d.flight = slices.Delete(d.flight, k, k+1)
	d.step(t, e.to, core.Receive(e.from, e.m))
	return true
}

func (d *driver) decide(x int) {
	d.decided[x] = true
	d.log = append(d.log, dg.Event{K: d.proposed[x].K, C: d.proposed[x].C})
}

func (d *driver) learn(t *testing.T, p core.Rank) {
	e := d.log[d.learned[p]]
	d.learned[p]++
	d.step(t, p, core.Receive(p, dg.Wrap{M: decision{Data: dg.Command(e.K, e.C)}}))
}

// tickChanges reports whether p's test interval would do something: the
// first round, or a barrier passed (otherwise the spec takes no step).
func (d *driver) tickChanges(p core.Rank) bool {
	n := d.nodes[p]
	c := n.Clone()
	if _, err := c.Step(core.Timer(dg.TimerTick), nil); err != nil {
		return false
	}
	return string(c.AppendBinary(nil)) != string(n.AppendBinary(nil))
}

// ---------------------------------------------------------------- ITF

// itf decodes an ITF value: ints as int, sets and lists as []any (sets
// sorted by their printing), tuples as tup, records as map[string]any, maps
// as itfMap.
type tup []any

type itfMap [][2]any

func itf(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	return itfValue(t, x)
}

func itfValue(t *testing.T, x any) any {
	switch v := x.(type) {
	case map[string]any:
		if s, ok := v["#bigint"].(string); ok {
			k, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		if s, ok := v["#set"].([]any); ok {
			out := make([]any, len(s))
			for i, e := range s {
				out[i] = itfValue(t, e)
			}
			slices.SortFunc(out, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			return out
		}
		if s, ok := v["#tup"].([]any); ok {
			out := make(tup, len(s))
			for i, e := range s {
				out[i] = itfValue(t, e)
			}
			return out
		}
		if s, ok := v["#map"].([]any); ok {
			out := make(itfMap, len(s))
			for i, e := range s {
				kv := e.([]any)
				out[i] = [2]any{itfValue(t, kv[0]), itfValue(t, kv[1])}
			}
			return out
		}
		out := map[string]any{}
		for k, e := range v {
			out[k] = itfValue(t, e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = itfValue(t, e)
		}
		return out
	}
	return x
}

// get is m's value for key k.
func (m itfMap) get(k any) any {
	for _, kv := range m {
		if fmt.Sprint(kv[0]) == fmt.Sprint(k) {
			return kv[1]
		}
	}
	return nil
}

// counters reads an int -> int map over ranks 0 … n−1.
func counters(m itfMap, n int) []uint32 {
	out := make([]uint32, n)
	for _, kv := range m {
		out[kv[0].(int)] = uint32(kv[1].(int))
	}
	return out
}

func rankSet(xs []any) core.RankSet {
	var s core.RankSet
	for _, x := range xs {
		s.Add(core.Rank(x.(int)))
	}
	return s
}

// ------------------------------------------------------- spec → code

func TestQuintTracesReplayOnGo(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "tla", "traces", "dgrp3_seed*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed dgrp traces")
	}
	const n, zeta, rounds = 3, 1, 3 // module dgrp3
	kinds := map[string]int{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			States []map[string]json.RawMessage `json:"states"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		get := func(k int, name string) any { return itf(t, doc.States[k]["dgrp3::dgrp::"+name]) }
		slow := make([][]dg.Slow, n)
		for _, x := range get(len(doc.States)-1, "slow").([]any) {
			s := x.(tup)
			slow[s[0].(int)] = append(slow[s[0].(int)], dg.Slow{Round: uint32(s[2].(int)), Peer: core.Rank(s[1].(int))})
		}
		d := newDriver(t, n, zeta, rounds, slow)
		for k := 1; k < len(doc.States); k++ {
			act := get(k, "act").(map[string]any)
			kind := act["kind"].(string)
			kinds[kind]++
			i, src := core.Rank(act["i"].(int)), core.Rank(act["src"].(int))
			switch kind {
			case "tick":
				d.step(t, i, core.Timer(dg.TimerTick))
			case "events":
				r := uint32(act["r"].(int))
				if !d.deliver(t, func(e envelope) bool {
					m, ok := e.m.(dg.Events)
					return ok && e.from == src && e.to == i && m.R == r
				}) {
					t.Fatalf("%s state %d: no EVENTS(r=%d) from %v to %v in flight", filepath.Base(file), k, r, src, i)
				}
			case "readmit":
				want := dg.Readmit{K: core.Rank(act["k"].(int)), C: uint32(act["c"].(int))}
				if !d.deliver(t, func(e envelope) bool { return e.from == src && e.to == i && e.m == want }) {
					t.Fatalf("%s state %d: no %v from %v to %v in flight", filepath.Base(file), k, want, src, i)
				}
			case "decide":
				d.decide(act["x"].(int))
			case "learn":
				d.learn(t, i)
			default:
				t.Fatalf("%s state %d: action %q", filepath.Base(file), k, kind)
			}
			if err := d.compare(get, k, n); err != nil {
				t.Fatalf("%s state %d (%s): %v", filepath.Base(file), k, kind, err)
			}
		}
	}
	for _, k := range []string{"tick", "events", "decide", "learn"} {
		if kinds[k] == 0 {
			t.Errorf("the traces have no %s action", k)
		}
	}
	t.Logf("actions replayed: %v", kinds)
}

// compare checks the Go nodes against state k of a trace.
func (d *driver) compare(get func(int, string) any, k, n int) error {
	syn, round, done := get(k, "syn").(itfMap), get(k, "round").(itfMap), get(k, "done").(itfMap)
	views, admitted := get(k, "views").(itfMap), get(k, "admitted").(itfMap)
	for p, node := range d.nodes {
		if got, want := node.Syndrome(), counters(syn.get(p).(itfMap), n); !slices.Equal(got, want) {
			return fmt.Errorf("p%d counters %v, spec %v", p, got, want)
		}
		if got, want := int(node.Round()), round.get(p).(int); got != want {
			return fmt.Errorf("p%d round %d, spec %d", p, got, want)
		}
		if got, want := node.Done(), done.get(p).(bool); got != want {
			return fmt.Errorf("p%d done %v, spec %v", p, got, want)
		}
		for r := max(1, node.Round()-1); r <= node.Round(); r++ {
			v, _, ok := node.ViewAt(r)
			w := views.get(tup{p, int(r)})
			if ok != (w != nil) || ok && !v.Equal(rankSet(w.([]any))) {
				return fmt.Errorf("p%d view at barrier %d: %v (%v), spec %v", p, r, v, ok, w)
			}
		}
		var want []dg.Event
		for _, e := range admitted.get(p).([]any) {
			want = append(want, dg.Event{K: core.Rank(e.(tup)[0].(int)), C: uint32(e.(tup)[1].(int))})
		}
		got := node.Admitted()
		cmpEv := func(a, b dg.Event) int { return int(a.K)*1000 + int(a.C) - int(b.K)*1000 - int(b.C) }
		slices.SortFunc(got, cmpEv)
		got = slices.Compact(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("p%d re-admissions %v, spec %v", p, got, want)
		}
	}
	var props []string
	for _, x := range get(k, "proposed").([]any) {
		r := x.(map[string]any)
		props = append(props, fmt.Sprintf("p%d:%d@%d", r["p"], r["k"], r["c"]))
	}
	var goProps []string
	for _, p := range d.proposed {
		goProps = append(goProps, fmt.Sprintf("p%d:%d@%d", p.Leader, p.K, p.C))
	}
	if !slices.Equal(props, goProps) {
		return fmt.Errorf("proposals %v, spec %v", goProps, props)
	}
	// Messages in flight, as sorted strings.
	var spec, code []string
	for _, x := range get(k, "events").([]any) {
		m := x.(map[string]any)
		var list []string
		for _, e := range m["list"].([]any) {
			list = append(list, fmt.Sprintf("p%d:%d", e.(tup)[0], e.(tup)[1]))
		}
		syn := m["syn"].(itfMap)
		spec = append(spec, fmt.Sprintf("p%d→p%d EVENTS r=%d [%s] %v", m["src"], m["dst"], m["r"], strings.Join(list, ","), counters(syn, len(syn))))
	}
	for _, x := range get(k, "readmits").([]any) {
		m := x.(map[string]any)
		spec = append(spec, fmt.Sprintf("p%d→p%d READMIT p%d@%d", m["src"], m["dst"], m["k"], m["c"]))
	}
	for _, e := range d.flight {
		switch m := e.m.(type) {
		case dg.Events:
			var list []string
			for _, x := range m.List {
				list = append(list, fmt.Sprintf("%v:%d", x.K, x.C))
			}
			slices.Sort(list)
			code = append(code, fmt.Sprintf("%v→%v EVENTS r=%d [%s] %v", e.from, e.to, m.R, strings.Join(list, ","), m.Syndrome))
		case dg.Readmit:
			code = append(code, fmt.Sprintf("%v→%v READMIT %v@%d", e.from, e.to, m.K, m.C))
		}
	}
	slices.Sort(spec)
	slices.Sort(code)
	spec, code = slices.Compact(spec), slices.Compact(code)
	if !slices.Equal(spec, code) {
		return fmt.Errorf("in flight:\n  go   %v\n  spec %v", code, spec)
	}
	return nil
}

// ------------------------------------------------------- code → spec

// goReplay runs the Go nodes of dgrp3 (N = 3, ζ = 1, three rounds) with two
// slow tests drawn from seed, taking at each step one enabled action drawn
// from seed (a tick that does something, a delivery, a decision, a learner
// step), and writes the run as a Quint test expecting every Go state.
func goReplay(t *testing.T, seed uint64) string {
	const n, zeta, rounds, budget = 3, 1, 3, 2
	rng := rand.New(rand.NewPCG(seed, 0))
	slow := make([][]dg.Slow, n)
	for range budget {
		i := rng.IntN(n)
		j := (i + 1 + rng.IntN(n-1)) % n
		s := dg.Slow{Round: uint32(1 + rng.IntN(rounds)), Peer: core.Rank(j)}
		if !slices.Contains(slow[i], s) {
			slow[i] = append(slow[i], s)
		}
	}
	d := newDriver(t, n, zeta, rounds, slow)
	var b strings.Builder
	b.WriteString("// Generated by models/dgrp TestGoRunAsQuintReplay (DGRP_WRITE_REPLAY=1 rewrites it): a run of\n")
	fmt.Fprintf(&b, "// the Go machine statemachine/dgrp (seed %d), each of its states expected in tla/dgrp.qnt.\n", seed)
	b.WriteString("module dgrp_replay {\n  import dgrp(N = 3, ZETA = 1, ROUNDS = 3, SLOW = 2, MUTANT = \"\").* from \"../../dgrp\"\n\n")
	b.WriteString("  run replayTest =\n    init\n")
	fmt.Fprintf(&b, "    .expect(%s)\n", d.quintState())
	for range 120 {
		type choice struct {
			text string
			do   func()
		}
		var cs []choice
		for p := range core.Rank(n) {
			if d.tickChanges(p) {
				r := d.nodes[p].Round() + 1
				var fails []string
				for _, s := range slow[p] {
					if s.Round == r && !d.nodes[p].Done() && d.nodes[p].Round() < rounds {
						fails = append(fails, strconv.Itoa(int(s.Peer)))
					}
				}
				cs = append(cs, choice{fmt.Sprintf("tick(%d, Set(%s))", p, strings.Join(fails, ", ")),
					func() { d.step(t, p, core.Timer(dg.TimerTick)) }})
			}
			if d.learned[p] < len(d.log) {
				cs = append(cs, choice{fmt.Sprintf("learn(%d)", p), func() { d.learn(t, p) }})
			}
		}
		for k, e := range d.flight {
			switch m := e.m.(type) {
			case dg.Events:
				cs = append(cs, choice{"deliverEvents(" + quintEvents(e, m) + ")",
					func() {
						d.deliver(t, func(x envelope) bool { return x.from == e.from && x.to == e.to && x.r == e.r && x.m.Kind() == "EVENTS" })
					}})
			case dg.Readmit:
				cs = append(cs, choice{fmt.Sprintf("deliverReadmit({ src: %d, dst: %d, k: %d, c: %d, r: %d })", e.from, e.to, m.K, m.C, e.r),
					func() { d.flight = slices.Delete(d.flight, k, k+1); d.step(t, e.to, core.Receive(e.from, e.m)) }})
			}
		}
		for x, done := range d.decided {
			if !done {
				cs = append(cs, choice{fmt.Sprintf("decide(%d)", x), func() { d.decide(x) }})
			}
		}
		if len(cs) == 0 {
			break
		}
		c := cs[rng.IntN(len(cs))]
		c.do()
		fmt.Fprintf(&b, "    .then(%s)\n    .expect(%s)\n", c.text, d.quintState())
	}
	b.WriteString("}\n")
	return b.String()
}

func quintEvents(e envelope, m dg.Events) string {
	var list []string
	for _, x := range m.List {
		list = append(list, fmt.Sprintf("(%d, %d)", x.K, x.C))
	}
	return fmt.Sprintf("{ src: %d, dst: %d, r: %d, list: Set(%s), syn: %s }", e.from, e.to, m.R, strings.Join(list, ", "), quintCounters(m.Syndrome))
}

func quintCounters(cs []uint32) string {
	parts := make([]string, len(cs))
	for k, c := range cs {
		parts[k] = fmt.Sprintf("%d -> %d", k, c)
	}
	return "Map(" + strings.Join(parts, ", ") + ")"
}

// quintState is the Go state as a Quint predicate: every node's counters
// and round, the log and how far each node learned it.
func (d *driver) quintState() string {
	var syn, round, learned, log []string
	for p, n := range d.nodes {
		syn = append(syn, fmt.Sprintf("%d -> %s", p, quintCounters(n.Syndrome())))
		round = append(round, fmt.Sprintf("%d -> %d", p, n.Round()))
		learned = append(learned, fmt.Sprintf("%d -> %d", p, d.learned[p]))
	}
	for _, e := range d.log {
		log = append(log, fmt.Sprintf("(%d, %d)", e.K, e.C))
	}
	return fmt.Sprintf("all { syn == Map(%s), round == Map(%s), log == [%s], learned == Map(%s) }",
		strings.Join(syn, ", "), strings.Join(round, ", "), strings.Join(log, ", "), strings.Join(learned, ", "))
}

func TestGoRunAsQuintReplay(t *testing.T) {
	file := filepath.Join("..", "..", "tla", "traces", "go", "dgrp_replay.qnt")
	got := goReplay(t, 4)
	for _, want := range []string{".then(learn(", ".then(decide("} {
		if !strings.Contains(got, want) {
			t.Fatalf("the Go run has no %s…", want)
		}
	}
	golden.Check(t, file, got, "DGRP_WRITE_REPLAY")
}
