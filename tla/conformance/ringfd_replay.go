package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/ringfd"
	"github.com/google/go-cmp/cmp"
)

// RingfdState is what the spec tla/ringfd.qnt and the Go daemons of
// statemachine/ringfd are compared on after every step: per daemon pred and
// obs (-1 = ⊥) and Reported; the crashed set; the FAULT and HBREQ messages
// in flight, each "KIND src->dst {ids}", sorted, one entry per copy.
// Heartbeats (HB) are not in the spec and not compared.
type RingfdState struct {
	Crashed  []int
	Pred     []int
	Obs      []int
	Reported [][]int
	Msgs     []string
}

func ringfdMsgKey(kind string, src, dst int, ids []int) string {
	s := make([]string, len(ids))
	for i, r := range ids {
		s[i] = fmt.Sprint(r)
	}
	return fmt.Sprintf("%s %d->%d {%s}", kind, src, dst, strings.Join(s, ","))
}

// ringfdSpecState reads a ringfd.qnt state (variables crashed, pred, obs,
// reported, msgs) of n daemons.
func ringfdSpecState(st map[string]any, n int) (s RingfdState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("spec state has an unexpected shape: %v", r)
		}
	}()
	s.Crashed = asInts(st["crashed"])
	pred, obs, rep := intKeyed(st["pred"]), intKeyed(st["obs"]), intKeyed(st["reported"])
	for d := 0; d < n; d++ {
		s.Pred = append(s.Pred, asInt(pred[d]))
		s.Obs = append(s.Obs, asInt(obs[d]))
		s.Reported = append(s.Reported, asInts(rep[d]))
	}
	for _, m := range st["msgs"].([]any) {
		s.Msgs = append(s.Msgs, ringfdSpecMsgKey(m))
	}
	slices.Sort(s.Msgs)
	return s, nil
}

func ringfdSpecMsgKey(v any) string {
	r := v.(map[string]any)
	return ringfdMsgKey(r["kind"].(string), asInt(r["src"]), asInt(r["dst"]), asInts(r["ids"]))
}

// ringfdWorld is N Go daemons (Procs = 0, identity ring, TimerReset,
// BMGPaper: the configuration ringfd.qnt abstracts) with the messages in
// flight kept as a multiset of keys.
type ringfdWorld struct {
	n       int
	ds      []*ringfd.Daemon
	crashed map[int]bool
	flight  map[string]int
}

