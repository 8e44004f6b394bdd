package era

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// BenchmarkFailureFreeN6000 runs one failure-free agreement on 6000 nodes.
func BenchmarkFailureFreeN6000(b *testing.B) {
	for _, topo := range []Topology{Binary, Star, String} {
		b.Run(topo.String(), func(b *testing.B) {
			for b.Loop() {
				s := newSim(Config{N: 6000, Topology: topo})
				for p := range 6000 {
					s.call(core.Rank(p), 0, Flag(1))
				}
				if err := s.runFIFO(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResultRequestFromFarRoot: rank 5999 hears from a root at 3000,
// which marks 3000 ranks dead at once.
func BenchmarkResultRequestFromFarRoot(b *testing.B) {
	n, _ := New(5999, Config{N: 6000})
	n.Step(call(0, 1), nil)
	for b.Loop() {
		c := n.clone()
		if _, err := c.Step(core.Receive(3000, ResultRequest{0}), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCloneEncodeN6000 clones and encodes a node of a 6000-process
// communicator with a few failures and two agreements.
func BenchmarkCloneEncodeN6000(b *testing.B) {
	n, _ := New(2, Config{N: 6000})
	for _, q := range []core.Rank{0, 1, 5, 300} {
		n.Step(core.Suspect(q), nil)
	}
	n.Step(call(0, 1), nil)
	n.Step(call(1, 1), nil)
	var buf []byte
	for b.Loop() {
		c := n.clone()
		buf = c.AppendBinary(buf[:0])
	}
}

// BenchmarkCloneStep is the node's share of one checker Apply: clone a node
// of a small communicator and step the clone (an UP from a child), as the
// environment does for every transition.
func BenchmarkCloneStep(b *testing.B) {
	n, _ := New(1, Config{N: 4})
	n.Step(call(0, 1), nil)
	var out []core.Effect
	for b.Loop() {
		c := n.clone()
		var err error
		if out, err = c.Step(core.Receive(2, Up{A: 0, V: Flag(1)}), out[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendBinaryFresh encodes a small node into a fresh buffer, as
// the environment's Encode does for its first process.
func BenchmarkAppendBinaryFresh(b *testing.B) {
	n, _ := New(1, Config{N: 4})
	n.Step(call(0, 1), nil)
	n.Step(core.Receive(2, Up{A: 0, V: Flag(1)}), nil)
	for b.Loop() {
		_ = n.AppendBinary(nil)
	}
}
