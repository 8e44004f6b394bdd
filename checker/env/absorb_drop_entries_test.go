package env_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
)

// sink is the toy of the tests of dropped absorbed messages among others:
// p0 records the sender of the first sinkPing it receives and ignores, so
// absorbs, every later one; it counts every sinkData, which it never
// absorbs. The other processes each call once and send p0 their sends, in
// order. A sinkData from a lower rank than a sinkPing sits before it in
// p0's inbox, one from a higher rank after it.
type sink struct {
	me    core.Rank
	sends []core.Message
	first uint8
	data  uint8
}

type sinkPing struct{}

func (sinkPing) Kind() string                 { return "PING" }
func (sinkPing) AppendBinary(b []byte) []byte { return append(b, 'P') }
func (sinkPing) String() string               { return "PING" }

type sinkData struct{}

func (sinkData) Kind() string                 { return "DATA" }
func (sinkData) AppendBinary(b []byte) []byte { return append(b, 'D') }
func (sinkData) String() string               { return "DATA" }

func (s *sink) Clone() core.Machine          { c := *s; return &c }
func (s *sink) AppendBinary(b []byte) []byte { return append(b, s.first, s.data) }
func (s *sink) String() string               { return fmt.Sprintf("%v first=%d data=%d", s.me, s.first, s.data) }

func (s *sink) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		for _, m := range s.sends {
			out = append(out, core.Send(0, m))
		}
	case core.EvReceive:
		switch ev.Msg.(type) {
		case sinkData:
			s.data++
		case sinkPing:
			if s.first == 0 {
				s.first = uint8(ev.From) + 1
			}
		}
	case core.EvSuspect:
	default:
		return out, fmt.Errorf("sink: unexpected %v", ev)
	}
	return out, nil
}

// Absorbs: a PING once the first is recorded.
func (s *sink) Absorbs(_ core.Rank, msg core.Message) bool {
	_, ok := msg.(sinkPing)
	return ok && s.first != 0
}

// sinkAllData is a quiescence property: p0, alive, has counted every DATA
// sent.
var sinkAllData = checker.Property[*env.World]{Name: "sink-all-data", Kind: checker.Quiescence,
	Check: func(w *env.World) error {
		sent := 0
		for p := range core.Rank(w.N()) {
			if len(w.CallsMade(p)) > 0 {
				for _, m := range w.Node(p).(*sink).sends {
					if _, ok := m.(sinkData); ok {
						sent++
					}
				}
			}
		}
		if got := int(w.Node(0).(*sink).data); !w.Crashed(0) && got != sent {
			return fmt.Errorf("p0 counted %d DATA of the %d sent", got, sent)
		}
		return nil
	}}

// sinkToys: p1 and p4 send DATA, p2 and p3 a PING each ("mixed"); the same
// with p1's DATA twice (one inbox entry of two copies) and a crash of p1 …
// p4 allowed ("twice-crash"); under FIFO, p2 sending PING then DATA, so
// the absorbed PING has a DATA of its own sender behind it ("fifo").
func sinkToys() (names []string, cfgs map[string]env.Config) {
	d, g := sinkData{}, sinkPing{}
	toy := func(name string, sends [][]core.Message) env.Config {
		n := len(sends)
		sched := make([][]core.Input, n)
		for p := 1; p < n; p++ {
			sched[p] = []core.Input{go_{}}
		}
		return env.Config{Name: "sink-" + name, N: n, Schedules: [][][]core.Input{sched},
			Survivors: []core.Rank{0}, Detector: env.DetectorNone,
			NewNode: func(p core.Rank, _ int) core.Machine {
				return &sink{me: p, sends: sends[p]}
			},
			MaySend: func(w *env.World, p, q core.Rank) bool {
				return len(w.PendingCalls(p)) > 0 && q == 0 && p != 0
			},
			Properties: []checker.Property[*env.World]{sinkAllData}}
	}
	mixed := toy("mixed", [][]core.Message{nil, {d}, {g}, {g}, {d}})
	twice := toy("twice-crash", [][]core.Message{nil, {d, d}, {g}, {g}, {d}})
	twice.Crashes = 1
	fifo := toy("fifo", [][]core.Message{nil, {d}, {g, d}, {g}})
	fifo.Network = env.FIFO
	cfgs = map[string]env.Config{"mixed": mixed, "twice-crash": twice, "fifo": fifo}
	return []string{"mixed", "twice-crash", "fifo"}, cfgs
}

