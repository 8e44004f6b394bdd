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
// The receiver must not crash and the message must not be lost because
// condition 1b of checker.Persistent asks that T's progress action stay
// enabled along every path that avoids T. No toy can show these two
// conditions needed: a crash of the receiver (a Lose of the message)
// removes the message, and delivering it first would have changed nothing,
// so the worlds reached agree either way; they are kept for the contract.
func (m *Model) absorbed(s *World, enabled []checker.Action, crash []bool) (checker.Action, bool) {
	for _, a := range enabled {
		if a.Kind != Deliver || crash[a.P] {
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
