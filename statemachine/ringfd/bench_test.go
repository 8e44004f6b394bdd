package ringfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// BenchmarkForwarding is Algorithm 1's FORWARDING at a daemon of N = 4096
// with 32 processes: a Fault with new ids, forwarded to the 23 BMG
// neighbours and the 32 hosted processes, on a clone of a started daemon.
func BenchmarkForwarding(b *testing.B) {
	m, err := New(100, Config{N: 4096, Procs: 32})
	if err != nil {
		b.Fatal(err)
	}
	_, _ = m.Step(core.Call(Start{}), nil)
	f := fault(7, 4096+7*32)
	var out []core.Effect
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := m.Clone()
		if out, err = c.Step(core.Receive(7, f), out[:0]); err != nil || len(out) != 23+32 {
			b.Fatalf("%d effects, %v", len(out), err)
		}
	}
}

// BenchmarkHeartbeat is the steady state of the ring: a heartbeat tick and
// a heartbeat receipt.
func BenchmarkHeartbeat(b *testing.B) {
	m, _ := New(5, Config{N: 64, Procs: 12})
	_, _ = m.Step(core.Call(Start{}), nil)
	var out []core.Effect
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		out, _ = m.Step(core.Timer(TimerHeartbeat), out[:0])
		out, _ = m.Step(core.Receive(4, HB{Seq: uint64(i + 1)}), out[:0])
	}
}
