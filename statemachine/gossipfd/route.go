package gossipfd

import (
	"fmt"
	"math/bits"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Variant is the destination function of the gossip module.
type Variant uint8

const (
	// Random: each module "randomly chooses at each step, the hosts it sends
	// its table to" (§5.1); the choices come from an input Plan.
	Random Variant = iota
	// RR is Round-Robin, Eq. (3): d = (s + r) mod n, 1 ≤ r < n.
	RR
	// BRR is Binary Round-Robin, Eq. (4): d = (s + 2^(r−1)) mod n,
	// 1 ≤ r ≤ ⌈log2 n⌉.
	BRR
	// DBRR is Double Binary Round-Robin, Eq. (5): BRR clockwise in the first
	// half of the cycle, counter-clockwise in the second.
	DBRR
)

// Variants lists the variants in order.
var Variants = []Variant{Random, RR, BRR, DBRR}

// String is "random", "rr", "brr" or "dbrr".
func (v Variant) String() string {
	switch v {
	case Random:
		return "random"
	case RR:
		return "rr"
	case BRR:
		return "brr"
	case DBRR:
		return "dbrr"
	}
	return fmt.Sprintf("variant(%d)", uint8(v))
}

// ParseVariant reads a variant name as String writes it.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("gossipfd: unknown variant %q (want random, rr, brr or dbrr)", s)
}

// CeilLog2 is ⌈log2 n⌉ for n ≥ 1 (0 for n ≤ 1).
func CeilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// Cycle is the cycle length of a deterministic variant, in rounds: n − 1 for
// RR (§5.1, "After r=n−1 rounds … r … is reset to 1"), ⌈log2 n⌉ for BRR
// (Eq. 4) and 2⌈log2 n⌉ for DBRR (Eq. 5). It is 1 for Random and 0 for n < 2.
func Cycle(v Variant, n int) int {
	if n < 2 {
		return 0
	}
	switch v {
	case RR:
		return n - 1
	case BRR:
		return CeilLog2(n)
	case DBRR:
		return 2 * CeilLog2(n)
	}
	return 1
}

// Offset is the ring distance from source to destination in round r
// (1 ≤ r ≤ Cycle(v, n)) of a deterministic variant over n hosts: r for RR,
// 2^(r−1) for BRR, and for DBRR 2^(r−1) in the first half and
// −2^(r−⌈log2 n⌉−1) mod n in the second. The destination of s is
// (s + Offset) mod n, the mathematical modulo.
func Offset(v Variant, n, r int) int { return offset(v, n, r, mutant.None) }

// Dest is the destination of host s in round r of a deterministic variant
// (Eqs. 3–5).
func Dest(v Variant, n int, s core.Rank, r int) core.Rank {
	return core.Rank((int(s) + Offset(v, n, r)) % n)
}

// offset is Offset with the routing mutants' hooks.
func offset(v Variant, n, r int, m mutant.Name) int {
	L := CeilLog2(n)
	switch v {
	case RR:
		return rrOffset(n, r, m)
	case BRR:
		return brrOffset(n, r, m)
	case DBRR:
		if r <= L {
			return (1 << (r - 1)) % n
		}
		return dbrrSecondHalf(n, r-L, m)
	}
	return 0
}

// PaperCleanupMin is the paper's T_cleanup^min in rounds of T_gossip:
// ⌈(√(1+8n) − 1)/2⌉ for RR (§5.1), ⌈log2 n⌉ for BRR (§5.1), 2⌈log2 n⌉ for
// DBRR (§5.2). RR's is computed in integers: the least r with r(r+1)/2 ≥ n.
// Random has none (0, error).
func PaperCleanupMin(v Variant, n int) (int, error) {
	if n < 2 {
		return 0, fmt.Errorf("gossipfd: n = %d, want n ≥ 2", n)
	}
	switch v {
	case RR:
		r := 0
		for r*(r+1)/2 < n {
			r++
		}
		return r, nil
	case BRR:
		return CeilLog2(n), nil
	case DBRR:
		return 2 * CeilLog2(n), nil
	}
	return 0, fmt.Errorf("gossipfd: the paper gives no T_cleanup^min for %v", v)
}

// CleanupRule chooses a T_cleanup where the paper gives none.
type CleanupRule uint8

const (
	// CleanupMargin is T_cleanup^min + ⌈log2 n⌉: DBRR's stated setting
	// 3⌈log2 n⌉ (§5.2), and the same margin for BRR (2⌈log2 n⌉) and RR.
	CleanupMargin CleanupRule = iota
	// CleanupMinOnly is T_cleanup = T_cleanup^min, the literal bound that
	// "can serve as T_cleanup only in synchronous systems" (§5.1).
	CleanupMinOnly
)

// PaperCleanup is T_cleanup in rounds of T_gossip by rule.
//
// Ambiguity: §5.2 sets "With the same assumptions as for BRR … T_cleanup =
// 3⌈log2(n)⌉ × T_gossip for DBRR", but the chapter never states BRR's. We
// read "the same assumptions" as the same margin over T_cleanup^min, one
// ⌈log2 n⌉ (so BRR gets 2⌈log2 n⌉); the literal T_cleanup^min is
// CleanupMinOnly.
func PaperCleanup(v Variant, n int, rule CleanupRule) (int, error) {
	m, err := PaperCleanupMin(v, n)
	if err != nil {
		return 0, err
	}
	if rule == CleanupMinOnly {
		return m, nil
	}
	return m + CeilLog2(n), nil
}

// Plan is the input of Random gossip: the partner of every host in each of
// Rounds() rounds, used cyclically. It is immutable and may be shared.
type Plan struct {
	n, rounds int
	partners  []core.Rank // partners[s*rounds+i]
}

// NewPlan tabulates partner(s, i), the partner of host s in its round i+1
// (i < rounds), for s = 0…n−1 in that order, so a seeded generator behind
// partner gives a reproducible plan. A partner must be another host.
func NewPlan(n, rounds int, partner func(s core.Rank, i int) core.Rank) (*Plan, error) {
	switch {
	case n < 2:
		return nil, fmt.Errorf("gossipfd: a plan needs n ≥ 2 hosts, got %d", n)
	case rounds < 1:
		return nil, fmt.Errorf("gossipfd: plan rounds %d < 1", rounds)
	case n > (1<<31-1)/rounds:
		return nil, fmt.Errorf("gossipfd: plan of %d×%d partners is too large", n, rounds)
	}
	p := &Plan{n: n, rounds: rounds, partners: make([]core.Rank, n*rounds)}
	for s := range n {
		for i := range rounds {
			q := partner(core.Rank(s), i)
			if !q.Valid(n) || int(q) == s {
				return nil, fmt.Errorf("gossipfd: partner %d of host %d is %v: want another host in 0..%d", i, s, q, n-1)
			}
			p.partners[s*rounds+i] = q
		}
	}
	return p, nil
}

// N is the number of hosts the plan is for.
func (p *Plan) N() int { return p.n }

// Rounds is the length of the plan; round g uses entry (g − 1) mod Rounds.
func (p *Plan) Rounds() int { return p.rounds }

// Partner is the partner of host s in its round g ≥ 1.
func (p *Plan) Partner(s core.Rank, g uint64) core.Rank {
	return p.partners[int(s)*p.rounds+int((g-1)%uint64(p.rounds))]
}
