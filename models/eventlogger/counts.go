package eventlogger

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// CountParams is one failure-free (or one-fault) measurement of Table 5.1.
type CountParams struct {
	Kind  el.Kind
	F     int
	Procs int
	// Experimental is the §5.3.1 deployment; SeparateLearners its
	// 6-node reading for Classic (el.Config).
	Experimental, SeparateLearners bool
	// AllAcceptors lets every acceptor take part; by default only the
	// f+1 acceptors of a quorum do (Table 5.1's caption: "com um quorum
	// de acceptors"): messages to the others are held, never delivered,
	// and not counted, and those nodes are not counted as used.
	AllAcceptors bool
	// FailAcceptor crashes one acceptor of the quorum (not the
	// coordinator) before the measured saves; the failure detector tells
	// every live node, and the first spare acceptor joins the quorum.
	FailAcceptor bool
	// CoordinatorChange (Classic) crashes the coordinator R0 before the
	// measured saves; R1 takes over (its phase 1 is counted apart).
	CoordinatorChange bool
	// Dets is the number of determinants measured per process.
	Dets int
}

// Counts is what the runs measured, per saved determinant.
type Counts struct {
	// Steps is the longest chain of network messages in the causal past
	// of the save's return, from its call (communication steps).
	Steps float64 `json:"steps_per_determinant"`
	// Messages is the number of network messages in that causal past:
	// the messages the acknowledgement waited for.
	Messages float64 `json:"messages_per_determinant"`
	// Sent is every network message sent from the call until the system
	// is quiet again (learners' notices, acknowledgements included),
	// among the nodes taking part.
	Sent float64 `json:"messages_sent_per_determinant"`
	// Nodes is the application processes plus the logger nodes that sent
	// or received a network message.
	Nodes int `json:"nodes"`
	// Kinds is the causal messages by kind, per determinant.
	Kinds map[string]float64 `json:"causal_kinds"`
	// Setup is the network messages before the first measured save: the
	// coordinators' phase 1, and after a coordinator change the
	// takeover's.
	Setup int `json:"setup_messages"`
	// BusiestLogger is the logger node that sends and receives the most
	// network messages per determinant, and that number.
	BusiestLogger     core.Rank `json:"busiest_logger"`
	BusiestLoggerMsgs float64   `json:"busiest_logger_messages_per_determinant"`
	Saves             int       `json:"saves_measured"`
}

// config is the deployment of cp with the Paxos adapter.
func (cp CountParams) config() el.Config {
	c := el.Config{Kind: cp.Kind, Procs: cp.Procs, F: cp.F, Experimental: cp.Experimental, SeparateLearners: cp.SeparateLearners}
	if c.Kind != el.Centralized {
		c.Consensus = Paxos{}
	}
	return c
}

// flightMsg is a message in flight in a counting run.
type flightMsg struct {
	id       int
	from, to core.Rank
	m        core.Message
	depth    int
	past     []int // network message ids in its causal past, itself included
}

// runner steps the nodes of a deployment in rounds: every message sent in
// round k is delivered in round k+1, in the order sent. Timers never fire
// (a failure-free run ends before any retransmission timeout).
type runner struct {
	cfg     el.Config
	nodes   []*el.Node
	crashed []bool
	held    func(to core.Rank) bool
	flight  []flightMsg
	nextID  int
	past    [][]int // per rank, network message ids in its causal past
	depth   []int
	sent    int
	kinds   map[int]string
	used    map[core.Rank]bool
	handled []int         // network messages sent or received, per rank
	returns []core.Effect // returns of the last step
}

func newRunner(c el.Config) (*runner, error) {
	ns, err := el.NewAll(c)
	if err != nil {
		return nil, err
	}
	n := c.N()
	return &runner{cfg: c, nodes: ns, crashed: make([]bool, n), past: make([][]int, n), depth: make([]int, n),
		kinds: map[int]string{}, used: map[core.Rank]bool{}, handled: make([]int, n), held: func(core.Rank) bool { return false }}, nil
}

func (r *runner) step(p core.Rank, ev core.Event) error {
	effs, err := r.nodes[p].Step(ev, nil)
	if err != nil {
		return fmt.Errorf("p%d %v: %w", p, ev, err)
	}
	r.returns = r.returns[:0]
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			if r.crashed[e.To] || r.held(e.To) {
				continue
			}
			fm := flightMsg{from: p, to: e.To, m: e.Msg, depth: r.depth[p], past: r.past[p]}
			if e.To != p { // co-located: a message to itself is no network message
				fm.id = r.nextID
				r.nextID++
				fm.depth++
				fm.past = append(slices.Clone(r.past[p]), fm.id)
				r.sent++
				r.kinds[fm.id] = e.Msg.Kind()
				r.used[p], r.used[e.To] = true, true
				r.handled[p]++
			} else {
				fm.id = -1
			}
			r.flight = append(r.flight, fm)
		case core.EffReturn:
			r.returns = append(r.returns, e)
		}
	}
	return nil
}

