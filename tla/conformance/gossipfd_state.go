package conformance

// Conformance of the round-based gossip failure detector:
// tla/gossipfd.qnt (module gossipfd) against the statemachine/gossipfd
// machines in the round model of models/gossipfd.CheckModel (`ftcheck
// check gossipfd`, --timing rounds). The files gossipfd_*.go mirror the
// correction ones: this one is the abstraction both sides are compared
// on, gossipfd_replay.go replays Quint traces on the Go machines,
// gossipfd_export.go turns Go traces into ITF and Quint run tests. One Go
// step (a crash, or a whole round of every live host's machine) is exactly
// one spec step (Crash(p), Round).

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	gm "github.com/ftkernel/ftkernel/models/gossipfd"
)

// GNode is one host's detector state.
type GNode struct {
	G         int   // rounds run (Go Node.Round; the spec's hb[h][h])
	HB        []int // heartbeat table, N entries
	LastInc   []int // round of the last increase of each entry
	Suspected []int // suspicions in their ping phase, ascending; nil if none
	Declared  []int // hosts declared failed, ascending; nil if none
}

// GState is the abstraction both sides are compared on.
type GState struct {
	Round     int
	Crashed   []int // crash round of each host (c > 0: crashed before round c)
	FalseSusp []int // nil, or [observer, suspected host, round]
	Nodes     []GNode
}

func rankList(s core.RankSet) []int {
	var out []int
	s.Each(func(r core.Rank) { out = append(out, int(r)) })
	return out
}

// FromRoundState abstracts a state of the Go round model.
func FromRoundState(s *gm.RoundState) (GState, error) {
	out := GState{Round: s.G, Crashed: slices.Clone(s.Crashed)}
	if f := s.FalseSuspicion; f != nil {
		out.FalseSusp = []int{f[0], f[1], f[2]}
	}
	for h, n := range s.Nodes {
		if n == nil || int(n.Self()) != h || !n.Started() {
			return out, fmt.Errorf("conformance: host %d's machine is %v", h, n)
		}
		gn := GNode{G: int(n.Round()), Suspected: rankList(n.Suspected()), Declared: rankList(n.Declared())}
		for x := range core.Rank(len(s.Nodes)) {
			gn.HB = append(gn.HB, int(n.Heartbeat(x)))
			gn.LastInc = append(gn.LastInc, int(n.LastInc(x)))
		}
		out.Nodes = append(out.Nodes, gn)
	}
	return out, nil
}

// fromGossipSpec abstracts a decoded ITF state of gossipfd.qnt.
func fromGossipSpec(st map[string]any) (s GState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("conformance: unexpected spec state shape: %v", r)
		}
	}()
	s = GState{Round: asInt(st["round"])}
	crashed, hb, li := intKeyed(st["crashed"]), intKeyed(st["hb"]), intKeyed(st["lastInc"])
	susp, decl := intKeyed(st["suspected"]), intKeyed(st["declared"])
	n := len(crashed)
	for _, v := range st["falseSusp"].([]any) {
		s.FalseSusp = append(s.FalseSusp, asInt(v))
	}
	for h := 0; h < n; h++ {
		s.Crashed = append(s.Crashed, asInt(crashed[h]))
		row, lrow := intKeyed(hb[h]), intKeyed(li[h])
		gn := GNode{G: asInt(row[h]), Suspected: asInts(susp[h]), Declared: asInts(decl[h])}
		for x := 0; x < n; x++ {
			gn.HB = append(gn.HB, asInt(row[x]))
			gn.LastInc = append(gn.LastInc, asInt(lrow[x]))
		}
		s.Nodes = append(s.Nodes, gn)
	}
	return s, nil
}

// GossipImage is gossipfd.qnt's `image` of s: round, the false suspicion
// (−1 −1 −1 if none), then per host its crash round, hb, lastInc, and the
// bit masks of suspected and declared. The host's g is hb[h][h] in the
// spec: the image takes it from HB, and GossipImage fails when G differs.
func GossipImage(s GState) ([]int, error) {
	out := []int{s.Round}
	if s.FalseSusp == nil {
		out = append(out, -1, -1, -1)
	} else {
		out = append(out, s.FalseSusp...)
	}
	mask := func(xs []int) int {
		m := 0
		for _, x := range xs {
			m |= 1 << x
		}
		return m
	}
	for h, n := range s.Nodes {
		if n.G != n.HB[h] {
			return nil, fmt.Errorf("conformance: host %d at round %d has its own heartbeat %d", h, n.G, n.HB[h])
		}
		out = append(out, s.Crashed[h])
		out = append(out, n.HB...)
		out = append(out, n.LastInc...)
		out = append(out, mask(n.Suspected), mask(n.Declared))
	}
	return out, nil
}
