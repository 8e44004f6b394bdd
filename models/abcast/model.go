package abcast

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "abcast",
		Doc:      "atomic broadcast over the stable core: consensus-based (over Paxos), UB and BB fixed sequencers (de Camargo 2017, Appendix A)",
		Define:   defineCheck,
		Mutants:  mutantInfos(),
		Simulate: defineSimulate,
	})
}

// Params are the parameters of an abcast check.
type Params struct {
	Variant ab.Variant
	// Core is the number of core members N; Messages the messages each
	// broadcasts; K the consensus variant's batch size.
	Core, Messages, K int
	// Crashes is the crash budget: members other than the sequencer (rank
	// 0) crash, at any step, unless CrashSequencer.
	Crashes int
	// CrashSequencer lets the sequencer or coordinator (rank 0) crash too.
	CrashSequencer bool
	Mutant         mutant.Name
}

// Config is the statemachine's group.
func (p Params) Config() ab.Config {
	c := ab.Config{N: p.Core, Variant: p.Variant, K: p.K, Messages: p.Messages, Mutant: p.Mutant}
	if p.Variant == ab.ConsensusBased {
		c.Consensus = Paxos{}
	}
	return c
}

// Schedule is every member's calls: Broadcast(0 … Messages−1).
func (p Params) Schedule() [][]core.Input {
	s := make([][]core.Input, p.Core)
	for r := range s {
		for k := range p.Messages {
			s[r] = append(s[r], ab.Broadcast{Seq: uint32(k)})
		}
	}
	return s
}

// Ranges of the check's flags.
const (
	MaxCheckCore     = 6
	MaxCheckMessages = 4
)

// DefaultCheck are the defaults of `ftcheck check abcast`: three members,
// two messages each, batches of two, one crash.
var DefaultCheck = Params{Variant: ab.ConsensusBased, Core: 3, Messages: 2, K: 2, Crashes: 1}

var flagNames = []string{"variant", "core", "messages", "k", "crashes", "crash-sequencer", "mutant"}

type flags struct {
	variant, mut   string
	core, msgs, k  int
	crashes        int
	crashSequencer bool
	fs             *flag.FlagSet
}

func defineCheck(fs *flag.FlagSet) registry.Builder {
	f := &flags{fs: fs}
	d := DefaultCheck
	fs.StringVar(&f.variant, "variant", d.Variant.String(), "consensus (Paxos on batches of k), ub (unicast-broadcast sequencer) or bb (broadcast-broadcast sequencer)")
	fs.IntVar(&f.core, "core", d.Core, fmt.Sprintf("number of core members N (ranks 0…N-1; p0 is the sequencer or coordinator), 2 … %d", MaxCheckCore))
	fs.IntVar(&f.msgs, "messages", d.Messages, fmt.Sprintf("messages each member broadcasts M, 1 … %d", MaxCheckMessages))
	fs.IntVar(&f.k, "k", d.K, "consensus: received messages per consensus instance k, 1 … N·M")
	fs.IntVar(&f.crashes, "crashes", d.Crashes, "crash budget: at most this many members crash, at any step; p0 only with --crash-sequencer; 0 … N-1 (consensus: 0 … ⌊(N-1)/2⌋, a Paxos majority)")
	fs.BoolVar(&f.crashSequencer, "crash-sequencer", false, "p0, the sequencer or coordinator, may crash too (nothing takes over: validity fails; agreement, integrity and total order hold)")
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	return func() (registry.Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		own := map[string]string{}
		for _, name := range flagNames {
			own[name] = fs.Lookup(name).Value.String()
		}
		return registry.Erase(m, "abcast", own), nil
	}
}

