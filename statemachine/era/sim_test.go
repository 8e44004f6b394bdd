package era

import (
	"fmt"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/core"
)

// envelope is a message in flight.
type envelope struct {
	from, to core.Rank
	m        core.Message
}

// sim is a small in-test runtime: N nodes, a network, crashes and a perfect
// failure detector whose reports arrive in any order.
type sim struct {
	cfg      Config
	nodes    []*Node
	crashed  []bool
	queue    []envelope
	suspects []envelope // {from: detector owner p, to: dead q}
	calls    []Contribute
	callers  []core.Rank
	inputs   map[core.Rank]map[uint64]Value
	ack      bool // ULFM calls are made as AckAgree (see makeCall)
	decided  []map[uint64]Value
	returned []map[uint64]Value
	sent     map[string]int
	effs     []core.Effect
	trace    []string
	// blocking: p makes a call only once its calls for lower agreements
	// returned (Figure 3's program; needed by Config.Rebalance).
	blocking bool
	// onStep, when set, sees every node after each of its steps.
	onStep func(p core.Rank, n *Node)
}

func newSim(cfg Config) *sim {
	s := &sim{cfg: cfg, sent: map[string]int{}, inputs: map[core.Rank]map[uint64]Value{}}
	for p := range cfg.N {
		n, err := New(core.Rank(p), cfg)
		if err != nil {
			panic(err)
		}
		s.nodes = append(s.nodes, n)
		s.crashed = append(s.crashed, false)
		s.decided = append(s.decided, map[uint64]Value{})
		s.returned = append(s.returned, map[uint64]Value{})
	}
	return s
}

// step applies ev at p and carries out the effects.
func (s *sim) step(p core.Rank, ev core.Event) error {
	var err error
	s.effs, err = s.nodes[p].Step(ev, s.effs[:0])
	if err != nil {
		return err
	}
	s.trace = append(s.trace, fmt.Sprintf("%v: %v -> %v", p, ev, s.effs))
	n := s.nodes[p]
	if s.onStep != nil {
		s.onStep(p, n)
	}
	if t := s.cfg.Tree(); s.cfg.Mutant == "" && (n.parent != t.Parent(n.dead, p, s.cfg.N) || !n.kids.Equal(t.Children(n.dead, p, s.cfg.N))) {
		return fmt.Errorf("%v: stale tree cache after %v: %v", p, ev, n)
	}
	for _, e := range s.effs {
		switch e.Kind {
		case core.EffSend:
			s.sent[e.Msg.Kind()]++
			s.queue = append(s.queue, envelope{p, e.To, e.Msg})
		case core.EffDecide:
			if old, ok := s.decided[p][e.Instance]; ok {
				return fmt.Errorf("%v decided a=%d twice: %v then %v", p, e.Instance, old, e.Value)
			}
			s.decided[p][e.Instance] = e.Value
		case core.EffReturn:
			if old, ok := s.returned[p][e.Instance]; ok {
				return fmt.Errorf("%v returned a=%d twice: %v then %v", p, e.Instance, old, e.Value)
			}
			s.returned[p][e.Instance] = e.Value
		}
	}
	return nil
}

// call schedules Agreement(v, a) at p.
func (s *sim) call(p core.Rank, a uint64, v Value) {
	s.calls = append(s.calls, Contribute{A: a, V: v})
	s.callers = append(s.callers, p)
	if s.inputs[p] == nil {
		s.inputs[p] = map[uint64]Value{}
	}
	s.inputs[p][a] = v
}

// crash kills q; every live process will discover it.
func (s *sim) crash(q core.Rank) {
	s.crashed[q] = true
	for p := range s.nodes {
		if !s.crashed[p] {
			s.suspects = append(s.suspects, envelope{from: core.Rank(p), to: q})
		}
	}
}

// runFIFO delivers the calls, then the messages in FIFO order.
func (s *sim) runFIFO() error {
	for i, c := range s.calls {
		if err := s.makeCall(s.callers[i], c); err != nil {
			return err
		}
	}
	s.calls, s.callers = nil, nil
	for len(s.queue) > 0 {
		e := s.queue[0]
		s.queue = s.queue[1:]
		if err := s.step(e.to, core.Receive(e.from, e.m)); err != nil {
			return err
		}
	}
	return nil
}

// runRandom runs a random schedule with up to maxCrash crashes (at least one
// process survives) until nothing is left to do.
func (s *sim) runRandom(r *rand.Rand, maxCrash int) error {
	crashes := 0
	for steps := 0; ; steps++ {
		if steps > 100000 {
			return fmt.Errorf("no quiescence after %d steps", steps)
		}
		alive := s.alive()
		canCrash := crashes < maxCrash && len(alive) > 1
		ready := s.readyCalls()
		total := len(s.queue) + len(s.suspects) + len(ready)
		if total == 0 {
			return nil
		}
		if canCrash && r.IntN(total*3) == 0 {
			q := alive[r.IntN(len(alive))]
			s.trace = append(s.trace, fmt.Sprintf("CRASH %v", q))
			s.crash(q)
			crashes++
			continue
		}
		i := r.IntN(total)
		switch {
		case i < len(s.queue):
			e := s.queue[i]
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			if s.crashed[e.to] || s.crashed[e.from] && r.IntN(2) == 0 {
				continue // to the dead; or lost with its crashed sender
			}
			if err := s.step(e.to, core.Receive(e.from, e.m)); err != nil {
				return err
			}
		case i < len(s.queue)+len(s.suspects):
			i -= len(s.queue)
			e := s.suspects[i]
			s.suspects = append(s.suspects[:i], s.suspects[i+1:]...)
			if s.crashed[e.from] {
				continue
			}
			if err := s.step(e.from, core.Suspect(e.to)); err != nil {
				return err
			}
		default:
			i = ready[i-len(s.queue)-len(s.suspects)]
			p, c := s.callers[i], s.calls[i]
			s.calls = append(s.calls[:i], s.calls[i+1:]...)
			s.callers = append(s.callers[:i], s.callers[i+1:]...)
			if s.crashed[p] {
				continue
			}
			if err := s.makeCall(p, c); err != nil {
				return err
			}
		}
	}
}

