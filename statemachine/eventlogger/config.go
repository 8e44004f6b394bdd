package eventlogger

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Kind is the implementation of the logger (§5.1.3, Fig. 5.2, Table 5.1).
type Kind uint8

const (
	// Centralized is one logger process (R0): blocking, no fault tolerance.
	Centralized Kind = iota
	// Classic is Classic Paxos: one instance sequence shared by every
	// application process, one coordinator, 2f+1 replicas that are
	// acceptors and learners; the application processes are proposers.
	Classic
	// Parallel is Parallel Paxos: one instance sequence and one set of
	// 2f+1 acceptors per application process, whose coordinator-acceptor
	// (and only proposer and learner) is the application process itself.
	Parallel
)

func (k Kind) String() string {
	switch k {
	case Centralized:
		return "centralized"
	case Classic:
		return "classic"
	case Parallel:
		return "parallel"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind reads "centralized", "classic" or "parallel".
func ParseKind(s string) (Kind, error) {
	for k := Centralized; k <= Parallel; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("logger %q: want centralized, classic or parallel", s)
}

// Consensus is what the logger needs of a consensus machine: the embedder
// gives it (models/eventlogger adapts statemachine/paxos to it through
// that package's public API). This package imports only core, so it names
// no consensus package; the nodes embed the machines Consensus.New builds
// and use them as any runtime would: Step with core events, carry out the
// effects.
type Consensus interface {
	// New builds local rank r of group g (the group of one instance
	// sequence, see Config.Group).
	New(g Group, r core.Rank) (core.Machine, error)
	// Propose and Lead are the calls "propose data" and "coordinate".
	Propose(data string) core.Input
	Lead() core.Input
	// Command reads a returned or decided value: its data, false for a
	// no-op.
	Command(v core.Value) (string, bool)
	// Log is a learner's log of decisions, in instance order: the data of
	// each, "" with false for a no-op.
	Log(m core.Machine) []Decision
	// Votes is an acceptor's votes, by ascending instance.
	Votes(m core.Machine) []Vote
	// Timer is the one timer id the machines arm.
	Timer() uint64
	// DecodeNode reads the state of local rank r of group g written by
	// the machine's AppendBinary; DecodeMessage a message of group g.
	DecodeNode(g Group, r core.Rank, b []byte) (core.Machine, error)
	DecodeMessage(g Group, b []byte) (core.Message, error)
}

// Decision is one decided instance of a learner's log.
type Decision struct {
	Data string
	Cmd  bool // false: a no-op
}

// Vote is an acceptor's vote: it accepted Data (a command if Cmd) in
// instance Inst at ballot Ballot.
type Vote struct {
	Inst, Ballot uint64
	Data         string
	Cmd          bool
}

// Group is the layout of one instance sequence's consensus group, in its
// local ranks 0 … len(Global)-1.
type Group struct {
	Seq                            int
	Global                         []core.Rank // local rank → global rank
	Proposers, Acceptors, Learners []core.Rank // local ranks, ascending
}

// Local is global rank q's local rank in g.
func (g Group) Local(q core.Rank) (core.Rank, bool) {
	for l, r := range g.Global {
		if r == q {
			return core.Rank(l), true
		}
	}
	return core.NoRank, false
}

// Config is one logger deployment, shared by all its nodes.
type Config struct {
	Kind Kind
	// Procs is the number n of application processes: ranks 0 … n-1.
	Procs int
	// F is the number of acceptor failures tolerated (2f+1 acceptors).
	F int
	// Experimental is the §5.3.1 deployment. Parallel Paxos: the
	// application process is its sequence's proposer and learner only,
	// and the 2f+1 acceptors of every sequence run on 2f+1 dedicated
	// logger nodes (node k hosts acceptor k of every sequence); without
	// it (Table 5.1's deployment) the coordinator-acceptor is the
	// application process and 2f logger nodes host the other acceptors.
	// Classic Paxos: "um proposer em um nodo dedicado e três acceptors …
	// e três learners; cada acceptor e learner executa em 1 nodo
	// dedicado": the coordinator is a proposer on a node of its own, not
	// an acceptor, and 2f+1 nodes each hold an acceptor and a learner
	// (SeparateLearners: 2f+1 nodes for the acceptors and 2f+1 more for
	// the learners, the other reading of the sentence).
	Experimental     bool
	SeparateLearners bool
	// Consensus builds the Paxos machines (nil for Centralized).
	Consensus Consensus
	// Mutant selects a broken variant (tests only): see Mutants.
	Mutant mutant.Name
}

// Limits.
const (
	MaxProcs = 1 << 10
	MaxF     = 7
)

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Kind > Parallel {
		return fmt.Errorf("eventlogger: unknown kind %d", c.Kind)
	}
	if c.Procs < 1 || c.Procs > MaxProcs {
		return fmt.Errorf("eventlogger: %d application processes, want 1 … %d", c.Procs, MaxProcs)
	}
	if c.F < 0 || c.F > MaxF {
		return fmt.Errorf("eventlogger: f = %d, want 0 … %d", c.F, MaxF)
	}
	if c.Kind != Centralized && c.Consensus == nil {
		return fmt.Errorf("eventlogger: the %v logger needs a Consensus", c.Kind)
	}
	if c.Experimental && c.Kind == Centralized {
		return fmt.Errorf("eventlogger: the centralized logger has one deployment")
	}
	if c.SeparateLearners && (c.Kind != Classic || !c.Experimental) {
		return fmt.Errorf("eventlogger: separate learner nodes are a reading of Classic's experimental deployment")
	}
	if c.Mutant != mutant.None && !slices.Contains(Mutants, c.Mutant) {
		return fmt.Errorf("eventlogger: unknown mutant %q", c.Mutant)
	}
	if c.Kind == Centralized && PaxosOnly(c.Mutant) {
		return fmt.Errorf("eventlogger: mutant %s is of the Paxos loggers", c.Mutant)
	}
	return nil
}

// Loggers is the number of logger processes (ranks Procs … N-1):
// centralized 1, Classic 2f+1 replicas, Parallel 2f nodes hosting the
// acceptors not co-located (2f+1 in the experimental deployment).
func (c Config) Loggers() int {
	switch c.Kind {
	case Centralized:
		return 1
	case Classic:
		switch {
		case c.SeparateLearners:
			return 1 + 2*(2*c.F+1)
		case c.Experimental:
			return 1 + 2*c.F + 1
		}
		return 2*c.F + 1
	}
	if c.Experimental {
		return 2*c.F + 1
	}
	return 2 * c.F
}

// N is the number of processes: application processes then loggers.
func (c Config) N() int { return c.Procs + c.Loggers() }

// Sequences is the number of instance sequences: 0, 1 or Procs.
func (c Config) Sequences() int {
	switch c.Kind {
	case Classic:
		return 1
	case Parallel:
		return c.Procs
	}
	return 0
}

// Group is the consensus group of sequence s.
//
// Classic: local ranks 0 … 2f are the replicas R0 … R2f (global Procs …),
// acceptors and learners, and proposers in the order of succession (R0
// coordinates first); 2f+1 … are the application processes, proposers.
//
// Parallel: local 0 is application process s, the only proposer and the
// only learner; locals 1 … are the logger nodes. Table 5.1's deployment
// makes local 0 an acceptor too (the co-located coordinator-acceptor) with
// the 2f logger nodes; the experimental one makes the 2f+1 logger nodes
// the acceptors.
func (c Config) Group(s int) Group {
	g := Group{Seq: s}
	acc := func(from, to int) []core.Rank {
		var out []core.Rank
		for l := from; l < to; l++ {
			out = append(out, core.Rank(l))
		}
		return out
	}
	switch c.Kind {
	case Classic:
		k := 2*c.F + 1
		for l := range c.Loggers() {
			g.Global = append(g.Global, core.Rank(c.Procs+l))
		}
		for p := range c.Procs {
			g.Global = append(g.Global, core.Rank(p))
		}
		g.Proposers = acc(0, len(g.Global))
		switch {
		case c.SeparateLearners:
			g.Acceptors, g.Learners = acc(1, k+1), acc(k+1, 2*k+1)
		case c.Experimental:
			g.Acceptors, g.Learners = acc(1, k+1), acc(1, k+1)
		default:
			g.Acceptors, g.Learners = acc(0, k), acc(0, k)
		}
	case Parallel:
		g.Global = []core.Rank{core.Rank(s)}
		for l := range c.Loggers() {
			g.Global = append(g.Global, core.Rank(c.Procs+l))
		}
		g.Proposers = []core.Rank{0}
		g.Learners = []core.Rank{0}
		if c.Experimental {
			g.Acceptors = acc(1, len(g.Global))
		} else {
			g.Acceptors = acc(0, len(g.Global))
		}
	}
	return g
}

// OneAcceptor is the acceptor the mutant retrieve-since-one-acceptor
// reads (local rank 1 of the group: an acceptor that is not the
// coordinator), as a global rank.
func (c Config) OneAcceptor(s int) core.Rank {
	g := c.Group(s)
	a := g.Acceptors[0]
	if a == g.Proposers[0] {
		a = g.Acceptors[1]
	}
	return g.Global[a]
}

// LearnerRanks are the global ranks of sequence s's learners.
func (c Config) LearnerRanks(s int) []core.Rank {
	g := c.Group(s)
	var out []core.Rank
	for _, l := range g.Learners {
		out = append(out, g.Global[l])
	}
	return out
}

// AcceptorRanks are the global ranks of sequence s's acceptors.
func (c Config) AcceptorRanks(s int) []core.Rank {
	g := c.Group(s)
	var out []core.Rank
	for _, l := range g.Acceptors {
		out = append(out, g.Global[l])
	}
	return out
}

// Coordinator is the initial coordinator of sequence s (global rank).
func (c Config) Coordinator(s int) core.Rank { return c.Group(s).Global[0] }
