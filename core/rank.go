package core

import "fmt"

// Rank identifies a process: 0 … N-1, as an MPI rank in a communicator.
type Rank int32

// NoRank is ⊥ for ranks: no parent, no process.
const NoRank Rank = -1

// String formats a rank as "p3", or "⊥" for NoRank.
func (r Rank) String() string {
	if r == NoRank {
		return "⊥"
	}
	return fmt.Sprintf("p%d", int32(r))
}

// Valid reports whether r names one of n processes.
func (r Rank) Valid(n int) bool { return r >= 0 && int(r) < n }
