package env

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"math/bits"
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

// Permutation renames the worlds of one model by one permutation (see
// Model.NewPermutation). It remembers the renamed encoding of each node
// state and message it met (bounded memos, as the Model's own: a
// forgotten one is only computed again), so that a symmetric search,
// which renames every world it reaches by every permutation of its
// group, renames each distinct node state and message about once. Safe
// for concurrent use.
type Permutation struct {
	m         *Model
	perm, inv []core.Rank
	nodes     memo[permNode]
	msgs      memo[permMsg]
	procs     memo[permProc]
	seed      maphash.Seed // of the message memo's hashes
	identity  bool         // perm is the identity
}

// permNode is the renamed encoding of the interned node state id.
type permNode struct {
	id uint64
	ns nodeState // ns.enc: the renamed node's AppendBinary
}

// permProc is the renamed part of the encoding (appendProc's bytes) of
// the process at rank whose part, in schedule alternative alt, is key.
type permProc struct {
	rank     core.Rank
	alt      int
	key, out []byte
	fp       uint64 // core.Fingerprint(out): procFP of the renamed proc
}

// permMsg is the renamed encoding of the message encoded as key.
type permMsg struct{ key, out string }

// The sizes of a Permutation's memos: 2^bits entries at most.
const (
	permNodeBits = 14
	permMsgBits  = 14
	permProcBits = 15
)

// NewPermutation returns the renaming of m's worlds by perm, which must
// pass CheckPermutation (its error otherwise).
func (m *Model) NewPermutation(perm []core.Rank) (*Permutation, error) {
	if err := m.CheckPermutation(perm); err != nil {
		return nil, err
	}
	p := &Permutation{m: m, perm: slices.Clone(perm), inv: make([]core.Rank, len(perm)), seed: maphash.MakeSeed()}
	p.identity = true
	for r, q := range perm {
		p.inv[q] = core.Rank(r)
		p.identity = p.identity && q == core.Rank(r)
	}
	p.nodes.bits, p.msgs.bits, p.procs.bits = permNodeBits, permMsgBits, permProcBits
	return p, nil
}

// AppendWorld appends Encode of the world w (of the Permutation's model)
// with its ranks renamed. It builds no World: the key of a symmetry class
// is the least of these encodings over the group. It fails when a node
// or a message in flight does not implement its hook (PermutableMachine,
// PermutableMessage). O(size of the state), the hooks for node states and
// messages not met before, and one sort per inbox.
func (p *Permutation) AppendWorld(b []byte, w *World) ([]byte, error) {
	m, n := p.m, p.m.cfg.N
	b = core.AppendUint(b, uint64(n))
	b = permuteSet(w.crashed, p.perm).AppendBinary(b)
	b = core.AppendUint(b, uint64(w.clock))
	if m.faulty() {
		hdr := World{faults: w.faults}
		if w.faults.inc != nil {
			hdr.faults.inc = make([]int32, n)
			for r, c := range w.faults.inc {
				hdr.faults.inc[p.perm[r]] = c
			}
		}
		b = m.appendFaults(b, &hdr) // faults.go
	}
	for j := range n {
		pp, err := p.part(w, j)
		if err != nil {
			return b, err
		}
		b = append(b, pp.out...)
	}
	return b, nil
}

// HeaderFingerprint is the hash of what Encode writes of the world w
// renamed before the processes' parts (N, the crashed set, the clock, the
// budgets spent), mixed as Fingerprint mixes it.
func (p *Permutation) HeaderFingerprint(w *World) uint64 {
	m, n := p.m, p.m.cfg.N
	h := uint64(fpSeed)
	h = fpMix(h, uint64(n))
	h = fpMix(h, uint64(w.clock))
	h = fpMix(h, uint64(w.ncrash))
	if m.faulty() {
		hdr := World{faults: w.faults}
		if w.faults.inc != nil {
			hdr.faults.inc = make([]int32, n)
			for r, c := range w.faults.inc {
				hdr.faults.inc[p.perm[r]] = c
			}
		}
		h = m.mixFaults(h, &hdr)
	}
	permuteSet(w.crashed, p.perm).Each(func(r core.Rank) { h = fpMix(h, uint64(r)) })
	return h
}

// PartFingerprint is the fingerprint of rank j's part of the encoding of
// the world w renamed (the part of the process at perm⁻¹[j], renamed): a
// hash of the bytes appendProc writes for it.
func (p *Permutation) PartFingerprint(w *World, j core.Rank) (uint64, error) {
	if p.identity { // the part as it is: the fingerprint the proc keeps
		pr := w.proc(j)
		if pr.edit == 0 { // an initial proc
			return p.m.procFP(pr, w.alt, int(j)), nil
		}
		return pr.fp, nil
	}
	pp, err := p.part(w, int(j))
	if err != nil {
		return 0, err
	}
	return pp.fp, nil
}

// Fingerprint is Model.Fingerprint of the world w renamed (the hash of
// AppendWorld's bytes that Model.Fingerprint computes from per-process
// fingerprints), without building those bytes beyond the processes' parts
// not met before. A symmetric search may key a world by the least of these
// over its group: a function of the class, which distinct classes share
// with probability about 2⁻⁶⁴ per pair, as the plain visited set's
// fingerprints.
func (p *Permutation) Fingerprint(w *World) (uint64, error) {
	h := p.HeaderFingerprint(w)
	for j := range p.m.cfg.N {
		pp, err := p.part(w, j)
		if err != nil {
			return 0, err
		}
		h = fpMix(h, pp.fp)
	}
	hi, lo := bits.Mul64(h, fpFinal)
	return hi ^ lo, nil
}

