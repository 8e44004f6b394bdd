package dgrp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// phase is where a node is in its test round.
type phase uint8

const (
	phaseIdle    phase = iota // before Start
	phaseBarrier              // EVENTS sent, waiting for everyone's EVENTS of the round
	phaseDone                 // past the barrier of the last round
)

func (p phase) String() string { return [...]string{"idle", "barrier", "done"}[p] }

// roundSet is a set of ranks tagged with the test round it is about.
type roundSet struct {
	R uint32
	S core.RankSet
	C []uint32 // the event counters then (fails, views)
}

// outgoing is an EVENTS this node broadcast, with who acknowledged it.
type outgoing struct {
	R        uint32
	List     []Event
	Syndrome []uint32
	Acked    core.RankSet
}

// report is the mutant MutantRemoveOnlyIfAll's tally for one round: per
// process, the testers that reported it and the highest counter reported.
type report struct {
	R   uint32
	By  []core.RankSet
	Cnt []uint32
}

// Proposal is a re-admission this node proposed as leader: process K at
// counter C, and the leader of its view when it proposed (itself, unless
// a mutant).
type Proposal struct {
	K      core.Rank
	C      uint32
	Leader core.Rank
}

// Node is one process of the DGRP (a core.Machine): its tests of the
// others, its event counters and view, its part of the barrier, and the
// embedded consensus machine for re-admissions.
type Node struct {
	self core.Rank
	cfg  *Config // shared; never changed

	slow     []Slow       // injected test outcomes not yet used, ascending Round
	round    uint32       // current test round (1 …); 0 before Start
	ph       phase        //
	syndrome []uint32     // event counter per rank: even recommended, odd not (§4.1.1)
	zeta     []uint32     // consecutive recommended tests of a non-recommended rank
	got      [2]roundSet  // senders of EVENTS per round, ring indexed by round mod 2
	sent     [2]outgoing  // this node's EVENTS per round, ring indexed by round mod 2
	pending  core.RankSet // leader: ranks with a re-admission consensus running
	cons     core.Machine // the embedded consensus machine
	reports  [2]report    // MutantRemoveOnlyIfAll only

	// What the properties read.
	fails     [2]roundSet // ranks this node tested non-recommended per round
	views     [2]roundSet // its view at the barrier of each round
	made      []uint32    // per rank, the highest (odd) counter a failed test of it here created
	requests  []Event     // READMIT_REQs sent: rank, counter
	proposals []Proposal  // re-admissions proposed here
	admitted  []Event     // re-admissions applied here: rank, counter decided
}

// New builds process p of the DGRP cfg describes.
func New(p core.Rank, cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !p.Valid(cfg.N) {
		return nil, fmt.Errorf("dgrp: rank %v out of range for N=%d", p, cfg.N)
	}
	cons, err := cfg.Consensus.New(cfg.N, p)
	if err != nil {
		return nil, err
	}
	c := cfg
	return &Node{self: p, cfg: &c, syndrome: make([]uint32, cfg.N), zeta: make([]uint32, cfg.N),
		made: make([]uint32, cfg.N), cons: cons}, nil
}

// Step applies one event. Start is the only call; messages are this
// package's; TimerTick and TimerConsensus the timers. Anything else gives
// an error and changes nothing.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if err := n.check(ev); err != nil {
		return out, err
	}
	switch ev.Kind {
	case core.EvCall:
		return n.start(ev.Input.(Start), out), nil
	case core.EvTimer:
		if ev.Timer == TimerConsensus {
			return n.stepConsensus(core.Timer(n.cfg.Consensus.Timer()), out), nil
		}
		return n.tick(out), nil
	case core.EvReceive:
		return n.receive(ev.From, ev.Msg, out), nil
	}
	return out, nil // detector reports: the DGRP relies on its own tests
}

