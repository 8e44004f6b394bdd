package paxos

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "paxos",
		Doc:      "Multi-Paxos with a coordinator, pre-executed phase 1, takeover and crash-recovery (de Camargo 2017 §2.1.2), bounded delay, lossy channels",
		Define:   defineCheck,
		Mutants:  mutantInfos(),
		Simulate: defineSimulate,
	})
}

// Learners says which ranks are learners (§2.1.2: "Um único processo
// pode assumir qualquer uma dessas funções").
type Learners uint8

const (
	// LearnProposers: the proposers learn (the default: a proposer is the
	// client of a replicated state machine that learns the log it feeds).
	LearnProposers Learners = iota
	// LearnAcceptors: the acceptors learn (the Classic event logger's
	// replicas, §5.1.3).
	LearnAcceptors
	// LearnAll: every process learns.
	LearnAll
)

func (l Learners) String() string {
	return [...]string{"proposers", "acceptors", "all"}[l]
}

func parseLearners(s string) (Learners, error) {
	for l := LearnProposers; l <= LearnAll; l++ {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("--learners %q: want proposers, acceptors or all", s)
}

// Params are the parameters of a Paxos model.
type Params struct {
	Proposers, Acceptors int
	// Instances is the number of commands proposed, command k by proposer
	// k mod Proposers (so at least Instances instances are decided when
	// no proposer crashes; a crashed proposer's pending commands may be
	// lost, and a new coordinator fills the gaps with no-ops).
	Instances int
	Learners  Learners
	// Crashes, Recoveries, Loss and Dup are the fault budgets of a run:
	// crash steps (restarted processes' crashes included), restarts from
	// stable storage, lost messages and duplicated messages.
	Crashes, Recoveries, Loss, Dup int
	// Timing is env.BoundedDelay (with Delta) or env.Asynchronous.
	Timing env.Timing
	Delta  int
	// Compete makes every proposer call Lead before its first proposal,
	// not only p0: the two competing proposers of Fig. 2.1.
	Compete bool
	// Crashable lists the ranks that may crash (nil: every rank); the
	// others are env.Config.Survivors. The "a coordinator crash"
	// is Crashable = {p0}.
	Crashable []core.Rank
	Mutant    mutant.Name
	CrashProb float64 // random walks: the probability of a fault step
}

// N is the number of processes: the proposers, then the acceptors.
func (p Params) N() int { return p.Proposers + p.Acceptors }

// F is the number of acceptor failures tolerated, ⌊(A−1)/2⌋ (§2.1.2:
// "para tolerar f falhas ele requer 2f + 1 acceptors").
func (p Params) F() int { return (p.Acceptors - 1) / 2 }

// Config is the statemachine's group: proposers 0 … P−1, acceptors P …
// P+A−1, the learners Params.Learners says, and under bounded delay the
// retransmission timeout 2Δ+1, after which a reply to a message sent
// when the timer was armed must have arrived.
func (p Params) Config() px.Config {
	c := px.Config{N: p.N(), Mutant: p.Mutant}
	for r := range p.N() {
		if r < p.Proposers {
			c.Proposers = append(c.Proposers, core.Rank(r))
		} else {
			c.Acceptors = append(c.Acceptors, core.Rank(r))
		}
	}
	switch p.Learners {
	case LearnProposers:
		c.Learners = slices.Clone(c.Proposers)
	case LearnAcceptors:
		c.Learners = slices.Clone(c.Acceptors)
	default:
		c.Learners = append(slices.Clone(c.Proposers), c.Acceptors...)
	}
	if p.Timing == env.BoundedDelay {
		c.Retransmit = uint64(2*p.Delta + 1)
	}
	return c
}

// Command is the k-th command: proposed by proposer k mod P, data "ck".
func (p Params) Command(k int) px.Command {
	return px.Command{Origin: core.Rank(k % p.Proposers), Data: fmt.Sprintf("c%d", k)}
}

// Schedule is every process's calls: proposer r calls Lead first if it is
// p0 (or every proposer with Compete), then proposes its commands r, r+P,
// r+2P, … in order. Calls do not wait for returns (a proposer may have
// several commands pending, as the event logger's processes do).
func (p Params) Schedule() [][]core.Input {
	s := make([][]core.Input, p.N())
	for r := range p.Proposers {
		if r == 0 || p.Compete {
			s[r] = append(s[r], px.Lead{})
		}
	}
	for k := range p.Instances {
		c := p.Command(k)
		s[c.Origin] = append(s[c.Origin], px.Propose{Data: c.Data})
	}
	return s
}

// Ranges of the check's size flags.
const (
	MaxCheckProposers = 4
	MaxCheckAcceptors = 7
	MaxCheckInstances = 8
	MaxCheckBudget    = 8
	MaxCheckDelta     = 4
)

// flags are the model flags shared by check and simulate.
type flags struct {
	proposers, acceptors, instances          int
	crashes, recoveries, loss, dup, delta    int
	learners, timing, mut, crashable         string
	compete                                  bool
	maxProposers, maxAcceptors, maxInstances int
	maxBudget                                int
	fs                                       *flag.FlagSet
}

// flagNames are the model flags, recorded in traces.
var flagNames = []string{"proposers", "acceptors", "instances", "crashes", "recoveries", "loss", "dup",
	"learners", "timing", "delta", "compete", "crashable", "mutant"}

func bind(fs *flag.FlagSet, maxP, maxA, maxI, maxB int, def Params) *flags {
	f := &flags{fs: fs, maxProposers: maxP, maxAcceptors: maxA, maxInstances: maxI, maxBudget: maxB}
	fs.IntVar(&f.proposers, "proposers", def.Proposers, fmt.Sprintf("number of proposers P (ranks 0…P-1; p0 coordinates first, then by rank), 1 … %d", maxP))
	fs.IntVar(&f.acceptors, "acceptors", def.Acceptors, fmt.Sprintf("number of acceptors A = 2f+1 (ranks P…P+A-1), 1 … %d", maxA))
	fs.IntVar(&f.instances, "instances", def.Instances, fmt.Sprintf("number of commands proposed I (command k by proposer k mod P), 1 … %d", maxI))
	fs.IntVar(&f.crashes, "crashes", def.Crashes, "crash budget F: at most this many crash steps in a run, any process, at any step (restarted processes' crashes included), 0 … P+A")
	fs.IntVar(&f.recoveries, "recoveries", def.Recoveries, fmt.Sprintf("recovery budget R: at most this many restarts of crashed processes from stable storage, 0 … %d", maxB))
	fs.IntVar(&f.loss, "loss", def.Loss, fmt.Sprintf("loss budget L: at most this many messages lost in a run, any message, 0 … %d", maxB))
	fs.IntVar(&f.dup, "dup", def.Dup, fmt.Sprintf("duplication budget D: at most this many messages duplicated in a run, 0 … %d", maxB))
	fs.StringVar(&f.learners, "learners", def.Learners.String(), "which processes learn: proposers|acceptors|all")
	fs.StringVar(&f.timing, "timing", "bounded", "bounded: a global clock, every message delivered within Δ ticks, the retransmission timer 2Δ+1 (termination is checked); async: no clock, timers fire at any step (safety only: retransmissions make the state space infinite, bound it with --max-depth)")
	fs.IntVar(&f.delta, "delta", def.Delta, fmt.Sprintf("delay bound Δ in ticks under --timing bounded, 1 … %d", MaxCheckDelta))
	fs.BoolVar(&f.compete, "compete", def.Compete, "every proposer calls Lead (phase 1) before its first proposal, not only p0: Fig. 2.1's competing proposers")
	fs.StringVar(&f.crashable, "crashable", "all", "which processes may crash: all, coordinator (p0, the initial coordinator), or ranks such as 0,2-3; the others never crash")
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	return f
}

// params checks the flags against their ranges and builds the Params.
func (f *flags) params() (Params, error) {
	n := int64(f.proposers) + int64(f.acceptors)
	if err := flagcheck.First(
		flagcheck.Int("proposers", int64(f.proposers), 1, int64(f.maxProposers), ""),
		flagcheck.Int("acceptors", int64(f.acceptors), 1, int64(f.maxAcceptors), ""),
		flagcheck.Int("instances", int64(f.instances), 1, int64(f.maxInstances), ""),
		flagcheck.Int("crashes", int64(f.crashes), 0, n, "at most every process"),
		flagcheck.Int("recoveries", int64(f.recoveries), 0, int64(f.maxBudget), ""),
		flagcheck.Int("loss", int64(f.loss), 0, int64(f.maxBudget), ""),
		flagcheck.Int("dup", int64(f.dup), 0, int64(f.maxBudget), ""),
		flagcheck.Int("delta", int64(f.delta), 1, MaxCheckDelta, ""),
	); err != nil {
		return Params{}, err
	}
	p := Params{Proposers: f.proposers, Acceptors: f.acceptors, Instances: f.instances,
		Crashes: f.crashes, Recoveries: f.recoveries, Loss: f.loss, Dup: f.dup, Delta: f.delta,
		Compete: f.compete, Mutant: mutant.Name(f.mut)}
	var err error
	if p.Learners, err = parseLearners(f.learners); err != nil {
		return p, err
	}
	switch f.timing {
	case "bounded":
		p.Timing = env.BoundedDelay
	case "async":
		p.Timing = env.Asynchronous
		if isSet(f.fs, "delta") {
			return p, fmt.Errorf("--delta needs --timing bounded")
		}
		p.Delta = 0
	default:
		return p, fmt.Errorf("--timing %q: want bounded or async", f.timing)
	}
	if p.Mutant != mutant.None && !slices.Contains(px.Mutants, p.Mutant) {
		return p, fmt.Errorf("--mutant %q: unknown paxos mutant (see ftcheck list)", f.mut)
	}
	if p.Crashable, err = parseCrashable(f.crashable, p.N()); err != nil {
		return p, err
	}
	if p.Recoveries > 0 && p.Crashes == 0 {
		return p, fmt.Errorf("--recoveries %d needs --crashes ≥ 1: only a crashed process restarts", p.Recoveries)
	}
	return p, nil
}

// parseCrashable reads --crashable: all (nil), coordinator ({p0}) or a
// list of ranks and ranges, "0,2-3".
func parseCrashable(s string, n int) ([]core.Rank, error) {
	switch s {
	case "all":
		return nil, nil
	case "coordinator":
		return []core.Rank{0}, nil
	}
	var out []core.Rank
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || b < a || a < 0 || b >= n {
			return nil, fmt.Errorf("--crashable %q: want all, coordinator, or ranks 0 … %d such as 0,2-3", s, n-1)
		}
		for r := a; r <= b; r++ {
			if !slices.Contains(out, core.Rank(r)) {
				out = append(out, core.Rank(r))
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// own lists the model flags' values, for traces.
func (f *flags) own() map[string]string {
	out := map[string]string{}
	for _, name := range flagNames {
		out[name] = f.fs.Lookup(name).Value.String()
	}
	return out
}

// symmetryAsked reports whether ftcheck's --symmetry is set on fs: only
// then is the model built with the acceptor symmetry (SymModel), and a
// configuration without it refused.
func symmetryAsked(fs *flag.FlagSet) bool {
	f := fs.Lookup("symmetry")
	return f != nil && f.Value.String() == "true"
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// DefaultCheck are the defaults of `ftcheck check paxos`: Fig. 2.1's
// two proposers and three acceptors (f = 1), one command, one crash.
var DefaultCheck = Params{Proposers: 2, Acceptors: 3, Instances: 1, Crashes: 1, Delta: 1}

func defineCheck(fs *flag.FlagSet) registry.Builder {
	f := bind(fs, MaxCheckProposers, MaxCheckAcceptors, MaxCheckInstances, MaxCheckBudget, DefaultCheck)
	return func() (registry.Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		if symmetryAsked(fs) {
			sm, err := NewSymModel(p)
			if err != nil {
				return nil, err
			}
			return registry.Erase[*env.World](sm, "paxos", f.own()), nil
		}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		return registry.Erase(m, "paxos", f.own()), nil
	}
}

// NewModel builds the environment of p.
func NewModel(p Params) (*env.Model, error) {
	n0, err := px.New(0, p.Config())
	if err != nil {
		return nil, err
	}
	full := n0.Config() // with its defaults (Retransmit)
	var b strings.Builder
	// env.New appends n, crashes, delta and the fault budgets.
	fmt.Fprintf(&b, "paxos proposers=%d (p0…p%d) acceptors=%d (p%d…p%d, f=%d) learners=%v instances=%d",
		p.Proposers, p.Proposers-1, p.Acceptors, p.Proposers, p.N()-1, p.F(), p.Learners, p.Instances)
	if p.Timing == env.BoundedDelay {
		fmt.Fprintf(&b, " timing=bounded retransmit=%d", full.Retransmit)
	} else {
		b.WriteString(" timing=async")
	}
	if p.Compete {
		b.WriteString(" compete")
	}
	if p.Crashable != nil {
		var cs core.RankSet
		for _, r := range p.Crashable {
			cs.Add(r)
		}
		fmt.Fprintf(&b, " crashable=%v", cs)
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	c := env.Config{
		Name: b.String(), N: p.N(), Crashes: p.Crashes, Network: env.Unordered,
		Duplicates: p.Dup, Detector: env.DetectorPerfect, Timing: p.Timing, Delta: p.Delta,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := px.New(r, full)
			if err != nil {
				panic(err) // validated above with the same config
			}
			return n
		},
		Schedules:  [][][]core.Input{p.Schedule()},
		Properties: Properties(p),
		CrashProb:  p.CrashProb,
		Codec:      codec(full),
	}
	if p.Recoveries > 0 {
		c.Faults, c.Recoveries = env.CrashRecovery, p.Recoveries
	}
	if p.Crashable != nil {
		for r := range core.Rank(p.N()) {
			if !slices.Contains(p.Crashable, r) {
				c.Survivors = append(c.Survivors, r)
			}
		}
	}
	if p.Loss > 0 {
		c.Loss, c.Losses = env.LossAny, p.Loss
	}
	return env.New(c)
}

// codec decodes the group's nodes, messages and values (env.Codec), so
// that BFS keeps its frontier as encodings.
func codec(cfg px.Config) env.Codec {
	return env.Codec{
		Node:    func(b []byte, p core.Rank, _ int) (core.Machine, error) { return px.DecodeNode(b, p, cfg) },
		Message: func(b []byte) (core.Message, error) { return px.DecodeMessage(b, cfg.N) },
		Value: func(b []byte) (core.Value, error) {
			d := core.NewDecoder(b)
			o := d.Int()
			if o == -1 {
				return px.Noop, d.Finish()
			}
			if o < 0 || o >= int64(cfg.N) {
				d.Fail("command origin %d out of range for N=%d", o, cfg.N)
			}
			v := px.Command{Origin: core.Rank(o), Data: d.String(px.MaxData)}
			return v, d.Finish()
		},
	}
}
