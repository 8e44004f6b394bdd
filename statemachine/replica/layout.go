package replica

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Layout is the map between (logical process, replica index) and the
// environment rank of each replica (see the package documentation).
type Layout struct {
	degree []int // replicas per logical process
	first  []int // rank of P_i^0
	n      int   // total replicas
}

// NewLayout lays out procs logical processes with degree replicas each;
// P_0 has one replica unless replicateRank0 (§4: rank 0 is not replicated
// by default). Errors: procs < 1, degree < 1, or more than 64 replicas.
func NewLayout(procs, degree int, replicateRank0 bool) (Layout, error) {
	if procs < 1 || degree < 1 {
		return Layout{}, fmt.Errorf("replica: layout needs procs ≥ 1 and degree ≥ 1, got %d and %d", procs, degree)
	}
	d := make([]int, procs)
	for i := range d {
		d[i] = degree
	}
	if !replicateRank0 {
		d[0] = 1
	}
	return NewLayoutDegrees(d)
}

// NewLayoutDegrees lays out one logical process per entry of degrees, with
// that many replicas. Errors: no process, a degree below 1, or more than 64
// replicas in total.
func NewLayoutDegrees(degrees []int) (Layout, error) {
	if len(degrees) == 0 {
		return Layout{}, fmt.Errorf("replica: layout needs at least one logical process")
	}
	l := Layout{degree: append([]int(nil), degrees...), first: make([]int, len(degrees))}
	for i, d := range degrees {
		if d < 1 {
			return Layout{}, fmt.Errorf("replica: logical process %d has degree %d, want ≥ 1", i, d)
		}
		l.first[i] = l.n
		l.n += d
	}
	if l.n > 64 {
		return Layout{}, fmt.Errorf("replica: %d replicas in total, at most 64", l.n)
	}
	return l, nil
}

// Procs is the number of logical processes.
func (l Layout) Procs() int { return len(l.degree) }

// N is the number of replicas, which is the number of environment ranks.
func (l Layout) N() int { return l.n }

// Degree is the number of replicas of logical process i.
func (l Layout) Degree(i int) int { return l.degree[i] }

// Rank is the environment rank of replica k of logical process i.
func (l Layout) Rank(i, k int) core.Rank { return core.Rank(l.first[i] + k) }

// Of is the logical process and replica index of rank r; ok is false when
// r is not a replica of this layout.
func (l Layout) Of(r core.Rank) (i, k int, ok bool) {
	if !r.Valid(l.n) {
		return 0, 0, false
	}
	for i = len(l.first) - 1; l.first[i] > int(r); i-- {
	}
	return i, int(r) - l.first[i], true
}

// Replicas is the set of ranks of the replicas of logical process i.
func (l Layout) Replicas(i int) core.RankSet {
	var s core.RankSet
	for k := 0; k < l.degree[i]; k++ {
		s.Add(l.Rank(i, k))
	}
	return s
}

// String is the table, such as "P0=[p0] P1=[p1 p2]".
func (l Layout) String() string {
	s := ""
	for i := range l.degree {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("P%d=%v", i, l.Replicas(i))
	}
	return s
}
