package env

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Rank permutations of a World, for models whose processes are
// interchangeable (a checker.Symmetric or checker.CanonicalEncoder built
// on env). A permutation perm renames rank r to perm[r]: the process at r
// moves to perm[r] with everything the world keeps of it, and every rank
// anything names is renamed alike. The environment renames what it owns
// (the crashed set, each inbox's senders, each process's detections, the
// restarts per rank); the protocol renames what it owns through two hooks:
// its node states implement PermutableMachine and its messages
// PermutableMessage. Kept as they are: call schedules (a permutation must
// map each process to one with the same schedule: CheckPermutation), the
// values of History records, timer ids, and the clock and the budgets
// spent, which name no rank.

// PermutableMachine is a node whose state can be renamed: Permute returns
// the state the node would have as process perm[self] of a group whose
// ranks are all renamed by perm (every rank and rank-indexed collection it
// holds rewritten), a new node sharing nothing mutable with n. perm has
// length N and is a bijection of 0 … N−1.
type PermutableMachine interface {
	core.Machine
	Permute(perm []core.Rank) core.Machine
}

// PermutableMessage is a message whose contents can be renamed: Permute
// returns the message with every rank it names renamed by perm.
type PermutableMessage interface {
	core.Message
	Permute(perm []core.Rank) core.Message
}

// CheckPermutation reports whether perm is a permutation the model can
// apply to its worlds: a bijection of 0 … N−1 that maps every process to
// one with the same call schedule (in every schedule alternative), the
// Fail ranks onto themselves and the Survivors onto themselves, under a
// configuration with no crash groups (Config.Hosts) and no local detector.
// It does not check Config.MaySend (a function): a model that sets it
// must make it invariant itself. The error wraps ErrConfig.
func (m *Model) CheckPermutation(perm []core.Rank) error {
	n := m.cfg.N
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%w: permutation %v: %s", ErrConfig, perm, fmt.Sprintf(f, a...))
	}
	if len(perm) != n {
		return bad("length %d, want N = %d", len(perm), n)
	}
	var seen core.RankSet
	for _, r := range perm {
		if !r.Valid(n) || seen.Has(r) {
			return bad("not a bijection of 0 … %d", n-1)
		}
		seen.Add(r)
	}
	switch {
	case m.pl.host != nil:
		return bad("crash groups (Config.Hosts) are not renamed")
	case m.cfg.Detector == DetectorLocal:
		return bad("the local detector follows the crash groups")
	case !permuteSet(m.fail, perm).Equal(m.fail):
		return bad("the Fail ranks %v are not mapped onto themselves", m.fail)
	case !permuteSet(m.survive, perm).Equal(m.survive):
		return bad("the Survivors %v are not mapped onto themselves", m.survive)
	}
	for k, alt := range m.schedEnc {
		for r, s := range alt {
			if string(s) != string(alt[perm[r]]) {
				return bad("schedule alternative %d: %v and %v have different calls", k, core.Rank(r), perm[r])
			}
		}
	}
	return nil
}

// permuteSet returns {perm[r] : r ∈ s}.
func permuteSet(s core.RankSet, perm []core.Rank) core.RankSet {
	var out core.RankSet
	s.Each(func(r core.Rank) { out.Add(perm[r]) })
	return out
}

// AppendPermuted appends Encode of the world w with its ranks renamed by
// perm, which must pass CheckPermutation (unchecked here, for speed; a
// perm of the wrong length panics). It builds no World: the key of a
// symmetry class is the least of these encodings over the group. It fails
// when a node or a message in flight does not implement its hook
// (PermutableMachine, PermutableMessage). O(size of the state) plus the
// hooks, and one sort per inbox.
func (m *Model) AppendPermuted(b []byte, w *World, perm []core.Rank) ([]byte, error) {
	n := m.cfg.N
	inv := make([]core.Rank, n)
	for r, q := range perm {
		inv[q] = core.Rank(r)
	}
	b = core.AppendUint(b, uint64(n))
	b = permuteSet(w.crashed, perm).AppendBinary(b)
	b = core.AppendUint(b, uint64(w.clock))
	if m.faulty() {
		hdr := World{faults: w.faults}
		if w.faults.inc != nil {
			hdr.faults.inc = make([]int32, n)
			for r, c := range w.faults.inc {
				hdr.faults.inc[perm[r]] = c
			}
		}
		b = m.appendFaults(b, &hdr) // faults.go
	}
	for j := range n {
		q, err := m.permuteProc(w.proc(inv[j]), perm)
		if err != nil {
			return b, err
		}
		b = appendProc(b, q, m.schedEnc[w.alt][j], m.cfg.Timing)
	}
	return b, nil
}

// permuteProc returns a copy of p renamed by perm: its node (the
// protocol's hook), its inbox (senders and messages renamed, in canonical
// order again) and its detections. The copy is for appendProc only: its
// aggregates, fingerprint and cached bytes are not set.
func (m *Model) permuteProc(p *proc, perm []core.Rank) (*proc, error) {
	pm, ok := p.node.(PermutableMachine)
	if !ok {
		return nil, fmt.Errorf("env: %s: the node %T does not implement env.PermutableMachine", m.name, p.node)
	}
	q := &proc{
		node: pm.Permute(perm), live: p.live, awaiting: p.awaiting, made: p.made,
		detected: permuteSet(p.detected, perm), ndet: p.ndet,
		hist: p.hist, timers: p.timers, next: p.next, due: p.due,
	}
	if len(p.inbox) > 0 {
		q.inbox = make([]entry, len(p.inbox))
		for i, e := range p.inbox {
			pmsg, ok := e.msg.(PermutableMessage)
			if !ok {
				return nil, fmt.Errorf("env: %s: the message %T does not implement env.PermutableMessage", m.name, e.msg)
			}
			msg := pmsg.Permute(perm)
			q.inbox[i] = entry{from: perm[e.from], n: e.n, key: string(msg.AppendBinary(nil)), msg: msg, d: e.d}
		}
		if m.cfg.Network == FIFO { // each sender's queue keeps its order
			slices.SortStableFunc(q.inbox, func(a, b entry) int { return cmp.Compare(a.from, b.from) })
		} else { // insertMsg's order: sender, bytes, deadline offset
			slices.SortFunc(q.inbox, func(a, b entry) int {
				if c := cmp.Compare(a.from, b.from); c != 0 {
					return c
				}
				if c := strings.Compare(a.key, b.key); c != 0 {
					return c
				}
				return cmp.Compare(a.d, b.d)
			})
		}
	}
	return q, nil
}

// Permute returns the world w with its ranks renamed by perm (see
// AppendPermuted), decoded from its encoding: like Decode's worlds it is
// at Depth 0 with no last step, and it needs the model's Codec. The error
// is CheckPermutation's, a missing hook's or Decode's.
func (m *Model) Permute(w *World, perm []core.Rank) (*World, error) {
	if err := m.CheckPermutation(perm); err != nil {
		return nil, err
	}
	b, err := m.AppendPermuted(nil, w, perm)
	if err != nil {
		return nil, err
	}
	return m.Decode(b)
}
