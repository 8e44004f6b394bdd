package twophase

import "github.com/ftkernel/ftkernel/checker"

var _ checker.Symmetric[State] = (*Model)(nil)

// Canonical returns the canonical representative of s under every
// permutation of the resource managers (TLC's SYMMETRY Permutations(RM)).
// An RM's part of the state is the tuple (rmState[r], r ∈ tmPrepared,
// Prepared(r) ∈ msgs); a permutation of RMs permutes these tuples and
// leaves the rest (tmState, Commit, Abort) alone. The representative lists
// the tuples in ascending order, (rmState, prepared-in-TM,
// Prepared-message) lexicographically, so two states are symmetric exactly
// when their representatives are equal: a true canonical form.
//
// Actions, Quiescent and both invariants are symmetric in the RMs (with
// BrokenCommit and AbortTypo too), as Options.Symmetry requires.
func (m *Model) Canonical(s State) State {
	n := m.RM
	var count [16]uint8
	for r := range n {
		count[tuple(s, n, r)]++
	}
	out := s & (State(3)<<tmShift(n) | State(1)<<commitBit(n) | State(1)<<abortBit(n))
	r := 0
	for t, c := range count {
		for range c {
			out |= State(t&3)<<(2*r) |
				State(t>>2&1)<<(tmPreparedShift(n)+r) |
				State(t>>3&1)<<(msgShift(n)+r)
			r++
		}
	}
	return out
}

// tuple packs RM r's part of s as rmState | prepared-in-TM<<2 |
// Prepared-message<<3, whose numeric order is the lexicographic order of
// (rmState, prepared-in-TM, Prepared-message).
func tuple(s State, n, r int) int {
	return s.RM(r) | int(s>>(tmPreparedShift(n)+r)&1)<<2 | int(s>>(msgShift(n)+r)&1)<<3
}
