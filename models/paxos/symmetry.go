package paxos

import (
	"encoding/binary"
	"fmt"

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
	perms []*env.Permutation // every acceptor permutation but the identity
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
// and rename the acceptors among themselves, the identity excepted
// (A! − 1 of them), in lexicographic order.
func acceptorPerms(p Params) [][]core.Rank {
	var out [][]core.Rank
	acc := make([]core.Rank, p.Acceptors)
	used := make([]bool, p.Acceptors)
	var gen func(i int)
	gen = func(i int) {
		if i == p.Acceptors {
			perm := make([]core.Rank, p.N())
			identity := true
			for r := range p.Proposers {
				perm[r] = core.Rank(r)
			}
			for k, a := range acc {
				perm[p.Proposers+k] = a
				identity = identity && a == core.Rank(p.Proposers+k)
			}
			if !identity {
				out = append(out, perm)
			}
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

// EncodeCanonical appends the key of w's class: the least of the
// fingerprints (env.Model.Fingerprint) of w renamed by each acceptor
// permutation, the identity's being w's own, as 8 bytes. The renamed
// fingerprints are computed from per-process parts (env.Permutation), not
// from the renamed worlds' whole encodings. The key is a function of the
// class (the renamings form a group); two classes share it with
// probability about 2⁻⁶⁴, as two worlds share a fingerprint in the plain
// visited set. It is therefore not the canonical representative's
// encoding (checker.CanonicalEncoder's wording) but a fingerprint of it,
// which is all the visited set keeps.
func (m *SymModel) EncodeCanonical(b []byte, w *env.World) []byte {
	best := m.Fingerprint(w)
	for _, ren := range m.perms {
		fp, err := ren.Fingerprint(w)
		if err != nil {
			panic(err) // unreachable: every node and message type has its hook (the assertions above)
		}
		best = min(best, fp)
	}
	return binary.LittleEndian.AppendUint64(b, best)
}