// withoutAbsorbedView is View(w) less every copy in flight that its live
// receiver absorbs, computed from World.InFlight and the nodes' Absorbs
// (not from the environment's own δ). It also reports whether some
// absorbed copy has a copy its receiver does not absorb before it in the
// receiver's inbox (InFlight order), and whether one has such a copy
// after it.
func withoutAbsorbedView(w *env.World) (v envtest.WorldView, before, after bool) {
	v = envtest.View(w)
	seenKept := make([]bool, w.N())
	seenAbsorbed := make([]bool, w.N())
	for p := range v.Procs {
		v.Procs[p].Inbox = nil
	}
	for _, e := range w.InFlight() {
		ab, ok := w.Node(e.To).(env.Absorber)
		if ok && !w.Crashed(e.To) && ab.Absorbs(e.From, e.Msg) {
			before = before || seenKept[e.To]
			seenAbsorbed[e.To] = true
			continue
		}
		after = after || seenAbsorbed[e.To]
		seenKept[e.To] = true
		v.Procs[e.To].Inbox = append(v.Procs[e.To].Inbox, envtest.Copy{From: int(e.From), Msg: e.Msg.AppendBinary(nil)})
	}
	return v, before, after
}

// TestDropAbsorbedKeepsOtherEntries: on the sink toys, where p0's inbox
// holds absorbed PINGs among DATA it does not absorb, before and after
// them, Model.WithoutAbsorbed removes exactly the absorbed copies (every
// other copy kept, in order), the search that drops absorbed messages
// reaches exactly the plain worlds less their absorbed copies (both
// compared through the worlds' exported views, against the test's own
// removal), and envtest.CompareDrop holds with and without persistent
// sets, p0 counting every DATA at quiescence. The plain worlds must hold
// an absorbed copy with a kept one before it and one with a kept one after
// it.
func TestDropAbsorbedKeepsOtherEntries(t *testing.T) {
	names, cfgs := sinkToys()
	for _, name := range names {
		c := cfgs[name]
		plain, err := env.New(c)
		if err != nil {
			t.Fatal(err)
		}
		c.DropAbsorbed = true
		drop, err := env.New(c)
		if err != nil {
			t.Fatal(err)
		}
		images := map[string]bool{}
		var before, after bool
		_, err = envtest.Explore(plain, 100_000, func(w *env.World) error {
			want, b, a := withoutAbsorbedView(w)
			before, after = before || b, after || a
			img, err := plain.WithoutAbsorbed(w)
			if err != nil {
				return err
			}
			if got := envtest.View(img); !reflect.DeepEqual(got, want) {
				return fmt.Errorf("WithoutAbsorbed of a world with in flight %v: %v, want %v", w.InFlight(), img.InFlight(), inboxes(want))
			}
			images[fmt.Sprintf("%+v", want)] = true
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !before || !after {
			t.Fatalf("%s: an absorbed copy with a kept one before it: %v, after it: %v (the test would be vacuous)", name, before, after)
		}
		reached := map[string]bool{}
		_, err = envtest.Explore(drop, 100_000, func(w *env.World) error {
			k := fmt.Sprintf("%+v", envtest.View(w))
			if !images[k] {
				return fmt.Errorf("the dropping search reaches a world with in flight %v, no plain world's image", w.InFlight())
			}
			reached[k] = true
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(reached) != len(images) {
			t.Fatalf("%s: the dropping search reaches %d of the %d images of the plain worlds", name, len(reached), len(images))
		}
		for _, por := range []bool{false, true} {
			rep, err := envtest.CompareDrop(plain, drop, 100_000, por)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rep.Violated != "" || rep.DropStates >= rep.States {
				t.Fatalf("%s, por %v: violated {%s}, states %d → %d", name, por, rep.Violated, rep.States, rep.DropStates)
			}
			t.Logf("%-12s por=%-5v states %4d → %4d, images %d, quiescent %d", name, por, rep.States, rep.DropStates, len(images), rep.Quiescent)
		}
	}
}

// inboxes lists the copies in flight of a view, by receiver.
func inboxes(v envtest.WorldView) map[int][]envtest.Copy {
	out := map[int][]envtest.Copy{}
	for p, pv := range v.Procs {
		if len(pv.Inbox) > 0 {
			out[p] = pv.Inbox
		}
	}
	return out
}
