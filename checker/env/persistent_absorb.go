package env

import (
	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Absorber is an optional interface of a node (core.Machine) for
// partial-order reduction in depth-first search (Persistent). Absorbs
// reports whether receiving msg from process from is a no-op for the node:
// the step succeeds, emits no effect, and leaves the node's state (its
// canonical encoding, AppendBinary) unchanged; and this holds not only in
// the node's current state but in every state its later steps (on any
// events) may reach. It must be deterministic; false is always safe.
//
// A model whose nodes implement it also promises that every transition
// property it selects holds on such a step whatever the world (a step
// with no effect that changes no node: the properties of props read the
// effects, so they all do).
type Absorber interface {
	Absorbs(from core.Rank, msg core.Message) bool
}

// absorbed returns the first action of enabled that is an absorbed
// delivery Persistent may take alone (see Persistent's "Absorbed
// deliveries"), or false.
//
// The receiver may crash: its crash disables the
// delivery, but condition 1b of checker.Persistent allows an action of the
// path to disable T's progress action when it absorbs it, and a crash
// absorbs an absorbed delivery at its process: the crash empties the
// inbox, so taking the delivery first (a step that changes no node and
// emits nothing) and then the crash ends in the world the crash alone
// reaches, the crash's own step the same (it reads the node, which the
// delivery left as it was, not the inbox). The message must not be lost
// (LossOnCrash: its sender is live and cannot crash): a Lose at a live
// receiver is not such an action under the contract as written, and no
// measurement asked for it. Test variant persistAbsorbNoCrash keeps the
// rule of before (the receiver must not crash).
func (m *Model) absorbed(s *World, enabled []checker.Action, crash []bool) (checker.Action, bool) {
	for _, a := range enabled {
		if a.Kind != Deliver || crash[a.P] && persistMutant == persistAbsorbNoCrash {
			continue
		}
		q := core.Rank(a.Q)
		if m.cfg.Loss == LossOnCrash && (s.crashed.Has(q) || crash[q]) {
			continue
		}
		if m.timed() && !m.dueNow(s, a) {
			continue
		}
		pr := s.proc(core.Rank(a.P))
		ab, ok := pr.node.(Absorber)
		if !ok {
			continue
		}
		i, found := findEntry(pr.inbox, m.cfg.Network, q, a.I)
		if found && (ab.Absorbs(q, pr.inbox[i].msg) || persistMutant == mutAbsorbAny) {
			return a, true
		}
	}
	return checker.Action{}, false
}

// MayCrash reports whether live process p may crash in some step from w: a
// Fail rank, or, while the crash budget lasts (and, with
// Config.CrashBeforeWakeup, before the first Clock), a rank that is not a
// Survivor (with Config.Hosts, any live rank while a crash is possible: a
// hosted survivor dies with its host). False for a crashed process. A
// MaySend relation that leaves out absorbed messages (Config.MaySend)
// reads it.
func (w *World) MayCrash(p core.Rank) bool {
	m := w.m
	if !p.Valid(m.cfg.N) || !w.proc(p).live {
		return false
	}
	if m.fail.Has(p) {
		return true
	}
	if !m.budget(w) {
		return false
	}
	return m.pl.host != nil || !m.survive.Has(p)
}
