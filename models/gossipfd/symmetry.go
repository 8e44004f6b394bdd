package gossipfd

import (
	"bytes"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// World is a snapshot of a detector: every host's machine, the crashed
// hosts, and the messages in flight (a multiset).
type World struct {
	Nodes    []*fd.Node
	Dead     core.RankSet
	InFlight []Envelope
}

// Encode appends the canonical encoding of w: per host its crash flag and
// state, then the messages in flight as a sorted list of (from, to,
// message) encodings, so that their order does not matter.
func (w World) Encode(b []byte) []byte {
	for s, n := range w.Nodes {
		b = core.AppendBool(b, w.Dead.Has(core.Rank(s)))
		b = core.AppendBytes(b, n.AppendBinary(nil))
	}
	msgs := make([][]byte, len(w.InFlight))
	for i, e := range w.InFlight {
		m := core.AppendUint(nil, uint64(e.From))
		m = core.AppendUint(m, uint64(e.To))
		msgs[i] = e.Msg.AppendBinary(m)
	}
	slices.SortFunc(msgs, bytes.Compare)
	b = core.AppendUint(b, uint64(len(msgs)))
	for _, m := range msgs {
		b = core.AppendBytes(b, m)
	}
	return b
}

// Rotate renames every host s to s + c mod N: states (fd.Node.Rotate),
// crash set, and messages (senders, receivers and tables).
func (w World) Rotate(c int) World {
	n := len(w.Nodes)
	c = ((c % n) + n) % n
	out := World{Nodes: make([]*fd.Node, n), InFlight: make([]Envelope, len(w.InFlight))}
	for s, node := range w.Nodes {
		out.Nodes[(s+c)%n] = node.Rotate(c)
	}
	w.Dead.Each(func(x core.Rank) { out.Dead.Add(core.Rank((int(x) + c) % n)) })
	for i, e := range w.InFlight {
		out.InFlight[i] = Envelope{
			From: core.Rank((int(e.From) + c) % n),
			To:   core.Rank((int(e.To) + c) % n),
			Msg:  fd.RotateMessage(e.Msg, c, n),
		}
	}
	return out
}

// Canonical is the representative of w's class under the rotation group
// (RR, BRR and DBRR with a common round offset: Config.RotationInvariant):
// the rotation whose encoding is least, bytewise, and that rotation c.
// Two worlds are rotations of each other exactly when their
// representatives encode equally.
func Canonical(w World) (World, int) {
	best, bestC := w, 0
	bestEnc := w.Encode(nil)
	for c := 1; c < len(w.Nodes); c++ {
		r := w.Rotate(c)
		if e := r.Encode(nil); bytes.Compare(e, bestEnc) < 0 {
			best, bestC, bestEnc = r, c, e
		}
	}
	return best, bestC
}

// SymmetryReduction counts the distinct worlds at the end of every round of
// every run of the round model with k crashes (every crash set, every crash
// round within a cycle, as MinCleanup), and their distinct canonical
// representatives: the reduction rotation symmetry gives a search.
func SymmetryReduction(v fd.Variant, n, k, rounds int) (raw, canonical int, err error) {
	seen := map[string]bool{}
	canon := map[string]bool{}
	cfg := fd.Config{N: n, Variant: v, TGossip: RoundTicks, Cleanup: uint64(max(1, rounds))}
	cyc := fd.Cycle(v, n)
	var sets [][]int
	choose(n, k, false, func(s []int) { sets = append(sets, append([]int(nil), s...)) })
	for _, set := range sets {
		at := make([]int, k)
		for {
			crash := map[core.Rank]uint64{}
			for i, x := range set {
				crash[core.Rank(x)] = uint64(1+at[i]) * RoundTicks
			}
			for g := 1; g <= rounds; g++ {
				sc := SimConfig{Node: cfg, DelayMin: 1, DelayMax: 1, Crash: crash, Rounds: g}
				r, err := Simulate(sc)
				if err != nil {
					return 0, 0, err
				}
				w := World{Nodes: r.Nodes, InFlight: r.InFlight}
				for x := range core.Rank(n) {
					if !sc.Live(x, uint64(g)*RoundTicks) {
						w.Dead.Add(x)
					}
				}
				seen[string(w.Encode(nil))] = true
				cw, _ := Canonical(w)
				canon[string(cw.Encode(nil))] = true
			}
			if !nextRounds(at, cyc) {
				break
			}
		}
	}
	return len(seen), len(canon), nil
}