// quiesce delivers rounds until nothing is in flight; onReturn sees every
// return.
func (r *runner) quiesce(onReturn func(p core.Rank, e core.Effect)) error {
	for rounds := 0; len(r.flight) > 0; rounds++ {
		if rounds > 10000 {
			return fmt.Errorf("no quiescence after %d rounds", rounds)
		}
		batch := r.flight
		r.flight = nil
		for _, fm := range batch {
			if r.crashed[fm.to] {
				continue
			}
			if fm.id >= 0 {
				r.handled[fm.to]++
			}
			r.past[fm.to] = union(r.past[fm.to], fm.past)
			r.depth[fm.to] = max(r.depth[fm.to], fm.depth)
			if err := r.step(fm.to, core.Receive(fm.from, fm.m)); err != nil {
				return err
			}
			if onReturn != nil {
				for _, e := range r.returns {
					onReturn(fm.to, e)
				}
			}
		}
	}
	return nil
}

func union(a, b []int) []int {
	if len(b) == 0 {
		return a
	}
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func (r *runner) crash(q core.Rank) error {
	r.crashed[q] = true
	for p := range r.nodes {
		if !r.crashed[p] {
			if err := r.step(core.Rank(p), core.Suspect(q)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Count runs cp's deployment: the coordinators' pre-executed phase 1
// (Start), the fault if any, then Dets saves of each process in turn, one
// at a time, each run to quiescence, and measures every save.
func Count(cp CountParams) (Counts, error) {
	c := cp.config()
	if err := c.Validate(); err != nil {
		return Counts{}, err
	}
	if cp.Dets < 1 {
		cp.Dets = 1
	}
	r, err := newRunner(c)
	if err != nil {
		return Counts{}, err
	}
	var down core.Rank = core.NoRank
	switch {
	case cp.CoordinatorChange:
		if c.Kind != el.Classic {
			return Counts{}, fmt.Errorf("a coordinator change is measured for Classic Paxos only: Parallel's coordinator is its application process")
		}
		down = c.Coordinator(0)
	case cp.FailAcceptor:
		if c.Kind == el.Centralized {
			return Counts{}, fmt.Errorf("the centralized logger has no acceptor")
		}
		down = c.OneAcceptor(0) // an acceptor that does not coordinate
	}
	// The quorum: the first f+1 acceptors that are up (for Parallel's
	// Table 5.1 deployment, the co-located one and the first f nodes),
	// with their learners when these are nodes of their own; a dedicated
	// coordinator takes part.
	if c.Kind != el.Centralized && !cp.AllAcceptors {
		in := quorumNodes(c, cp.F, down)
		r.held = func(to core.Rank) bool { return int(to) >= c.Procs && !in[to] }
	}
	// "Considera-se que os coordenadores do Paxos executaram previamente a
	// primeira fase": Start at every coordinator, run to quiescence.
	for s := range c.Sequences() {
		if err := r.step(c.Coordinator(s), core.Call(el.Start{})); err != nil {
			return Counts{}, err
		}
	}
	if err := r.quiesce(nil); err != nil {
		return Counts{}, err
	}
	if down != core.NoRank {
		if err := r.crash(down); err != nil {
			return Counts{}, err
		}
		if cp.CoordinatorChange {
			// R1, the next of the succession, has taken over on the
			// suspicion; the takeover's phase 1 is setup.
			if err := r.quiesce(nil); err != nil {
				return Counts{}, err
			}
		}
	}
	out := Counts{Setup: r.sent, Kinds: map[string]float64{}}
	base := slices.Clone(r.handled)
	var steps, msgs, sent int
	for k := range cp.Dets {
		for p := range core.Rank(c.Procs) {
			for q := range r.past {
				r.past[q], r.depth[q] = nil, 0
			}
			before := r.sent
			if err := r.step(p, core.Call(el.Save{Det: fmt.Sprintf("d%d.%d", p, k)})); err != nil {
				return Counts{}, err
			}
			got := false
			err := r.quiesce(func(q core.Rank, e core.Effect) {
				if q != p || got {
					return
				}
				res := e.Value.(el.Result)
				if res.Op != el.OpSave || res.ID != uint64(k+1) {
					return
				}
				got = true
				steps += r.depth[p]
				msgs += len(r.past[p])
				for _, id := range r.past[p] {
					out.Kinds[r.kinds[id]]++
				}
			})
			if err != nil {
				return Counts{}, err
			}
			if !got {
				return Counts{}, fmt.Errorf("p%d's save %d did not return", p, k+1)
			}
			sent += r.sent - before
			out.Saves++
		}
	}
	d := float64(out.Saves)
	out.Steps, out.Messages, out.Sent = float64(steps)/d, float64(msgs)/d, float64(sent)/d
	for k := range out.Kinds {
		out.Kinds[k] /= d
	}
	out.BusiestLogger = core.NoRank
	for q := c.Procs; q < c.N(); q++ {
		if h := float64(r.handled[q]-base[q]) / d; h > out.BusiestLoggerMsgs {
			out.BusiestLogger, out.BusiestLoggerMsgs = core.Rank(q), h
		}
	}
	out.Nodes = c.Procs
	for q := range r.used {
		if int(q) >= c.Procs {
			out.Nodes++
		}
	}
	return out, nil
}

// KindsString formats the causal kinds, e.g. "ACCEPT 1 + ACCEPTED 1".
func (c Counts) KindsString() string {
	var ks []string
	for k := range c.Kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %g", k, c.Kinds[k]))
	}
	return strings.Join(parts, " + ")
}
