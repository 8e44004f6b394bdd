package gossipfd

import "github.com/ftkernel/ftkernel/internal/mutant"

// The mutants: deliberately broken variants, each a minimal change to one
// rule behind a hook below, for testing that the checker and the analyses
// catch them. Set Config.Mutant (tests and ftcheck --mutant only).
const (
	// MutantBRROffset2r makes Eq. (4) offset 2^r instead of 2^(r−1): BRR
	// never sends to s+1, and its last round sends 2^⌈log2 n⌉ mod n.
	MutantBRROffset2r = mutant.Name("brr-offset-2r")
	// MutantDBRRSameDirection makes the second half of Eq. (5) go clockwise
	// again, (s + 2^(r−⌈log2 n⌉−1)) mod n: DBRR's one-way links come back.
	MutantDBRRSameDirection = mutant.Name("dbrr-same-direction")
	// MutantMergeLastReceived merges a GOSSIP by adopting the received
	// entries instead of "keeping maximum values" (Fig. 11): a stale table
	// lowers an entry, and its next rise counts as an increase.
	MutantMergeLastReceived = mutant.Name("merge-last-received")
	// MutantCleanupGE suspects when g − lastInc[x] ≥ T_cleanup instead of >.
	MutantCleanupGE = mutant.Name("cleanup-ge")
	// MutantPingNeverAnswers: a host never answers a PING, so every
	// suspicion ends in a declaration (§5.3's consensus phase is void).
	MutantPingNeverAnswers = mutant.Name("ping-never-answers")
	// MutantNeverSuspect: the cleanup check of §5.1 never fires (T_cleanup
	// is never exceeded), so no host is ever suspected or declared. It
	// keeps accuracy and no-false-suspicion and breaks only completeness:
	// the mutant that shows the completeness properties can fail.
	MutantNeverSuspect = mutant.Name("never-suspect")
	// MutantRROffsetRPlus1 makes Eq. (3) offset r+1 instead of r: RR never
	// sends to s+1, and its last round (r = n−1) sends to s itself (nothing
	// is sent).
	MutantRROffsetRPlus1 = mutant.Name("rr-offset-r-plus-1")
	// MutantCleanupLate runs the cleanup check of §5.1 one round late: in
	// round g it compares g − 1 − lastInc[x] with T_cleanup, so a host is
	// suspected at lastInc[x] + T_cleanup + 2 instead of + 1 (rounds).
	MutantCleanupLate = mutant.Name("cleanup-late")
	// MutantMergeSenderRound makes the merge record, as lastInc[x], the
	// round in which the received heartbeat was generated (its value v:
	// host x's round counter when it sent it) instead of the local round g
	// of its arrival: the staleness g − lastInc[x] then counts the rounds
	// the heartbeat spent in transit, and x is suspected early.
	MutantMergeSenderRound = mutant.Name("merge-sender-round")
)

// Mutants lists every mutant of this package.
var Mutants = []mutant.Name{
	MutantBRROffset2r,
	MutantDBRRSameDirection,
	MutantMergeLastReceived,
	MutantCleanupGE,
	MutantPingNeverAnswers,
	MutantNeverSuspect,
	MutantRROffsetRPlus1,
	MutantCleanupLate,
	MutantMergeSenderRound,
}

// rrOffset is Eq. (3)'s r mod n (MutantRROffsetRPlus1: (r+1) mod n).
func rrOffset(n, r int, m mutant.Name) int {
	if m == MutantRROffsetRPlus1 {
		return (r + 1) % n
	}
	return r % n
}

// brrOffset is Eq. (4)'s 2^(r−1) mod n (MutantBRROffset2r: 2^r mod n).
func brrOffset(n, r int, m mutant.Name) int {
	if m == MutantBRROffset2r {
		return (1 << r) % n
	}
	return (1 << (r - 1)) % n
}

// dbrrSecondHalf is the counter-clockwise offset −2^(k−1) mod n of round
// ⌈log2 n⌉ + k of Eq. (5) (MutantDBRRSameDirection: +2^(k−1) mod n).
func dbrrSecondHalf(n, k int, m mutant.Name) int {
	d := (1 << (k - 1)) % n
	if m == MutantDBRRSameDirection {
		return d
	}
	return (n - d) % n
}

// adopt is the merge of one entry: whether hb[x] takes the received value
// v (maximum; MutantMergeLastReceived: any different value).
func adopt(old, v uint64, m mutant.Name) bool {
	if m == MutantMergeLastReceived {
		return v != old
	}
	return v > old
}

// stale is the cleanup test of elapsed rounds against T_cleanup (>, or
// ≥ under MutantCleanupGE; never under MutantNeverSuspect; under
// MutantCleanupLate the elapsed rounds of the round before, elapsed − 1).
// It is monotone in elapsed under every mutant.
func stale(elapsed, cleanup uint64, m mutant.Name) bool {
	switch m {
	case MutantNeverSuspect:
		return false
	case MutantCleanupGE:
		return elapsed >= cleanup
	case MutantCleanupLate:
		return elapsed > cleanup+1
	}
	return elapsed > cleanup
}

// incRound is the round merge records as lastInc[x] when entry x grows
// to v: the local round g (MutantMergeSenderRound: v, the round in which
// x generated it).
func incRound(g, v uint64, m mutant.Name) uint64 {
	if m == MutantMergeSenderRound {
		return v
	}
	return g
}

// answersPing is false under MutantPingNeverAnswers.
func answersPing(m mutant.Name) bool { return m != MutantPingNeverAnswers }
