package gossipfd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// CheckConfig is the exhaustive check of the round model (what `ftcheck
// check gossipfd` explores): every choice of which hosts crash and before
// which round, within a crash budget, and every round of the run is the
// deterministic synchronous round of Simulate (every message of a round,
// PING and PONG included, delivered before the next; ping timers fire at
// the end of their round).
type CheckConfig struct {
	Node fd.Config // TGossip and PingTimeout are set by NewCheckModel
	// Crashes is the crash budget F.
	Crashes int
	// CrashWindow is the last round before which a crash may happen
	// (crashes happen before rounds 1…CrashWindow); Horizon is the number
	// of rounds run. Horizon ≥ CrashWindow.
	CrashWindow, Horizon int
	// DetectBound is the completeness bound in rounds: a host that crashed
	// before round c is declared by every live host by the end of round
	// c + DetectBound − 1.
	DetectBound int
	// Isolation, if positive, restricts completeness to the crashes its
	// bound is about: a host x crashed before round c whose last heartbeat
	// spreads with no other host crashed, every other host crashed before
	// round c − 1 + Isolation or later (rounds; DetectBound's W, the
	// dissemination time of a crashed host's last heartbeat: §5.1's
	// T_cleanup^min is for failure-free dissemination). Zero: every crash.
	Isolation int
}

// RoundState is a state of the round model: the round count, each host's
// machine, and each host's crash round (0: alive). It is never changed
// once built.
type RoundState struct {
	G       int
	Nodes   []*fd.Node
	Crashed []int // Crashed[s] = c > 0: s crashed before round c
	// FalseSuspicion is the first suspicion of a live host by a live host
	// ([observer, suspected, round]), kept because a suspicion the ping
	// phase withdraws lasts less than a round; nil if none yet.
	FalseSuspicion *[3]int
}

// Action kinds.
const (
	actRound uint8 = iota + 1 // every live host runs one round
	actCrash                  // host P crashes (before the next round)
)

// CheckModel is the round model as a checker.Model, with rotation symmetry.
type CheckModel struct {
	cfg   CheckConfig
	node  *fd.Config
	props []checker.Property[*RoundState]
}

var (
	_ checker.Model[*RoundState]     = (*CheckModel)(nil)
	_ checker.Symmetric[*RoundState] = (*CheckModel)(nil)
)

// NewCheckModel validates c and builds the model. T_gossip is RoundTicks
// ticks and the ping timeout half a round, which only orders the timers
// (every message of a round arrives before the ping timers fire).
func NewCheckModel(c CheckConfig) (*CheckModel, error) {
	nc := c.Node
	nc.TGossip = RoundTicks
	nc.PingTimeout = RoundTicks / 2
	if err := nc.Validate(); err != nil {
		return nil, err
	}
	switch {
	case c.Crashes < 0 || c.Crashes > nc.N:
		return nil, fmt.Errorf("gossipfd: crash budget %d of %d hosts", c.Crashes, nc.N)
	case c.CrashWindow < 0 || c.Horizon < c.CrashWindow || c.Horizon < 1:
		return nil, fmt.Errorf("gossipfd: crash window %d, horizon %d: want 0 ≤ window ≤ horizon, horizon ≥ 1", c.CrashWindow, c.Horizon)
	case c.DetectBound < 1:
		return nil, fmt.Errorf("gossipfd: completeness bound %d rounds, want ≥ 1", c.DetectBound)
	}
	m := &CheckModel{cfg: c, node: &nc}
	m.cfg.Node = nc
	m.props = []checker.Property[*RoundState]{
		{Name: "accuracy", Kind: checker.Invariant,
			Doc: "no live host is ever declared failed by a live host (§5.3: no false detection)", Check: m.accuracy},
		{Name: "no-false-suspicion", Kind: checker.Invariant, Stable: true,
			Doc: "no live host is suspected by a live host, before or without the ping (§5.2's FD failure is about suspicions)", Check: m.noFalseSuspicion},
		{Name: "completeness", Kind: checker.Invariant,
			Doc: fmt.Sprintf("a host crashed before round c is declared by every live host by round c+%d (§5.2 c: \"a fault is detected in a guaranteed delay\")", c.DetectBound-1), Check: m.completeness},
	}
	if nc.Routing == fd.RouteFixed {
		m.props = append(m.props, checker.Property[*RoundState]{Name: "suspicion-round", Kind: checker.Invariant,
			Doc: "a crashed host is suspected and declared by each live host in the round T_cleanup+1 after its heartbeat last rose there over Eqs. 3–5, not before nor after (§5.1, §5.3; hosts crashed while falsely suspected excepted)", Check: m.suspicionRound})
	}
	return m, nil
}

