package ringfd

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// rotateEvent is ev with every rank rotated by k.
func rotateEvent(c *Config, ev core.Event, k int) core.Event {
	switch ev.Kind {
	case core.EvReceive:
		return core.Receive(c.RotateRank(ev.From, k), c.RotateMessage(ev.Msg, k))
	case core.EvSuspect:
		return core.Suspect(c.RotateRank(ev.Peer, k))
	}
	return ev
}

// effectStrings renders effects with their ranks rotated by k, to compare.
func effectStrings(c *Config, effs []core.Effect, k int) []string {
	var out []string
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			out = append(out, fmt.Sprintf("send %v %v", c.RotateRank(e.To, k), c.RotateMessage(e.Msg, k)))
		case core.EffSuspect:
			out = append(out, fmt.Sprintf("suspect %v", c.RotateRank(e.Peer, k)))
		default:
			out = append(out, e.String())
		}
	}
	return out
}

// TestRotationIsSymmetry: for every state met by random event sequences,
// every rotation k and every event, stepping the rotated state with the
// rotated event gives the rotated successor and the rotated effects (or
// the same refusal): the machines read daemon ids only through differences
// mod N, with the identity ring, both BMGs and every mutant. Rotating by k
// then by −k is the identity. A non-identity ring is not rotation
// invariant.
func TestRotationIsSymmetry(t *testing.T) {
	cfgs := []Config{
		{N: 5, Procs: 2},
		{N: 6, Procs: 1, BMG: BMGOMPI, NoSkip: true},
		{N: 4, Procs: 1, Trust: Freshness, Period: 2, Timeout: 3},
		{N: 8, Procs: 0, LiteralLoop: true, SeqWindow: 6},
	}
	for _, m := range Mutants {
		cfgs = append(cfgs, Config{N: 6, Procs: 1, Mutant: mutant.Name(m)})
	}
	for ci, cfg := range cfgs {
		c, err := Normalize(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !c.RotationInvariant() {
			t.Fatalf("config %d: identity ring not rotation invariant", ci)
		}
		var hosted core.Rank = core.NoRank
		if c.Procs > 0 {
			hosted = c.ProcRank(2, 0)
		}
		var ids core.RankSet
		ids.Add(1)
		ids.Add(core.Rank(c.Ranks() - 1))
		events := []core.Event{core.Call(Start{}), core.Timer(TimerHeartbeat), core.Timer(TimerObserve),
			core.Receive(1, HB{Seq: 2}), core.Receive(c.RotateRank(2, -1), HB{Seq: 3}), core.Receive(3, HBRequest{}),
			core.Receive(0, Fault{IDs: ids}), core.Receive(4, Fault{IDs: ids})}
		if hosted != core.NoRank {
			events = append(events, core.Suspect(hosted))
		}
		checked := 0
		for rank, states := range randomStates(t, cfg, 400, uint64(ci)+1) {
			for _, s := range states {
				for k := range c.N {
					for _, ev := range events {
						a := s.Clone()
						effA, errA := a.Step(ev, nil)
						b := rotated(s, k)
						effB, errB := b.Step(rotateEvent(&c, ev, k), nil)
						if (errA == nil) != (errB == nil) {
							t.Fatalf("config %d rank %v k=%d %v: errors %v vs %v", ci, rank, k, ev, errA, errB)
						}
						if errA != nil {
							continue
						}
						checked++
						if !bytes.Equal(rotated(a, k).AppendBinary(nil), b.AppendBinary(nil)) {
							t.Fatalf("config %d %v k=%d %v: rotated successor %v, want %v", ci, s, k, ev, b, rotated(a, k))
						}
						if d := cmp.Diff(effectStrings(&c, effA, k), effectStrings(&c, effB, 0)); d != "" {
							t.Fatalf("config %d %v k=%d %v: effects (-rotated +from rotated):\n%s", ci, s, k, ev, d)
						}
					}
					if !bytes.Equal(appendRotated(s, k), rotated(s, k).AppendBinary(nil)) {
						t.Fatalf("AppendRotated(%v, %d) differs from the rotated state's encoding", s, k)
					}
					for _, ev := range events {
						if ev.Kind == core.EvReceive {
							want := c.RotateMessage(ev.Msg, k).AppendBinary(nil)
							if got := c.AppendRotatedMessage(nil, ev.Msg, k); !bytes.Equal(got, want) {
								t.Fatalf("AppendRotatedMessage(%v, %d) = %x, want %x", ev.Msg, k, got, want)
							}
						}
					}
					back := rotated(rotated(s, k), -k)
					if !bytes.Equal(back.AppendBinary(nil), s.AppendBinary(nil)) {
						t.Fatalf("rotating %v by %d and back gives %v", s, k, back)
					}
				}
			}
		}
		if checked == 0 {
			t.Fatalf("config %d: no event checked", ci)
		}
	}
	c, _ := Normalize(Config{N: 3, Ring: []core.Rank{0, 2, 1}})
	if c.RotationInvariant() {
		t.Errorf("ring 0,2,1 reported rotation invariant")
	}
}

func rotated(m core.Machine, k int) core.Machine {
	switch n := m.(type) {
	case *Daemon:
		return n.Rotated(k)
	case *Process:
		return n.Rotated(k)
	}
	panic("unknown machine")
}

func appendRotated(m core.Machine, k int) []byte {
	switch n := m.(type) {
	case *Daemon:
		return n.AppendRotated(nil, k)
	case *Process:
		return n.AppendRotated(nil, k)
	}
	panic("unknown machine")
}
