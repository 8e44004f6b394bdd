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
	// Detector is the failure detector: env.DetectorPerfect (the
	// default); env.DetectorNone for UB and BB, whose members never read a
	// suspicion; env.DetectorLocal (flag value "coordinator") for the
	// consensus variant, whose members other than p0 read a suspicion only
	// to replace a suspected Paxos leader, p0, which cannot crash then
	// (not with CrashSequencer): a crash is reported to p0 alone (every
	// member is hosted by p0, env.Config.Hosts). Each removes detection
	// steps that change nothing a property reads; none also lets the
	// persistent sets of --dfs --por leave out crashes (checker/env
	// persistent.go, the crash rule). TestDetectorSoundness shows the
	// verdicts and the delivery histories unchanged.
	Detector env.Detector
	// ForgetCrashed replaces a crashed member's node by its initial state
	// (env.Config.ForgetCrashed): the properties read a crashed member's
	// calls and deliveries from the environment's records, never its node.
	ForgetCrashed bool
	// DropAbsorbed removes a message its receiver absorbs when it is sent
	// (env.Config.DropAbsorbed): a MSG to a consensus member other than
	// the coordinator, which keeps no vector (statemachine/abcast
	// Node.Absorbs). TestDropAbsorbedSoundness (models/all) shows the
	// verdicts and the quiescent worlds unchanged.
	DropAbsorbed bool
	// Oracle runs the consensus variant over Oracle, a decided-batch
	// consensus, instead of Paxos (flag --consensus oracle): the atomic
	// broadcast above a consensus object. TestOracleViews shows it reaches
	// the same delivery histories as over Paxos at small bounds.
	Oracle bool
	Mutant mutant.Name
}

// detectorNames are the --detector values.
var detectorNames = map[string]env.Detector{"perfect": env.DetectorPerfect, "none": env.DetectorNone, "coordinator": env.DetectorLocal}

// detectorName is the --detector value of d.
func detectorName(d env.Detector) string {
	if d == env.DetectorLocal {
		return "coordinator"
	}
	return d.String()
}