// makeCall steps p's call c: as AckAgree{c.A, flag} when s.ack is set and
// c.V is a ULFM contribution (its sets are then ignored), recording the
// contribution the node resolved as p's input.
func (s *sim) makeCall(p core.Rank, c Contribute) error {
	v, ok := c.V.(Contribution)
	if !s.ack || !ok {
		return s.step(p, core.Call(c))
	}
	if err := s.step(p, core.Call(AckAgree{A: c.A, Flag: v.Flag})); err != nil {
		return err
	}
	s.inputs[p][c.A] = s.nodes[p].Input(c.A)
	return nil
}

// readyCalls lists the indices of the calls that may be made now.
func (s *sim) readyCalls() []int {
	var out []int
	for i, p := range s.callers {
		ok := true
		for j, q := range s.callers[:i] {
			if s.blocking && q == p && s.calls[j].A < s.calls[i].A {
				ok = false // an earlier call of p is still to be made
			}
		}
		for a := range s.calls[i].A {
			if s.blocking && s.inputs[p][a] != nil && s.returned[p][a] == nil {
				ok = false // p waits for its call of a to return
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

func (s *sim) alive() []core.Rank {
	var out []core.Rank
	for p, c := range s.crashed {
		if !c {
			out = append(out, core.Rank(p))
		}
	}
	return out
}

// checkAgreement checks the §2.1 properties at quiescence for agreement a:
// Termination (every live process returned), Agreement (the live processes
// returned the same value) and Participation (each live process contributed
// to it: F(v', v) = v').
func (s *sim) checkAgreement(a uint64) error {
	var want Value
	var first core.Rank
	for _, p := range s.alive() {
		got, ok := s.returned[p][a]
		if !ok {
			return fmt.Errorf("termination: %v did not return a=%d: %v", p, a, s.nodes[p])
		}
		if want == nil {
			want, first = got, p
		} else if string(got.AppendBinary(nil)) != string(want.AppendBinary(nil)) {
			return fmt.Errorf("agreement: %v returned %v, %v returned %v (a=%d)", first, want, p, got, a)
		}
		in := s.inputs[p][a]
		if c := s.cfg.Op.Combine(got, in); string(c.AppendBinary(nil)) != string(got.AppendBinary(nil)) {
			return fmt.Errorf("participation: %v returned %v without its input %v (a=%d)", p, got, in, a)
		}
	}
	return nil
}

// randomRebalancedRun runs agreements 0, 1 and 2 of MPIX_Comm_agree with
// Tree Rebalancing, each process calling them in order (blocking) as
// AckAgree (acknowledging the failures it knows), with random crashes, and
// checks every property.
func randomRebalancedRun(cfg Config, seed uint64, maxCrash int) error {
	r := rand.New(rand.NewPCG(seed, 11))
	cfg.Op, cfg.Rebalance = ULFM, true
	s := newSim(cfg)
	s.blocking, s.ack = true, true
	for p := range cfg.N {
		for a := range uint64(3) {
			s.call(core.Rank(p), a, NewContribution(r.Uint64N(16)|uint64(p)<<8, core.RankSet{}, core.RankSet{}))
		}
	}
	if err := s.runRandom(r, maxCrash); err != nil {
		return err
	}
	for a := range uint64(3) {
		if err := s.checkAgreement(a); err != nil {
			return err
		}
	}
	return nil
}

// randomRun runs one random execution of agreements 0 and 1 (concurrent)
// with random flags and checks every property.
func randomRun(cfg Config, seed uint64, maxCrash int) error {
	r := rand.New(rand.NewPCG(seed, 7))
	if cfg.Op == nil {
		cfg.Op = And
	}
	s := newSim(cfg)
	for p := range cfg.N {
		for a := range uint64(2) {
			s.call(core.Rank(p), a, Flag(r.Uint64N(16)|uint64(p)<<8))
		}
	}
	if err := s.runRandom(r, maxCrash); err != nil {
		return err
	}
	for a := range uint64(2) {
		if err := s.checkAgreement(a); err != nil {
			return err
		}
	}
	return nil
}

// randomAckedRun runs one random execution of agreements 0 and 1
// (concurrent) of MPIX_Comm_agree whose contributions acknowledge random
// failures, and checks every property.
func randomAckedRun(cfg Config, seed uint64, maxCrash int) error {
	r := rand.New(rand.NewPCG(seed, 5))
	cfg.Op = ULFM
	s := newSim(cfg)
	for p := range cfg.N {
		for a := range uint64(2) {
			var acked core.RankSet
			for q := range cfg.N {
				if r.IntN(2) == 0 {
					acked.Add(core.Rank(q))
				}
			}
			s.call(core.Rank(p), a, NewContribution(r.Uint64N(4), core.RankSet{}, acked))
		}
	}
	if err := s.runRandom(r, maxCrash); err != nil {
		return err
	}
	for a := range uint64(2) {
		if err := s.checkAgreement(a); err != nil {
			return err
		}
	}
	return nil
}
