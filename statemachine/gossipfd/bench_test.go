package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// BenchmarkGossipStep: one host of 256 (DBRR) merges one GOSSIP table and
// takes one gossip round (cleanup check over 256 entries, table copy).
func BenchmarkGossipStep(b *testing.B) {
	cfg := &Config{N: 256, Variant: DBRR, TGossip: 8, Cleanup: 24}
	n, _ := New(3, cfg)
	n.Step(core.Call(Start{}), nil)
	table := make([]uint64, 256)
	var out []core.Effect
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for x := range table {
			table[x] = uint64(i)
		}
		out, _ = n.Step(core.Receive(4, Gossip{Table: table}), out[:0])
		out, _ = n.Step(core.Timer(TimerGossip), out[:0])
	}
}

// BenchmarkEncodeNode: the canonical encoding of a 256-host state.
func BenchmarkEncodeNode(b *testing.B) {
	cfg := &Config{N: 256, Variant: BRR, TGossip: 8, Cleanup: 16}
	n, _ := New(0, cfg)
	n.Step(core.Call(Start{}), nil)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = n.AppendBinary(buf[:0])
	}
}
