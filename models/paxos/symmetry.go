package paxos

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// SymModel is the check model with the symmetry of the acceptors: the A!
// renamings of ranks P … P+A−1 among themselves, every other rank fixed
// (proposers are ordered by succession and own their ballots, so they are
// not interchangeable). Each world is keyed by the least, bytewise, of
// its A! renamed encodings (env.Permutation), so with --symmetry
// the visited set holds one key per class while the frontier and the
// counterexamples keep the real worlds. It is a
// checker.CanonicalEncoder.
type SymModel struct {
	*env.Model
	perms []*env.Permutation // every acceptor permutation, the identity first
	order []core.Rank        // the ranks in the key's order: acceptors, then proposers
}

var (
	_ checker.CanonicalEncoder[*env.World] = (*SymModel)(nil)
	_ registry.EnvBacked                   = (*SymModel)(nil)
	// The hooks env needs to rename worlds.
	_ env.PermutableMachine = (*px.Node)(nil)
	_ env.PermutableMessage = px.Request{}
	_ env.PermutableMessage = px.Prepare{}
	_ env.PermutableMessage = px.Promise{}
	_ env.PermutableMessage = px.Accept{}
	_ env.PermutableMessage = px.Accepted{}
	_ env.PermutableMessage = px.Nack{}
	_ env.PermutableMessage = px.Decided{}
	_ env.PermutableMessage = px.Learned{}
)

// Env returns the wrapped environment model (registry.EnvBacked).
func (m *SymModel) Env() *env.Model { return m.Model }

// NewSymModel is NewModel with the acceptor symmetry. It refuses, with a
// one-line error, a configuration the renamings do not preserve: crashable
// ranks (--crashable) that include some acceptors and not others, or
// acceptors that also learn (--learners acceptors|all: the coordinator's
// acknowledgements are kept per learner index).
func NewSymModel(p Params) (*SymModel, error) {
	m, err := NewModel(p)
	if err != nil {
		return nil, err
	}
	cfg := p.Config()
	s := &SymModel{Model: m}
	for r := range p.N() {
		s.order = append(s.order, core.Rank((r+p.Proposers)%p.N()))
	}
	for _, perm := range acceptorPerms(p) {
		if err := cfg.CheckPermutation(perm); err != nil {
			return nil, fmt.Errorf("--symmetry needs interchangeable acceptors, and --learners %v makes them learners too", p.Learners)
		}
		ren, err := m.NewPermutation(perm)
		if err != nil {
			return nil, fmt.Errorf("--symmetry needs interchangeable acceptors: --crashable must list all of p%d…p%d or none (%v)", p.Proposers, p.N()-1, err)
		}
		s.perms = append(s.perms, ren)
	}
	return s, nil
}

// acceptorPerms lists the permutations of 0 … N−1 that fix the proposers
// and rename the acceptors among themselves, A! of them, in
// lexicographic order (the identity first).
func acceptorPerms(p Params) [][]core.Rank {
	var out [][]core.Rank
	acc := make([]core.Rank, p.Acceptors)
	used := make([]bool, p.Acceptors)
	var gen func(i int)
	gen = func(i int) {
		if i == p.Acceptors {
			perm := make([]core.Rank, p.N())
			for r := range p.Proposers {
				perm[r] = core.Rank(r)
			}
			for k, a := range acc {
				perm[p.Proposers+k] = a
			}
			out = append(out, perm)
			return
		}
		for k := range p.Acceptors {
			if !used[k] {
				used[k] = true
				acc[i] = core.Rank(p.Proposers + k)
				gen(i + 1)
				used[k] = false
			}
		}
	}
	gen(0)
	return out
}

// EncodeCanonical appends the key of w's class, 8 bytes. For each
// renaming π (the identity included) let T(π) be the tuple of
// fingerprints of π(w)'s encoding: its header, then the parts of the
// acceptors' ranks in order, then the proposers' (env.Permutation). The
// key is a hash of the least T(π), lexicographically. The renamings form
// a group, so the set of tuples, and its least, is the same for every
// world of the class: the key is a function of the class; two classes
// share it only when fingerprints collide (about 2⁻⁶⁴ per pair, as in the
// plain visited set). So it is not the canonical representative's
// encoding (checker.CanonicalEncoder's wording) but a fingerprint of a
// canonical form, which is all the visited set keeps. Comparing part by
// part drops a renaming as soon as one of its parts is greater than
// another's: the acceptors' own states usually differ, and then one
// renaming is left after them and the proposers' parts are renamed once.
func (m *SymModel) EncodeCanonical(b []byte, w *env.World) []byte {
	var aliveBuf [8]int
	alive := aliveBuf[:0]
	best := ^uint64(0)
	for k, ren := range m.perms {
		switch h := ren.HeaderFingerprint(w); {
		case h < best:
			best, alive = h, append(alive[:0], k)
		case h == best:
			alive = append(alive, k)
		}
	}
	key := fpMix(0, best)
	for _, j := range m.order {
		next := alive[:0]
		best = ^uint64(0)
		for _, k := range alive {
			fp, err := m.perms[k].PartFingerprint(w, j)
			if err != nil {
				panic(err) // unreachable: every node and message type has its hook (the assertions above)
			}
			switch {
			case fp < best:
				best, next = fp, append(next[:0], k)
			case fp == best:
				next = append(next, k)
			}
		}
		alive = next
		key = fpMix(key, best)
	}
	return binary.LittleEndian.AppendUint64(b, key)
}

// fpMix absorbs x into the hash h (a multiply-fold round).
func fpMix(h, x uint64) uint64 {
	hi, lo := bits.Mul64(h^x, 0xe7037ed1a0b428db)
	return hi ^ lo
}