// part returns the renamed part of rank j of w renamed: the part of the
// process at inv[j], renamed. A process's part is a function of its rank,
// the schedule alternative and its own part (Decode reads a world from
// these bytes alone), so the renamed part of a part met before is taken
// from the memo.
func (p *Permutation) part(w *World, j int) (*permProc, error) {
	m := p.m
	r := p.inv[j]
	pr := w.proc(r)
	key := pr.enc
	if key == nil { // an initial proc keeps no bytes
		key = appendProc(nil, pr, m.schedEnc[w.alt][r], m.cfg.Timing)
	}
	h := fpMix(fpMix(core.Fingerprint(key), uint64(r)), uint64(w.alt))
	if pr.enc != nil {
		h = fpMix(fpMix(pr.fp, uint64(r)), uint64(w.alt))
	}
	if pp := p.procs.get(h, func(pp *permProc) bool {
		return pp.rank == r && pp.alt == w.alt && bytes.Equal(pp.key, key)
	}); pp != nil {
		return pp, nil
	}
	var q proc
	var inbox []entry
	if err := p.proc(&q, pr, &inbox); err != nil {
		return nil, err
	}
	out := appendProc(nil, &q, m.schedEnc[w.alt][j], m.cfg.Timing)
	pp := &permProc{rank: r, alt: w.alt, key: key, out: out, fp: core.Fingerprint(out)}
	p.procs.put(h, pp)
	return pp, nil
}

// proc sets *q to a copy of pr renamed: its node (the protocol's hook),
// its inbox (senders and messages renamed, in canonical order again, in
// *room) and its detections. The copy is for appendProc only: its
// aggregates, fingerprint and cached bytes are not set.
func (p *Permutation) proc(q *proc, pr *proc, room *[]entry) error {
	*q = proc{
		live: pr.live, awaiting: pr.awaiting, made: pr.made,
		detected: permuteSet(pr.detected, p.perm), ndet: pr.ndet,
		hist: pr.hist, timers: pr.timers, next: pr.next, due: pr.due,
	}
	if err := p.node(q, pr); err != nil {
		return err
	}
	if len(pr.inbox) == 0 {
		return nil
	}
	in := (*room)[:0]
	for _, e := range pr.inbox {
		key, err := p.msg(e)
		if err != nil {
			return err
		}
		in = append(in, entry{from: p.perm[e.from], n: e.n, key: key, d: e.d})
	}
	if p.m.cfg.Network == FIFO { // each sender's queue keeps its order
		slices.SortStableFunc(in, func(a, b entry) int { return cmp.Compare(a.from, b.from) })
	} else { // insertMsg's order: sender, bytes, deadline offset
		slices.SortFunc(in, func(a, b entry) int {
			if c := cmp.Compare(a.from, b.from); c != 0 {
				return c
			}
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.d, b.d)
		})
	}
	q.inbox, *room = in, in
	return nil
}

// node sets q's node state to pr's renamed: from the memo when pr's state
// is interned and was renamed before, else through the hook.
func (p *Permutation) node(q *proc, pr *proc) error {
	if pr.ns != nil {
		h := fpMix(pr.ns.id, 0x9e3779b97f4a7c15)
		if pn := p.nodes.get(h, func(pn *permNode) bool { return pn.id == pr.ns.id }); pn != nil {
			q.ns = &pn.ns
			return nil
		}
		renamed, err := p.renameNode(pr.node)
		if err != nil {
			return err
		}
		pn := &permNode{id: pr.ns.id, ns: nodeState{node: renamed, enc: renamed.AppendBinary(nil)}}
		p.nodes.put(h, pn)
		q.ns = &pn.ns
		return nil
	}
	renamed, err := p.renameNode(pr.node)
	q.node = renamed
	return err
}

func (p *Permutation) renameNode(n core.Machine) (core.Machine, error) {
	pm, ok := n.(PermutableMachine)
	if !ok {
		return nil, fmt.Errorf("env: %s: the node %T does not implement env.PermutableMachine", p.m.name, n)
	}
	return pm.Permute(p.perm), nil
}

// msg returns the encoding of e's message renamed.
func (p *Permutation) msg(e entry) (string, error) {
	h := maphash.String(p.seed, e.key)
	if pm := p.msgs.get(h, func(pm *permMsg) bool { return pm.key == e.key }); pm != nil {
		return pm.out, nil
	}
	hook, ok := e.msg.(PermutableMessage)
	if !ok {
		return "", fmt.Errorf("env: %s: the message %T does not implement env.PermutableMessage", p.m.name, e.msg)
	}
	out := string(hook.Permute(p.perm).AppendBinary(nil))
	p.msgs.put(h, &permMsg{key: e.key, out: out})
	return out, nil
}

// Permute returns the world w with its ranks renamed by perm (see
// Permutation.AppendWorld), decoded from its encoding: like Decode's worlds it is
// at Depth 0 with no last step, and it needs the model's Codec. The error
// is CheckPermutation's, a missing hook's or Decode's.
func (m *Model) Permute(w *World, perm []core.Rank) (*World, error) {
	p, err := m.NewPermutation(perm)
	if err != nil {
		return nil, err
	}
	b, err := p.AppendWorld(nil, w)
	if err != nil {
		return nil, err
	}
	return m.Decode(b)
}
