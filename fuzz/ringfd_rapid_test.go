package fuzz

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// ringfdWorld is an asynchronous run of every ringfd machine of one job:
// messages in flight as a multiset, armed timers that may fire at any
// time, crash-stop of daemons (with their processes) and of processes (the
// host's local detector reports it at once).
type ringfdWorld struct {
	cfg       ringfd.Config
	ms        []core.Machine
	dead      []bool
	started   []bool
	armed     map[[2]int]bool // (daemon, timer id)
	flight    []ringfdMsg
	suspected core.RankSet // every rank some daemon suspected, with a daemon's processes
	prev      []core.RankSet
}

type ringfdMsg struct {
	from, to core.Rank
	m        core.Message
}

func reportedOf(m core.Machine) core.RankSet {
	switch n := m.(type) {
	case *ringfd.Daemon:
		return n.Reported()
	case *ringfd.Process:
		return n.Reported()
	}
	return core.RankSet{}
}

// step applies ev to r, checks the step and carries out its effects.
func (w *ringfdWorld) step(rt *rapid.T, r core.Rank, ev core.Event) {
	m := w.ms[r]
	before := reportedOf(m)
	effs, err := m.Step(ev, nil)
	if err != nil {
		rt.Fatalf("%v: %v: %v", r, ev, err)
	}
	forwarded := false
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			if f, ok := e.Msg.(ringfd.Fault); ok {
				if f.IDs.Empty() {
					rt.Fatalf("%v sent an empty FAULT", r)
				}
				forwarded = true
			}
			w.flight = append(w.flight, ringfdMsg{r, e.To, e.Msg})
		case core.EffSetTimer:
			w.armed[[2]int{int(r), int(e.Timer)}] = true
		case core.EffSuspect:
			w.suspected.Add(e.Peer)
			if w.cfg.IsDaemon(e.Peer) {
				w.suspected = w.suspected.Union(w.cfg.Hosted(e.Peer))
			}
		}
	}
	if f, ok := ev.Msg.(ringfd.Fault); ok && forwarded && f.IDs.SubsetOf(before) {
		rt.Fatalf("%v forwarded %v though it knew every id (Reported %v)", r, f, before)
	}
}

// check is the invariant after every action: states round-trip through
// their encoding, Reported only grows and holds only suspected ranks, a
// daemon never observes itself.
func (w *ringfdWorld) check(rt *rapid.T) {
	for r, m := range w.ms {
		b := m.AppendBinary(nil)
		d, err := ringfd.DecodeNode(b, core.Rank(r), w.cfg)
		if err != nil || !bytes.Equal(d.AppendBinary(nil), b) {
			rt.Fatalf("%v: encoding does not round-trip: %v", core.Rank(r), err)
		}
		rep := reportedOf(m)
		if !w.prev[r].SubsetOf(rep) {
			rt.Fatalf("%v: Reported shrank from %v to %v", core.Rank(r), w.prev[r], rep)
		}
		if !rep.SubsetOf(w.suspected) {
			rt.Fatalf("%v: Reported %v holds ranks nobody suspected (%v)", core.Rank(r), rep, w.suspected)
		}
		w.prev[r] = rep
		if n, ok := m.(*ringfd.Daemon); ok && (n.Pred() == core.Rank(r) || n.Obs() == core.Rank(r)) {
			rt.Fatalf("%v observes itself: %v", core.Rank(r), n)
		}
	}
}

// TestRingfdRapid is a rapid state-machine test of the ringfd machines in
// an asynchronous world (any timer may fire before any message, so
// suspicions may be false): rapid draws a configuration, then actions
// start, deliver, fire and crash. Every step must be accepted, and the
// invariant (check) holds after each.
func TestRingfdRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg := ringfdFuzzConfig(byte(rapid.IntRange(1, 5).Draw(rt, "N-1")), byte(rapid.IntRange(0, 127).Draw(rt, "opts")))
		ms, err := ringfd.NewAll(cfg)
		if err != nil {
			rt.Fatal(err)
		}
		w := &ringfdWorld{cfg: cfg, ms: ms, dead: make([]bool, len(ms)), started: make([]bool, cfg.N),
			armed: map[[2]int]bool{}, prev: make([]core.RankSet, len(ms))}
		crashes := 0
		rt.Repeat(map[string]func(*rapid.T){
			"": func(rt *rapid.T) { w.check(rt) },
			"start": func(rt *rapid.T) {
				d := rapid.IntRange(0, cfg.N-1).Draw(rt, "daemon")
				if w.started[d] || w.dead[d] {
					rt.Skip("started or dead")
				}
				w.started[d] = true
				w.step(rt, core.Rank(d), core.Call(ringfd.Start{}))
			},
			"deliver": func(rt *rapid.T) {
				if len(w.flight) == 0 {
					rt.Skip("nothing in flight")
				}
				i := rapid.IntRange(0, len(w.flight)-1).Draw(rt, "msg")
				msg := w.flight[i]
				w.flight = append(w.flight[:i], w.flight[i+1:]...)
				if !w.dead[msg.to] {
					w.step(rt, msg.to, core.Receive(msg.from, msg.m))
				}
			},
			"fire": func(rt *rapid.T) {
				d := rapid.IntRange(0, cfg.N-1).Draw(rt, "daemon")
				id := rapid.IntRange(1, 2).Draw(rt, "timer")
				k := [2]int{d, id}
				if !w.armed[k] || w.dead[d] {
					rt.Skip("not armed")
				}
				delete(w.armed, k)
				w.step(rt, core.Rank(d), core.Timer(uint64(id)))
			},
			"crash": func(rt *rapid.T) {
				r := rapid.IntRange(0, len(ms)-1).Draw(rt, "rank")
				if w.dead[r] || crashes >= 3 {
					rt.Skip("dead or budget spent")
				}
				crashes++
				w.dead[r] = true
				if cfg.IsDaemon(core.Rank(r)) {
					cfg.Hosted(core.Rank(r)).Each(func(p core.Rank) { w.dead[p] = true })
					return
				}
				if h := cfg.Host(core.Rank(r)); !w.dead[h] {
					w.step(rt, h, core.Suspect(core.Rank(r)))
				}
			},
		})
	})
}