// Name is e.g. "gossipfd variant=brr n=4 crashes=2 cleanup=4 ping=false".
func (m *CheckModel) Name() string {
	c := m.cfg
	return fmt.Sprintf("gossipfd variant=%v n=%d crashes=%d cleanup=%d ping=%v window=%d horizon=%d", c.Node.Variant, c.Node.N, c.Crashes, c.Node.Cleanup, c.Node.Ping, c.CrashWindow, c.Horizon)
}

// Init is every host started, round 0.
func (m *CheckModel) Init() []*RoundState {
	s := &RoundState{Nodes: make([]*fd.Node, m.node.N), Crashed: make([]int, m.node.N)}
	for h := range m.node.N {
		n, _ := fd.New(core.Rank(h), m.node)
		n.Step(core.Call(fd.Start{}), nil)
		s.Nodes[h] = n
	}
	return []*RoundState{s}
}

func (s *RoundState) crashes() int {
	k := 0
	for _, c := range s.Crashed {
		if c > 0 {
			k++
		}
	}
	return k
}

// Actions: a crash of any live host while the budget and the window last
// (ascending host), then the next round, until the horizon.
func (m *CheckModel) Actions(s *RoundState, buf []checker.Action) []checker.Action {
	if s.G >= m.cfg.Horizon {
		return buf
	}
	if s.G < m.cfg.CrashWindow && s.crashes() < m.cfg.Crashes {
		for h, c := range s.Crashed {
			if c == 0 {
				buf = append(buf, checker.Action{Kind: actCrash, P: int32(h)})
			}
		}
	}
	return append(buf, checker.Action{Kind: actRound})
}

// Apply takes a crash or a round.
func (m *CheckModel) Apply(s *RoundState, a checker.Action) (*RoundState, error) {
	if !slices.Contains(m.Actions(s, nil), a) {
		return nil, fmt.Errorf("gossipfd: action %v not enabled", a)
	}
	next := &RoundState{G: s.G, Nodes: slices.Clone(s.Nodes), Crashed: slices.Clone(s.Crashed), FalseSuspicion: s.FalseSuspicion}
	if a.Kind == actCrash {
		next.Crashed[a.P] = s.G + 1
		return next, nil
	}
	for h := range next.Nodes {
		if next.Crashed[h] == 0 {
			next.Nodes[h] = next.Nodes[h].Clone().(*fd.Node)
		}
	}
	live := func(h core.Rank) bool { return next.Crashed[h] == 0 }
	suspected := func(h, x core.Rank) {
		if live(x) && next.FalseSuspicion == nil {
			next.FalseSuspicion = &[3]int{int(h), int(x), s.G + 1}
		}
	}
	if err := runRound(next.Nodes, live, suspected, nil); err != nil {
		return nil, err
	}
	next.G++
	return next, nil
}