func (f *flags) params() (Params, error) {
	if err := flagcheck.First(
		flagcheck.Int("core", int64(f.core), 2, MaxCheckCore, ""),
		flagcheck.Int("messages", int64(f.msgs), 1, MaxCheckMessages, ""),
		flagcheck.Int("k", int64(f.k), 1, int64(f.core)*int64(f.msgs), "at most N·M"),
		flagcheck.Int("crashes", int64(f.crashes), 0, int64(f.core)-1, "at most N-1"),
	); err != nil {
		return Params{}, err
	}
	v, err := ab.ParseVariant(f.variant)
	if err != nil {
		return Params{}, fmt.Errorf("--%v", err)
	}
	p := Params{Variant: v, Core: f.core, Messages: f.msgs, K: f.k, Crashes: f.crashes,
		CrashSequencer: f.crashSequencer, Mutant: mutant.Name(f.mut)}
	if f := (p.Core - 1) / 2; v == ab.ConsensusBased && p.Crashes > f {
		return p, fmt.Errorf("--crashes %d: the consensus variant's Paxos needs a majority of the %d members alive, so at most %d", p.Crashes, p.Core, f)
	}
	if p.Mutant != mutant.None && !slices.Contains(ab.Mutants, p.Mutant) {
		return p, fmt.Errorf("--mutant %q: unknown abcast mutant (see ftcheck list)", f.mut)
	}
	return p, nil
}

// NewModel builds the environment of p: an unordered reliable network, a
// perfect failure detector, crash-stop members.
func NewModel(p Params) (*env.Model, error) {
	cfg := p.Config()
	if _, err := ab.New(0, cfg); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "abcast variant=%v core=%d messages=%d", p.Variant, p.Core, p.Messages)
	if p.Variant == ab.ConsensusBased {
		fmt.Fprintf(&b, " k=%d", p.K)
	}
	if p.CrashSequencer {
		b.WriteString(" crash-sequencer")
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	c := env.Config{
		Name: b.String(), N: p.Core, Crashes: p.Crashes, Network: env.Unordered, Detector: env.DetectorPerfect,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := ab.New(r, cfg)
			if err != nil {
				panic(err) // validated above with the same config
			}
			return n
		},
		Schedules:  [][][]core.Input{p.Schedule()},
		Properties: Properties(p),
		MaySend:    maySend,
		Codec: env.Codec{
			Node:    func(b []byte, r core.Rank, _ int) (core.Machine, error) { return ab.DecodeNode(b, r, cfg) },
			Message: func(b []byte) (core.Message, error) { return ab.DecodeAny(b, cfg) },
			Value:   func(b []byte) (core.Value, error) { return ab.DecodeValue(b, cfg.N) },
		},
	}
	if !p.CrashSequencer {
		c.Survivors = []core.Rank{ab.Sequencer}
	}
	return env.New(c)
}

// mutantInfos lists the statemachine's broken variants.
func mutantInfos() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		ab.MutantReuseNumber:           "ub, bb: the sequencer gives its second message the number of its first",
		ab.MutantDeliverBeforeDecision: "consensus: a member delivers its received messages in arrival order once it holds k, before the decision",
		ab.MutantDeliverOnPayload:      "bb: a member delivers a message on its payload, without waiting for the number",
		ab.MutantBatchArrivalOrder:     "consensus: a member delivers a decided batch in its own arrival order, not by (origin, seq)",
		ab.MutantBatchOverlap:          "consensus: the first message of each batch is proposed again in the next",
		ab.MutantWaitFullBatch:         "consensus: the coordinator proposes only full batches of k (no end-of-round batch)",
	}
	return registry.MutantInfos(ab.Mutants, docs)
}

// maySend is the may-still-send-to relation (env.Config.MaySend), an
// over-approximation: p0 (sequencer, coordinator) may send to anyone; a
// member other than p0 sends its own messages only on its calls (to p0 in
// UB, to everyone in BB and consensus), and in the consensus variant it
// answers p0's Paxos messages (PROMISE, ACCEPTED), so it may always send to
// p0.
func maySend(w *env.World, p, r core.Rank) bool {
	if p == ab.Sequencer {
		return true
	}
	if r == ab.Sequencer && w.Node(p).(*ab.Node).Config().Variant == ab.ConsensusBased {
		return true
	}
	return len(w.PendingCalls(p)) > 0
}
