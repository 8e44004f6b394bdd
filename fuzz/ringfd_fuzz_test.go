package fuzz

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// ringfdFuzzConfig draws a small ringfd configuration from two bytes: N =
// 1 + a % 9 daemons, P = b % 3 processes per daemon, and the options from
// the high bits.
func ringfdFuzzConfig(a, b byte) ringfd.Config {
	return ringfd.Config{
		N: 1 + int(a%9), Procs: int(b % 3),
		Trust: ringfd.Trust(b >> 2 & 1), NoSkip: b>>3&1 == 1, BMG: ringfd.BMG(b >> 4 & 1),
		LiteralLoop: b>>5&1 == 1, RequestWaitsForTick: b>>6&1 == 1,
	}
}

// FuzzRingfdDecode: data[0] % 2 picks ringfd.DecodeMessage (data[1] sets
// the number of ranks) or ringfd.DecodeNode (data[1], data[2] the config,
// data[3] the rank); the rest is the input. Bad bytes give an error, never
// a panic; what decodes re-encodes to the same bytes, and a decoded machine
// takes every kind of event without panicking.
func FuzzRingfdDecode(f *testing.F) {
	var s core.RankSet
	s.Add(3)
	s.Add(9)
	f.Add(append([]byte{0, 16}, ringfd.HB{Seq: 7}.AppendBinary(nil)...))
	f.Add(append([]byte{0, 16}, ringfd.HBRequest{}.AppendBinary(nil)...))
	f.Add(append([]byte{0, 16}, ringfd.Fault{IDs: s}.AppendBinary(nil)...))
	cfg := ringfdFuzzConfig(7, 1)
	ms, _ := ringfd.NewAll(cfg)
	for r, m := range ms {
		_, _ = m.Step(core.Call(ringfd.Start{}), nil)
		_, _ = m.Step(core.Receive(core.Rank((r+1)%8), ringfd.Fault{IDs: s}), nil)
		f.Add(append([]byte{1, 7, 1, byte(r)}, m.AppendBinary(nil)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		if data[0]%2 == 0 {
			ranks := 1 + int(data[1])
			m, err := ringfd.DecodeMessage(data[2:], ranks)
			if err != nil {
				return
			}
			if !bytes.Equal(m.AppendBinary(nil), data[2:]) {
				t.Fatalf("message %v re-encodes differently", m)
			}
			return
		}
		cfg := ringfdFuzzConfig(data[1], data[2])
		r := core.Rank(int(data[3]) % (cfg.N * (1 + cfg.Procs)))
		m, err := ringfd.DecodeNode(data[4:], r, cfg)
		if err != nil {
			return
		}
		if !bytes.Equal(m.AppendBinary(nil), data[4:]) {
			t.Fatalf("%v re-encodes differently", m)
		}
		var ids core.RankSet
		ids.Add(0)
		for _, ev := range []core.Event{
			core.Call(ringfd.Start{}), core.Timer(ringfd.TimerHeartbeat), core.Timer(ringfd.TimerObserve),
			core.Receive(0, ringfd.HB{Seq: 9}), core.Receive(0, ringfd.HBRequest{}), core.Receive(0, ringfd.Fault{IDs: ids}),
			core.Suspect(core.Rank(cfg.N)), core.Receive(r, nil),
		} {
			_, _ = m.Step(ev, nil)
		}
	})
}
