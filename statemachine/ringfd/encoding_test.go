package ringfd

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/google/go-cmp/cmp"
)

// randomStates drives every machine of cfg with random valid events and
// returns the distinct states met (by encoding), per rank.
func randomStates(t *testing.T, cfg Config, steps int, seed uint64) map[core.Rank][]core.Machine {
	t.Helper()
	ms, err := NewAll(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Normalize(cfg)
	r := rand.New(rand.NewPCG(seed, 7))
	seen := map[string]bool{}
	out := map[core.Rank][]core.Machine{}
	keep := func(rank core.Rank, m core.Machine) {
		k := string(rune(rank)) + string(m.AppendBinary(nil))
		if !seen[k] {
			seen[k] = true
			out[rank] = append(out[rank], m.Clone())
		}
	}
	for i, m := range ms {
		keep(core.Rank(i), m)
	}
	for i := 0; i < steps; i++ {
		rank := core.Rank(r.IntN(len(ms)))
		var ev core.Event
		if c.IsDaemon(rank) {
			switch r.IntN(6) {
			case 0:
				ev = core.Call(Start{})
			case 1:
				ev = core.Timer(TimerHeartbeat)
			case 2:
				ev = core.Timer(TimerObserve)
			case 3:
				ev = core.Receive(core.Rank(r.IntN(c.N)), HB{Seq: 1 + uint64(r.IntN(5))})
			case 4:
				ev = core.Receive(core.Rank(r.IntN(c.N)), HBRequest{})
			default:
				var s core.RankSet
				s.Add(core.Rank(r.IntN(c.Ranks())))
				ev = core.Receive(core.Rank(r.IntN(c.N)), Fault{IDs: s})
			}
		} else {
			var s core.RankSet
			s.Add(core.Rank(r.IntN(c.Ranks())))
			ev = core.Receive(c.Host(rank), Fault{IDs: s})
		}
		if _, err := ms[rank].Step(ev, nil); err == nil {
			keep(rank, ms[rank])
		}
	}
	return out
}

func testConfigs() []Config {
	return []Config{
		{N: 5, Procs: 2},
		{N: 4, Procs: 1, Trust: Freshness, Period: 2, Timeout: 3},
		{N: 6, Procs: 0, NoSkip: true, BMG: BMGOMPI, Ring: []core.Rank{3, 1, 0, 5, 2, 4}},
		{N: 1, Procs: 3},
		{N: 3, Procs: 1, SeqWindow: 4, RequestWaitsForTick: true},
	}
}

// TestEncodingRoundTrip: DecodeNode inverts AppendBinary on every state met,
// the decoded machine equals the original (go-cmp over every field), and
// two different states never share an encoding (distinctness: the
// encoding determines the state).
func TestEncodingRoundTrip(t *testing.T) {
	for _, cfg := range testConfigs() {
		states := randomStates(t, cfg, 4000, uint64(cfg.N))
		total := 0
		for rank, list := range states {
			byEnc := map[string]core.Machine{}
			for _, m := range list {
				b := m.AppendBinary(nil)
				got, err := DecodeNode(b, rank, cfg)
				if err != nil {
					t.Fatalf("N=%d %v: decode %v: %v", cfg.N, rank, m, err)
				}
				if diff := cmp.Diff(m, got, cmp.AllowUnexported(Daemon{}, Process{}, Config{}, core.RankSet{})); diff != "" {
					t.Fatalf("N=%d %v: round trip differs (-want +got):\n%s", cfg.N, rank, diff)
				}
				if prev, dup := byEnc[string(b)]; dup && !cmp.Equal(prev, m, cmp.AllowUnexported(Daemon{}, Process{}, Config{}, core.RankSet{})) {
					t.Fatalf("two states share an encoding: %v and %v", prev, m)
				}
				byEnc[string(b)] = m
				total++
			}
		}
		if total < 20 {
			t.Fatalf("N=%d: only %d states met; the test explores too little", cfg.N, total)
		}
	}
}

// TestCloneIsDeep: stepping a clone never changes the original.
func TestCloneIsDeep(t *testing.T) {
	cfg := Config{N: 5, Procs: 2}
	states := randomStates(t, cfg, 2000, 3)
	for rank, list := range states {
		for _, m := range list {
			before := m.AppendBinary(nil)
			c := m.Clone()
			var s core.RankSet
			s.Add(core.Rank(14))
			s.Add(0)
			if _, ok := c.(*Daemon); ok {
				_, _ = c.Step(core.Receive(core.Rank((int(rank)+1)%5), Fault{IDs: s}), nil)
				_, _ = c.Step(core.Receive(core.Rank((int(rank)+1)%5), HBRequest{}), nil)
			} else {
				_, _ = c.Step(core.Receive(core.Rank((int(rank)-5)/2), Fault{IDs: s}), nil)
			}
			if !bytes.Equal(before, m.AppendBinary(nil)) {
				t.Fatalf("%v: stepping a clone changed the original", rank)
			}
		}
	}
}

// TestDecodeRejectsGarbage: malformed, non-canonical and impossible
// encodings give ErrMalformed; random bytes never panic.
func TestDecodeRejectsGarbage(t *testing.T) {
	cfg := Config{N: 4, Procs: 1}
	cases := []struct {
		name string
		rank core.Rank
		b    []byte
	}{
		{"empty daemon", 0, nil},
		{"bool byte 2", 0, []byte{2, 0, 0, 1, 0, 0, 0}},
		{"pred is self", 1, []byte{0, 2, 3, 1, 0, 0, 0}},
		{"pred out of range", 1, []byte{0, 9, 3, 1, 0, 0, 0}},
		{"heartbeat number 0", 1, []byte{0, 1, 3, 0, 0, 0, 0}},
		{"freshness under timer-reset", 1, []byte{1, 1, 3, 1, 0, 5, 0}},
		{"last seq without pred", 1, []byte{1, 0, 3, 1, 4, 0, 0}},
		{"reported rank out of range", 1, []byte{0, 1, 3, 1, 0, 0, 1, 8}},
		{"trailing byte", 1, []byte{0, 1, 3, 1, 0, 0, 0, 0}},
		{"overlong varint", 1, []byte{0, 0x81, 0x00, 3, 1, 0, 0, 0}},
		{"process truncated", 5, []byte{2, 1}},
	}
	for _, c := range cases {
		if _, err := DecodeNode(c.b, c.rank, cfg); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", c.name, err)
		}
	}
	// The well-formed initial encodings decode.
	for r := core.Rank(0); r < 8; r++ {
		m, _ := New(r, cfg)
		if _, err := DecodeNode(m.AppendBinary(nil), r, cfg); err != nil {
			t.Fatalf("initial state of %v: %v", r, err)
		}
	}
	if _, err := DecodeNode(nil, 8, cfg); err == nil || errors.Is(err, core.ErrMalformed) {
		t.Fatalf("rank out of range: err = %v, want New's error", err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.IntN(12))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		_, _ = DecodeNode(b, core.Rank(r.IntN(8)), cfg)
		_, _ = DecodeMessage(b, 8)
	}
}

func TestMessageRoundTripAndGarbage(t *testing.T) {
	var s core.RankSet
	s.Add(3)
	s.Add(7)
	for _, m := range []core.Message{HB{Seq: 1}, HB{Seq: 300}, HBRequest{}, Fault{IDs: s}} {
		got, err := DecodeMessage(m.AppendBinary(nil), 8)
		if err != nil || !cmp.Equal(got, m, cmp.AllowUnexported(core.RankSet{})) {
			t.Fatalf("%v: got %v, %v", m, got, err)
		}
	}
	for name, b := range map[string][]byte{
		"unknown tag":      {9},
		"hb seq 0":         {tagHB, 0},
		"empty fault":      {tagFault, 0},
		"fault rank range": {tagFault, 1, 8},
		"request trailing": {tagHBRequest, 0},
		"hb overlong":      {tagHB, 0x81, 0x00},
	} {
		if _, err := DecodeMessage(b, 8); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}
