package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// BOT is ⊥ in the spec's integer encoding of values.
const BOT = -1

// Msg is a message in flight, as in the spec: Kind is "UP", "DOWN" or
// "RESULTREQUEST"; V is BOT for RESULTREQUEST.
type Msg struct {
	Kind           string
	Src, Dst, A, V int
}

// String formats m as a Quint record literal.
func (m Msg) String() string {
	return fmt.Sprintf(`{ kind: %q, src: %d, dst: %d, a: %d, v: %d }`, m.Kind, m.Src, m.Dst, m.A, m.V)
}

// Agreement is what process p holds for agreement a: the variables of ERA
// Part 1 and the first decision (the spec's history variable decided).
type Agreement struct {
	Status      string // "notcontributed" | "gathering" | "broadcasting"
	Result      int    // BOT when ⊥
	Current     int    // BOT when ⊥
	Contributed []int  // ascending; nil when empty
	Requested   []int  // ascending; nil when empty
	Decided     int    // first decided value, BOT if none
}

// Proc is one process: S_p (the ranks it marked dead) and its agreements.
type Proc struct {
	S   []int
	Ags map[int]Agreement
}

// State is the abstraction both sides are compared on: per process S_p
// and the agreement variables, the crashed set, and the messages in flight
// to live processes as a multiset (the Go environment discards a crashed
// process's inbox and the messages later sent to it; the spec keeps them
// in the bag, undeliverable).
type State struct {
	Crashed []int
	Procs   []Proc
	Msgs    map[Msg]int
}

func ranks(s core.RankSet) []int {
	var out []int
	s.Each(func(r core.Rank) { out = append(out, int(r)) })
	slices.Sort(out)
	return out
}

func value(v era.Value) int {
	if v == nil {
		return BOT
	}
	f, ok := v.(era.Flag)
	if !ok {
		panic(fmt.Sprintf("conformance: value %v (%T) is not an era.Flag", v, v))
	}
	return int(f)
}

// MsgOf abstracts an ERA message sent from src to dst.
func MsgOf(src, dst core.Rank, m core.Message) Msg {
	out := Msg{Src: int(src), Dst: int(dst), V: BOT}
	switch x := m.(type) {
	case era.Up:
		out.Kind, out.A, out.V = "UP", int(x.A), value(x.V)
	case era.Down:
		out.Kind, out.A, out.V = "DOWN", int(x.A), value(x.V)
	case era.ResultRequest:
		out.Kind, out.A = "RESULTREQUEST", int(x.A)
	default:
		panic(fmt.Sprintf("conformance: %v (%T) is not an ERA message", m, m))
	}
	return out
}

// FromWorld abstracts a world of the ERA environment (era.Node machines,
// op And) for agreements 0 … nags-1.
func FromWorld(w *env.World, nags int) State {
	s := State{Crashed: ranks(w.CrashedSet()), Msgs: map[Msg]int{}}
	for p := 0; p < w.N(); p++ {
		n := w.Node(core.Rank(p)).(*era.Node)
		pr := Proc{S: ranks(n.Dead()), Ags: map[int]Agreement{}}
		for a := 0; a < nags; a++ {
			g := Agreement{
				Status:      n.Status(uint64(a)).String(),
				Result:      value(n.Result(uint64(a))),
				Current:     value(n.Current(uint64(a))),
				Contributed: ranks(n.Contributed(uint64(a))),
				Requested:   ranks(n.RequestedResult(uint64(a))),
				Decided:     BOT,
			}
			for _, h := range w.History(core.Rank(p)) {
				if h.Kind == core.EffDecide && h.Instance == uint64(a) {
					g.Decided = value(h.Value)
					break
				}
			}
			pr.Ags[a] = g
		}
		s.Procs = append(s.Procs, pr)
	}
	for _, e := range w.InFlight() {
		s.Msgs[MsgOf(e.From, e.To, e.Msg)]++
	}
	return s
}

// fromSpec abstracts a decoded ITF state of era.qnt / era_go.qnt.
func fromSpec(st map[string]any) (s State, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("conformance: unexpected spec state shape: %v", r)
		}
	}()
	s = State{Crashed: asInts(st["crashed"]), Msgs: map[Msg]int{}}
	dead := intKeyed(st["S"])
	perAg := func(name string) map[int]map[int]any {
		out := map[int]map[int]any{}
		for p, v := range intKeyed(st[name]) {
			out[p] = intKeyed(v)
		}
		return out
	}
	status, result, current := perAg("status"), perAg("result"), perAg("current")
	contributed, requested, decided := perAg("contributed"), perAg("requested"), perAg("decided")
	for p := 0; p < len(dead); p++ {
		pr := Proc{S: asInts(dead[p]), Ags: map[int]Agreement{}}
		for a := range status[p] {
			pr.Ags[a] = Agreement{
				Status:      status[p][a].(string),
				Result:      asInt(result[p][a]),
				Current:     asInt(current[p][a]),
				Contributed: asInts(contributed[p][a]),
				Requested:   asInts(requested[p][a]),
				Decided:     asInt(decided[p][a]),
			}
		}
		s.Procs = append(s.Procs, pr)
	}
	for _, kv := range asMap(st["msgs"]) {
		m := asMsg(kv[0])
		if !slices.Contains(s.Crashed, m.Dst) {
			s.Msgs[m] += asInt(kv[1])
		}
	}
	return s, nil
}

// slicesSortMsgs sorts messages by (Dst, Src, Kind, A, V).
func slicesSortMsgs(ms []Msg) {
	slices.SortFunc(ms, func(x, y Msg) int {
		for _, d := range []int{x.Dst - y.Dst, x.Src - y.Src, strings.Compare(x.Kind, y.Kind), x.A - y.A, x.V - y.V} {
			if d != 0 {
				return d
			}
		}
		return 0
	})
}