// Config is the statemachine's group.
func (p Params) Config() ab.Config {
	c := ab.Config{N: p.Core, Variant: p.Variant, K: p.K, Messages: p.Messages, Mutant: p.Mutant}
	switch {
	case p.Variant == ab.ConsensusBased && p.Oracle:
		c.Consensus = Oracle{}
	case p.Variant == ab.ConsensusBased:
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

var flagNames = []string{"variant", "core", "messages", "k", "crashes", "crash-sequencer", "detector", "forget-crashed", "drop-absorbed", "consensus", "mutant"}

type flags struct {
	variant, mut   string
	detector, cons string
	core, msgs, k  int
	crashes        int
	crashSequencer bool
	forget, drop   bool
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
	fs.StringVar(&f.detector, "detector", detectorName(d.Detector), "failure detector: perfect; none (ub, bb: their members never read a suspicion; fewer steps, and --dfs --por reduces crashes); coordinator (consensus: only p0 is told of a crash; not with --crash-sequencer)")
	fs.BoolVar(&f.forget, "forget-crashed", false, "replace a crashed member's state by its initial one (the properties read its calls and deliveries from the environment): fewer states, the same verdicts (checker/env forget.go)")
	fs.BoolVar(&f.drop, "drop-absorbed", false, "consensus: remove a MSG to a member other than the coordinator when it is sent (such a member keeps no vector of received messages: the delivery is a no-op): fewer states, the same verdicts (checker/env absorb_drop.go)")
	fs.StringVar(&f.cons, "consensus", "paxos", "consensus variant: the consensus under the batches, paxos (statemachine/paxos) or oracle (a decided-batch consensus: CONS(i, batch) from p0 to itself decides, as in tla/abcast.qnt)")
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
	if f.cons != "paxos" && f.cons != "oracle" {
		return Params{}, fmt.Errorf("--consensus %q: want paxos or oracle", f.cons)
	}
	d, ok := detectorNames[f.detector]
	if !ok {
		return Params{}, fmt.Errorf("--detector %q: want perfect, none or coordinator", f.detector)
	}
	p := Params{Variant: v, Core: f.core, Messages: f.msgs, K: f.k, Crashes: f.crashes,
		CrashSequencer: f.crashSequencer, Detector: d, ForgetCrashed: f.forget, DropAbsorbed: f.drop, Oracle: f.cons == "oracle", Mutant: mutant.Name(f.mut)}
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
	switch {
	case p.Oracle && p.Variant != ab.ConsensusBased:
		return nil, fmt.Errorf("--consensus oracle: for the consensus variant")
	case p.Detector == env.DetectorNone && p.Variant == ab.ConsensusBased:
		return nil, fmt.Errorf("--detector none: the consensus variant reads suspicions (its end-of-round batch and its Paxos)")
	case p.Detector == env.DetectorLocal && p.Variant != ab.ConsensusBased:
		return nil, fmt.Errorf("--detector coordinator: for the consensus variant (ub and bb read no suspicion: --detector none)")
	case p.Detector == env.DetectorLocal && p.CrashSequencer:
		return nil, fmt.Errorf("--detector coordinator: not with --crash-sequencer (the members must learn that p0, their Paxos leader, crashed)")
	case p.Detector > env.DetectorLocal:
		return nil, fmt.Errorf("--detector %v: want perfect, none or coordinator", p.Detector)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "abcast variant=%v core=%d messages=%d", p.Variant, p.Core, p.Messages)
	if p.Variant == ab.ConsensusBased {
		fmt.Fprintf(&b, " k=%d", p.K)
	}
	if p.Oracle {
		b.WriteString(" consensus=oracle")
	}
	if p.CrashSequencer {
		b.WriteString(" crash-sequencer")
	}
	if p.Detector != env.DetectorPerfect {
		b.WriteString(" detector=" + detectorName(p.Detector))
	}
	if p.ForgetCrashed {
		b.WriteString(" forget-crashed")
	}
	if p.DropAbsorbed {
		b.WriteString(" drop-absorbed")
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	c := env.Config{
		Name: b.String(), N: p.Core, Crashes: p.Crashes, Network: env.Unordered, Detector: p.Detector,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := ab.New(r, cfg)
			if err != nil {
				panic(err) // validated above with the same config
			}
			return n
		},
		Schedules:  [][][]core.Input{p.Schedule()},
		Properties: Properties(p),
		MaySend:    MaySend,
		Codec: env.Codec{
			Node:    func(b []byte, r core.Rank, _ int) (core.Machine, error) { return ab.DecodeNode(b, r, cfg) },
			Message: func(b []byte) (core.Message, error) { return ab.DecodeAny(b, cfg) },
			Value:   func(b []byte) (core.Value, error) { return ab.DecodeValue(b, cfg.N) },
		},
	}
	if !p.CrashSequencer {
		c.Survivors = []core.Rank{ab.Sequencer}
	}
	if p.Detector == env.DetectorLocal {
		c.Hosts = make([]core.Rank, p.Core) // every member hosted by p0
	}
	c.ForgetCrashed, c.DropAbsorbed = p.ForgetCrashed, p.DropAbsorbed
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

// MaySend is the may-still-send-to relation (env.Config.MaySend), an
// over-approximation of the sends of rules.go:
//
//   - consensus: p0 (coordinator, Paxos proposer and learner) may send to
//     anyone; another member sends its own messages, to everyone, only on
//     its calls, and answers p0's Paxos messages (PROMISE, ACCEPTED), so
//     it may always send to p0;
//   - UB, BB: another member sends only on its calls (UB: to p0; BB: to
//     everyone); the sequencer sends on its calls and on a MSG it has not
//     numbered, which needs a call left at a live member or such a MSG in
//     flight to it (sequencerMaySend).
//
// modeltest.CheckMaySend checks it on every transition of small models
// (TestMaySend).
func MaySend(w *env.World, p, r core.Rank) bool {
	v := member(w, p).Config().Variant
	switch {
	case p == ab.Sequencer && v == ab.ConsensusBased:
		return true
	case p == ab.Sequencer:
		return sequencerMaySend(w)
	case v == ab.ConsensusBased && r == ab.Sequencer:
		return true
	case v == ab.UB && r != ab.Sequencer:
		return false
	}
	return len(w.PendingCalls(p)) > 0
}

// sequencerMaySend reports whether the UB or BB sequencer may still send:
// a live member has a call left (its MSG reaches the sequencer, which
// numbers it), or a MSG the sequencer has not numbered is in flight to it.
func sequencerMaySend(w *env.World) bool {
	for q := range core.Rank(w.N()) {
		if !w.Crashed(q) && len(w.PendingCalls(q)) > 0 {
			return true
		}
	}
	seq := member(w, ab.Sequencer)
	for _, e := range w.InFlight() {
		if m, ok := e.Msg.(ab.Msg); ok && e.To == ab.Sequencer && !seq.Numbered(m.ID) {
			return true
		}
	}
	return false
}
