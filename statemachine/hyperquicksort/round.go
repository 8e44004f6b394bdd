package hyperquicksort

import (
	"fmt"
	"math/bits"

	"github.com/ftkernel/ftkernel/core"
)

// Round is what every process knows at the start of a sorting round
// (§4.2.2: "todos os processos possuem a lista de processos
// não-recomendados"): the number of processes N (a power of two ≥ 2),
// the cluster level S (log2 N in the first sorting round, then down to 1),
// its index Index (0 first) and the non-recommended set NonRec, the same
// at every process.
//
// The sort runs over virtual ranks 0 … N−1, each holding one list, as
// Algorithm 1 does over processes; the recommended process Player(v) plays
// virtual rank v: v itself when v is recommended, else v's substitute
// (Algorithm 3).
type Round struct {
	N, S, Index int
	NonRec      core.RankSet
}

// Dim is log2 n for a power of two n ≥ 2, else an error.
func Dim(n int) (int, error) {
	if n < 2 || n&(n-1) != 0 {
		return 0, fmt.Errorf("hyperquicksort: n = %d is not a power of two ≥ 2", n)
	}
	return bits.Len(uint(n)) - 1, nil
}

// Validate reports a round that cannot be sorted: n no power of two, S out
// of 1 … log2 N, a rank of NonRec out of range, or every process
// non-recommended (then no process plays anything).
func (r Round) Validate() error {
	dim, err := Dim(r.N)
	if err != nil {
		return err
	}
	if r.S < 1 || r.S > dim {
		return fmt.Errorf("hyperquicksort: sorting round s = %d out of 1 … %d", r.S, dim)
	}
	bad := false
	r.NonRec.Each(func(x core.Rank) { bad = bad || !x.Valid(r.N) })
	if bad {
		return fmt.Errorf("hyperquicksort: non-recommended set %v has a rank out of 0 … %d", r.NonRec, r.N-1)
	}
	if r.NonRec.Len() >= r.N {
		return fmt.Errorf("hyperquicksort: every process non-recommended; at most n − 1 = %d can be", r.N-1)
	}
	return nil
}

// Player is the recommended process that plays virtual rank v in the
// round: v when recommended, else Substitute(v) (Algorithm 3, dim read as
// log2 N). r must be valid (Validate); then a player always exists.
//
// Where Algorithm 2 finds a partner, Player(i ⊕ 2^(S−1)) is that partner
// (TestPartnerPlaysSubstitute). Where it finds none (the whole
// half-cluster c(i, S) non-recommended), the substitute of i ⊕ 2^(S−1) is
// i itself: the pair is played locally, which Algorithm 1 needs so that
// every list is exchanged (spec §3.9, case (b)).
func (r Round) Player(v core.Rank) core.Rank {
	if !r.NonRec.Has(v) {
		return v
	}
	p, _ := Substitute(v, r.N, r.NonRec)
	return p
}

// Plays lists the virtual ranks p plays in the round, ascending: none for
// a non-recommended p.
func (r Round) Plays(p core.Rank) []core.Rank {
	var out []core.Rank
	for v := range core.Rank(r.N) {
		if r.Player(v) == p {
			out = append(out, v)
		}
	}
	return out
}

// Root is processo_raiz (Algorithm 1 line 8): the lowest virtual rank of
// v's cluster of 2^S ranks, whose list gives the cluster's pivot.
//
// Ambiguity (a non-recommended cluster root): the thesis does not say who
// broadcasts the pivot then; the root's substitute does, from the root's
// list read from the shared store, so the pivot is the one the root
// would have chosen.
func (r Round) Root(v core.Rank) core.Rank { return v &^ core.Rank(1<<r.S-1) }

// Partner is partner ← rank ⊕ 2^(dim−1) (Algorithm 1 line 14) on virtual
// ranks: the virtual rank v exchanges with in the round.
func (r Round) Partner(v core.Rank) core.Rank { return v ^ core.Rank(1<<(r.S-1)) }

// Cluster lists the virtual ranks of the cluster rooted at root,
// processes(rank, dim) of Algorithm 1 line 7.
func (r Round) Cluster(root core.Rank) []core.Rank {
	out := make([]core.Rank, 1<<r.S)
	for k := range out {
		out[k] = root + core.Rank(k)
	}
	return out
}