func newRingfdWorld(n int, mut mutant.Name) (*ringfdWorld, error) {
	ms, err := ringfd.NewAll(ringfd.Config{N: n, Mutant: mut})
	if err != nil {
		return nil, err
	}
	w := &ringfdWorld{n: n, crashed: map[int]bool{}, flight: map[string]int{}}
	for _, m := range ms {
		d, ok := m.(*ringfd.Daemon)
		if !ok {
			return nil, fmt.Errorf("ringfd.NewAll(N=%d) gave a %T", n, m)
		}
		w.ds = append(w.ds, d)
		// Start arms timers; it sends nothing the spec models
		if err := w.step(len(w.ds)-1, core.Call(ringfd.Start{})); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// step applies ev to daemon d and puts its FAULT and HBREQUEST sends in
// flight (heartbeats, timers and suspicion effects are not modelled).
func (w *ringfdWorld) step(d int, ev core.Event) error {
	effs, err := w.ds[d].Step(ev, nil)
	if err != nil {
		return err
	}
	for _, e := range effs {
		if e.Kind != core.EffSend {
			continue
		}
		switch m := e.Msg.(type) {
		case ringfd.Fault:
			var ids []int
			m.IDs.Each(func(r core.Rank) { ids = append(ids, int(r)) })
			w.flight[ringfdMsgKey("FAULT", d, int(e.To), ids)]++
		case ringfd.HBRequest:
			w.flight[ringfdMsgKey("HBREQ", d, int(e.To), nil)]++
		}
	}
	return nil
}

// take removes one copy of message key from flight.
func (w *ringfdWorld) take(key string) error {
	if w.flight[key] == 0 {
		return fmt.Errorf("message %q is not in flight on the Go side", key)
	}
	w.flight[key]--
	if w.flight[key] == 0 {
		delete(w.flight, key)
	}
	return nil
}

func (w *ringfdWorld) state() RingfdState {
	var s RingfdState
	for d := 0; d < w.n; d++ {
		if w.crashed[d] {
			s.Crashed = append(s.Crashed, d)
		}
	}
	rank := func(r core.Rank) int {
		if r == core.NoRank {
			return -1
		}
		return int(r)
	}
	for _, dm := range w.ds {
		s.Pred = append(s.Pred, rank(dm.Pred()))
		s.Obs = append(s.Obs, rank(dm.Obs()))
		var rep []int
		dm.EachReported(func(r core.Rank) { rep = append(rep, int(r)) })
		s.Reported = append(s.Reported, rep)
	}
	for k, c := range w.flight {
		for range c {
			s.Msgs = append(s.Msgs, k)
		}
	}
	slices.Sort(s.Msgs)
	return s
}

// apply carries out spec action act of state st on the Go daemons:
// Timeout(o) → the observation timer of o; RecvFault(m) / RecvHBRequest(m)
// → delivery of m to m.dst; Crash(o) → o stops; DropToCrashed(m) → m is
// discarded.
func (w *ringfdWorld) apply(act string, st map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("action %s: picks have an unexpected shape: %v", act, r)
		}
	}()
	switch act {
	case "Timeout", "Crash":
		v, ok := pick(st, "o")
		if !ok {
			return fmt.Errorf("action %s without pick o", act)
		}
		o := asInt(v)
		if act == "Crash" {
			w.crashed[o] = true
			return nil
		}
		return w.step(o, core.Timer(ringfd.TimerObserve))
	case "RecvFault", "RecvHBRequest", "DropToCrashed":
		v, ok := pick(st, "m")
		if !ok {
			return fmt.Errorf("action %s without pick m", act)
		}
		key := ringfdSpecMsgKey(v)
		if err := w.take(key); err != nil {
			return err
		}
		if act == "DropToCrashed" {
			return nil
		}
		r := v.(map[string]any)
		src, dst := asInt(r["src"]), asInt(r["dst"])
		var m core.Message = ringfd.HBRequest{}
		if act == "RecvFault" {
			var ids core.RankSet
			for _, id := range asInts(r["ids"]) {
				ids.Add(core.Rank(id))
			}
			m = ringfd.Fault{IDs: ids}
		}
		return w.step(dst, core.Receive(core.Rank(src), m))
	}
	return fmt.Errorf("unknown spec action %q", act)
}

// ReplayRingfdITF replays a ringfd.qnt trace of n daemons on the Go daemons
// (with mutant mut, or mutant.None) and compares every state; the first
// difference is an error naming the state index, the action, and the
// cmp.Diff (-spec +go). It returns the number of states compared.
func ReplayRingfdITF(path string, n int, mut mutant.Name) (int, error) {
	tr, err := readITF(path)
	if err != nil {
		return 0, err
	}
	w, err := newRingfdWorld(n, mut)
	if err != nil {
		return 0, err
	}
	for i, st := range tr.States {
		act, _ := st["mbt::actionTaken"].(string)
		if i > 0 {
			if err := w.apply(act, st); err != nil {
				return i, fmt.Errorf("%s: state %d (%s): %w", path, i, act, err)
			}
		}
		spec, err := ringfdSpecState(st, n)
		if err != nil {
			return i, fmt.Errorf("%s: state %d: %w", path, i, err)
		}
		if d := cmp.Diff(spec, w.state()); d != "" {
			return i, fmt.Errorf("%s: state %d after %s: (-spec +go)\n%s", path, i, act, d)
		}
	}
	return len(tr.States), nil
}