func (n *Node) check(ev core.Event) error {
	switch ev.Kind {
	case core.EvCall:
		s, ok := ev.Input.(Start)
		if !ok {
			return fmt.Errorf("dgrp: %v: unknown call %v", n.self, ev.Input)
		}
		if n.ph != phaseIdle {
			return fmt.Errorf("dgrp: %v: started twice", n.self)
		}
		for _, x := range s.Slow {
			if !x.Peer.Valid(n.cfg.N) || x.Peer == n.self || x.Round < 1 || int(x.Round) > n.cfg.Rounds {
				return fmt.Errorf("dgrp: %v: bad slow test %v", n.self, s)
			}
		}
	case core.EvTimer:
		if ev.Timer != TimerTick && ev.Timer != TimerConsensus {
			return fmt.Errorf("dgrp: %v: unknown timer %d", n.self, ev.Timer)
		}
	case core.EvReceive:
		if _, wrap := ev.Msg.(Wrap); !ev.From.Valid(n.cfg.N) || ev.From == n.self && !wrap {
			return fmt.Errorf("dgrp: %v: message from %v", n.self, ev.From) // only the consensus sends to itself
		}
		switch m := ev.Msg.(type) {
		case Events:
			if len(m.Syndrome) != n.cfg.N && len(m.Syndrome) != 0 {
				return fmt.Errorf("dgrp: %v: syndrome of %d counters", n.self, len(m.Syndrome))
			}
			for _, e := range m.List {
				if !e.K.Valid(n.cfg.N) {
					return fmt.Errorf("dgrp: %v: %v names rank %v", n.self, m, e.K)
				}
			}
		case Readmit:
			if !m.K.Valid(n.cfg.N) {
				return fmt.Errorf("dgrp: %v: %v", n.self, m)
			}
		case Decide:
			if !m.K.Valid(n.cfg.N) {
				return fmt.Errorf("dgrp: %v: %v", n.self, m)
			}
		case Ack, Wrap:
		default:
			return fmt.Errorf("dgrp: %v: unknown message %v", n.self, ev.Msg)
		}
	}
	return nil
}

// Recommended reports whether this node holds j recommended: its counter
// is even (§4.1.1, spec §3.3).
func (n *Node) Recommended(j core.Rank) bool { return n.syndrome[j]%2 == 0 }

// View is this node's DGRP: the ranks it holds recommended.
func (n *Node) View() core.RankSet {
	var s core.RankSet
	for j, c := range n.syndrome {
		if c%2 == 0 {
			s.Add(core.Rank(j))
		}
	}
	return s
}

// Clone returns a deep copy.
func (n *Node) Clone() core.Machine {
	c := *n
	c.slow = slices.Clone(n.slow)
	c.syndrome = slices.Clone(n.syndrome)
	c.zeta = slices.Clone(n.zeta)
	for i := range 2 {
		c.got[i].S = n.got[i].S.Clone()
		c.sent[i].List = slices.Clone(n.sent[i].List)
		c.sent[i].Syndrome = slices.Clone(n.sent[i].Syndrome)
		c.sent[i].Acked = n.sent[i].Acked.Clone()
		c.fails[i].S = n.fails[i].S.Clone()
		c.views[i].S = n.views[i].S.Clone()
		c.fails[i].C = slices.Clone(n.fails[i].C)
		c.views[i].C = slices.Clone(n.views[i].C)
		c.reports[i].By = make([]core.RankSet, len(n.reports[i].By))
		for k, s := range n.reports[i].By {
			c.reports[i].By[k] = s.Clone()
		}
		c.reports[i].Cnt = slices.Clone(n.reports[i].Cnt)
	}
	c.pending = n.pending.Clone()
	c.cons = n.cons.Clone()
	c.made = slices.Clone(n.made)
	c.requests = slices.Clone(n.requests)
	c.proposals = slices.Clone(n.proposals)
	c.admitted = slices.Clone(n.admitted)
	return &c
}

// String summarises the node on one line.
func (n *Node) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "round=%d %v counters=%s view=%v", n.round, n.ph, counters(n.syndrome), n.View())
	if !n.pending.Empty() {
		fmt.Fprintf(&b, " pending=%v", n.pending)
	}
	if len(n.admitted) > 0 {
		parts := make([]string, len(n.admitted))
		for i, e := range n.admitted {
			parts[i] = fmt.Sprintf("%v@%d", e.K, e.C)
		}
		fmt.Fprintf(&b, " readmitted=[%s]", strings.Join(parts, ","))
	}
	return b.String()
}