// runRound is one synchronous round on the live hosts' machines (changed
// in place): gossip timers in ascending host order, then every message in
// send order (the PINGs and PONGs they cause too), then the ping timers in
// arming order, as Simulate orders them with one-tick delays. suspected,
// if not nil, is told of every new suspicion (h suspects x); sent, if not
// nil, of every message as it is taken from the queue, in order (it is
// delivered if its destination is live).
func runRound(nodes []*fd.Node, live func(core.Rank) bool, suspected func(h, x core.Rank), sent func(from, to core.Rank, m core.Message)) error {
	type env struct {
		from, to core.Rank
		m        core.Message
	}
	var q []env
	timers := make([][]uint64, len(nodes))
	step := func(h core.Rank, ev core.Event) error {
		before := nodes[h].Suspected().Union(nodes[h].Declared())
		eff, err := nodes[h].Step(ev, nil)
		if err != nil {
			return err
		}
		if suspected != nil {
			nodes[h].Suspected().Union(nodes[h].Declared()).Each(func(x core.Rank) {
				if !before.Has(x) {
					suspected(h, x)
				}
			})
		}
		for _, e := range eff {
			switch e.Kind {
			case core.EffSend:
				q = append(q, env{h, e.To, e.Msg})
			case core.EffSetTimer:
				if e.Timer != fd.TimerGossip {
					timers[h] = append(timers[h], e.Timer)
				}
			}
		}
		return nil
	}
	for h := range core.Rank(len(nodes)) {
		if live(h) {
			if err := step(h, core.Timer(fd.TimerGossip)); err != nil {
				return err
			}
		}
	}
	for len(q) > 0 {
		e := q[0]
		q = q[1:]
		if sent != nil {
			sent(e.from, e.to, e.m)
		}
		if live(e.to) {
			if err := step(e.to, core.Receive(e.from, e.m)); err != nil {
				return err
			}
		}
	}
	for h, ts := range timers {
		for _, id := range ts {
			if err := step(core.Rank(h), core.Timer(id)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Encode appends G, the first false suspicion (a flag, then observer,
// suspected host and round), then per host its crash round and state.
func (m *CheckModel) Encode(b []byte, s *RoundState) []byte {
	b = core.AppendUint(b, uint64(s.G))
	b = core.AppendBool(b, s.FalseSuspicion != nil)
	if f := s.FalseSuspicion; f != nil {
		for _, x := range f {
			b = core.AppendUint(b, uint64(x))
		}
	}
	for h, n := range s.Nodes {
		b = core.AppendUint(b, uint64(s.Crashed[h]))
		b = n.AppendBinary(b)
	}
	return b
}

// Quiescent: the horizon is reached.
func (m *CheckModel) Quiescent(s *RoundState) bool { return s.G >= m.cfg.Horizon }

// Describe says what a does.
func (m *CheckModel) Describe(s *RoundState, a checker.Action) string {
	if a.Kind == actCrash {
		return fmt.Sprintf("p%d crashes before round %d", a.P, s.G+1)
	}
	next, err := m.Apply(s, a)
	if err != nil {
		return err.Error()
	}
	var news []string
	for h, n := range next.Nodes {
		if next.Crashed[h] != 0 {
			continue
		}
		if d := n.Declared(); !d.Equal(s.Nodes[h].Declared()) {
			news = append(news, fmt.Sprintf("p%d declares %v", h, d))
		}
		if su := n.Suspected(); !su.Equal(s.Nodes[h].Suspected()) && !su.Empty() {
			news = append(news, fmt.Sprintf("p%d suspects %v", h, su))
		}
	}
	if len(news) == 0 {
		return fmt.Sprintf("round %d: no new declaration or suspicion", s.G+1)
	}
	return fmt.Sprintf("round %d: %s", s.G+1, strings.Join(news, "; "))
}

// Properties: accuracy, no-false-suspicion, completeness, and under fixed
// routing suspicion-round.
func (m *CheckModel) Properties() []checker.Property[*RoundState] { return m.props }

func (m *CheckModel) accuracy(s *RoundState) error {
	for h, n := range s.Nodes {
		if s.Crashed[h] != 0 {
			continue
		}
		var bad error
		n.Declared().Each(func(x core.Rank) {
			if s.Crashed[x] == 0 && bad == nil {
				bad = fmt.Errorf("live p%d declared live %v failed by round %d", h, x, s.G)
			}
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

func (m *CheckModel) noFalseSuspicion(s *RoundState) error {
	if f := s.FalseSuspicion; f != nil {
		return fmt.Errorf("live p%d suspected live p%d in round %d", f[0], f[1], f[2])
	}
	for h, n := range s.Nodes {
		if s.Crashed[h] != 0 {
			continue
		}
		for x := range core.Rank(len(s.Nodes)) {
			if s.Crashed[x] == 0 && n.Suspects(x) {
				return fmt.Errorf("live p%d suspects live %v in round %d", h, x, s.G)
			}
		}
	}
	return nil
}

func (m *CheckModel) completeness(s *RoundState) error {
	for x, c := range s.Crashed {
		if c == 0 || s.G < c+m.cfg.DetectBound-1 || !isolated(s.Crashed, x, c, m.cfg.Isolation) {
			continue
		}
		for h, n := range s.Nodes {
			if s.Crashed[h] == 0 && !n.Declared().Has(core.Rank(x)) {
				return fmt.Errorf("p%d crashed before round %d and live p%d has not declared it by round %d", x, c, h, s.G)
			}
		}
	}
	return nil
}

// Canonical is the rotation of s (states, tables, crash rounds) with the
// least encoding. Valid when the node config is rotation invariant
// (fd.Config.RotationInvariant), which NewCheckModel's callers check
// before asking for symmetry.
func (m *CheckModel) Canonical(s *RoundState) *RoundState {
	best, bestEnc := s, m.Encode(nil, s)
	n := len(s.Nodes)
	for c := 1; c < n; c++ {
		r := &RoundState{G: s.G, Nodes: make([]*fd.Node, n), Crashed: make([]int, n)}
		if f := s.FalseSuspicion; f != nil {
			r.FalseSuspicion = &[3]int{(f[0] + c) % n, (f[1] + c) % n, f[2]}
		}
		for h := range n {
			r.Nodes[(h+c)%n] = s.Nodes[h].Rotate(c)
			r.Crashed[(h+c)%n] = s.Crashed[h]
		}
		if e := m.Encode(nil, r); string(e) < string(bestEnc) {
			best, bestEnc = r, e
		}
	}
	return best
}

// SymmetryValid reports whether rotation symmetry may be used.
func (m *CheckModel) SymmetryValid() bool { return m.node.RotationInvariant() }

// isolated reports whether host x, crashed before round c, is the only
// crash from round c − 1 to round c − 2 + w (every other crash round is 0
// or ≥ c − 1 + w), or w ≤ 0.
func isolated(crashed []int, x, c, w int) bool {
	if w <= 0 {
		return true
	}
	for y, cy := range crashed {
		if y != x && cy != 0 && cy < c-1+w {
			return false
		}
	}
	return true
}
