package abcast_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// instant is a consensus for tests: member 0's node decides every
// proposal at once, in proposal order (no messages).
type instant struct{}

type instantNode struct{ next uint64 }

type instantValue string

func (v instantValue) AppendBinary(b []byte) []byte { return core.AppendString(b, string(v)) }
func (v instantValue) String() string               { return string(v) }

type lead struct{}

func (lead) AppendBinary(b []byte) []byte { return b }
func (lead) String() string               { return "lead" }

type propose string

func (p propose) AppendBinary(b []byte) []byte { return core.AppendString(b, string(p)) }
func (p propose) String() string               { return "propose " + string(p) }

func (instant) New(int, core.Rank) (core.Machine, error) { return &instantNode{}, nil }
func (instant) Lead() core.Input                         { return lead{} }
func (instant) Propose(data string) core.Input           { return propose(data) }
func (instant) Decided(v core.Value) string              { return string(v.(instantValue)) }
func (instant) Owns(core.Message) bool                   { return false }

func (n *instantNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if p, ok := ev.Input.(propose); ok && ev.Kind == core.EvCall {
		n.next++
		return append(out, core.Decide(n.next-1, instantValue(p))), nil
	}
	return out, nil
}
func (n *instantNode) Clone() core.Machine          { c := *n; return &c }
func (n *instantNode) AppendBinary(b []byte) []byte { return core.AppendUint(b, n.next) }
func (n *instantNode) String() string               { return fmt.Sprintf("instant next=%d", n.next) }

type envelope struct {
	from, to core.Rank
	m        core.Message
}

// run drives n members of cfg: every member broadcasts its messages, then
// messages in flight are delivered in an order drawn from seed. It returns
// each member's deliveries.
func run(t *testing.T, cfg ab.Config, seed uint64) [][]ab.ID {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	nodes := make([]*ab.Node, cfg.N)
	got := make([][]ab.ID, cfg.N)
	var flight []envelope
	step := func(p core.Rank, ev core.Event) {
		effs, err := nodes[p].Step(ev, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range effs {
			switch e.Kind {
			case core.EffSend:
				flight = append(flight, envelope{p, e.To, e.Msg})
			case core.EffDeliver:
				got[p] = append(got[p], e.Value.(ab.ID))
			}
		}
	}
	var calls []core.Rank
	for p := range nodes {
		n, err := ab.New(core.Rank(p), cfg)
		if err != nil {
			t.Fatal(err)
		}
		nodes[p] = n
		for range cfg.Messages {
			calls = append(calls, core.Rank(p))
		}
	}
	sent := make([]uint32, cfg.N)
	for len(calls) > 0 || len(flight) > 0 {
		if k := rng.IntN(len(calls) + len(flight)); k < len(calls) {
			p := calls[k]
			calls = slices.Delete(calls, k, k+1)
			step(p, core.Call(ab.Broadcast{Seq: sent[p]}))
			sent[p]++
		} else {
			e := flight[k-len(calls)]
			flight = slices.Delete(flight, k-len(calls), k-len(calls)+1)
			step(e.to, core.Receive(e.from, e.m))
		}
	}
	return got
}

// TestTotalOrder: for each variant, under 200 delivery orders, every
// member delivers every message once, all in one order.
func TestTotalOrder(t *testing.T) {
	for _, cfg := range []ab.Config{
		{N: 4, Variant: ab.UB, Messages: 3},
		{N: 4, Variant: ab.BB, Messages: 3},
		{N: 4, Variant: ab.ConsensusBased, Messages: 3, K: 5, Consensus: instant{}},
	} {
		for seed := range uint64(200) {
			got := run(t, cfg, seed)
			if len(got[0]) != cfg.N*cfg.Messages {
				t.Fatalf("%v seed %d: p0 delivered %d messages, want %d", cfg.Variant, seed, len(got[0]), cfg.N*cfg.Messages)
			}
			for p := range got {
				if !slices.Equal(got[p], got[0]) {
					t.Fatalf("%v seed %d: p%d delivered %v, p0 %v", cfg.Variant, seed, p, got[p], got[0])
				}
			}
		}
	}
}

// TestBatchOrder: within a decided batch members deliver by origin, then
// sequence number (the choice of rules.go), whatever the arrival order.
func TestBatchOrder(t *testing.T) {
	cfg := ab.Config{N: 3, Variant: ab.ConsensusBased, Messages: 1, K: 3, Consensus: instant{}}
	for seed := range uint64(50) {
		got := run(t, cfg, seed)
		want := []ab.ID{{Origin: 0}, {Origin: 1}, {Origin: 2}}
		if !slices.Equal(got[1], want) {
			t.Fatalf("seed %d: p1 delivered %v, want %v", seed, got[1], want)
		}
	}
}

// TestTotalOrderCatchesMutants: the same driver finds members delivering
// in different orders under the mutants that break total order.
func TestTotalOrderCatchesMutants(t *testing.T) {
	for _, cfg := range []ab.Config{
		{N: 4, Variant: ab.BB, Messages: 3, Mutant: ab.MutantDeliverOnPayload},
		{N: 4, Variant: ab.ConsensusBased, Messages: 3, K: 5, Consensus: instant{}, Mutant: ab.MutantDeliverBeforeDecision},
		{N: 4, Variant: ab.ConsensusBased, Messages: 3, K: 5, Consensus: instant{}, Mutant: ab.MutantBatchArrivalOrder},
	} {
		caught := false
		for seed := uint64(0); seed < 200 && !caught; seed++ {
			got := run(t, cfg, seed)
			for p := range got {
				caught = caught || !slices.Equal(got[p], got[0])
			}
		}
		if !caught {
			t.Errorf("%v %s: every member delivered in one order under 200 seeds", cfg.Variant, cfg.Mutant)
		}
	}
}
