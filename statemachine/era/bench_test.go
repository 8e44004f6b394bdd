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
