package ringfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Daemon is the runtime daemon of one node (a core.Machine): the observer
// of its ring predecessor, the heartbeat emitter to its observer, the local
// observer of its hosted processes and a BMG broadcaster.
//
// Its variables are those of §4.5 and Table 1: pred (the daemon it
// observes), obs (the daemon it sends heartbeats to), the next heartbeat
// number, the highest heartbeat number received from pred, the freshness
// index (Freshness only) and Reported_i.
type Daemon struct {
	d   core.Rank
	cfg *Config

	started  bool
	pred     core.Rank // ⊥ when no live daemon is left to observe
	obs      core.Rank // ⊥ only when N = 1
	hbSeq    uint64    // next heartbeat number to emit, from 1
	lastSeq  uint64    // highest heartbeat number from pred since adopted
	fresh    uint64    // Freshness: index i of the last freshness point τ_i + η passed
	reported core.RankSet
	// reported is copied on write (addReported), never changed in place,
	// so clones share it.
}

var _ core.Machine = (*Daemon)(nil)

func newDaemon(d core.Rank, c *Config) *Daemon {
	n := &Daemon{d: d, cfg: c, pred: core.NoRank, obs: core.NoRank, hbSeq: 1}
	if c.N > 1 {
		n.pred = c.initialPred(d)
		n.obs = c.RingSucc(d)
	}
	return n
}

// Rank is the daemon's rank d.
func (n *Daemon) Rank() core.Rank { return n.d }

// Pred is the daemon it observes, or core.NoRank.
func (n *Daemon) Pred() core.Rank { return n.pred }

// Obs is the daemon it sends heartbeats to (its observer), or core.NoRank.
func (n *Daemon) Obs() core.Rank { return n.obs }

// Knows reports whether rank r is in Reported_d.
func (n *Daemon) Knows(r core.Rank) bool { return n.reported.Has(r) }

// Reported is a copy of Reported_d.
func (n *Daemon) Reported() core.RankSet { return n.reported.Clone() }

// EachReported calls f for each member of Reported_d in ascending order,
// without copying the set.
func (n *Daemon) EachReported(f func(core.Rank)) { n.reported.Each(f) }

// addReported is Reported_i ← Reported_i ∪ m. The set is copied on write;
// when m already holds all of Reported_i it is shared instead (a Fault's set
// is never changed after it is sent).
func (n *Daemon) addReported(m core.RankSet) {
	n.reported = union(n.reported, m)
}

// union is s ∪ m, sharing s or m when one holds the other.
func union(s, m core.RankSet) core.RankSet {
	switch {
	case m.SubsetOf(s):
		return s
	case s.SubsetOf(m):
		return m
	}
	return s.Union(m)
}

// Step applies one event (see the package documentation for the events a
// runtime delivers). Impossible events (a second Start, a timer before
// Start or of an unknown id, a message from a process or out of range, a
// Fault naming a rank out of range, a Suspect of a process this daemon does
// not host) give an error and change nothing.
func (n *Daemon) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if err := n.check(ev); err != nil {
		return out, err
	}
	switch ev.Kind {
	case core.EvCall:
		out = n.start(out)
	case core.EvTimer:
		if ev.Timer == TimerHeartbeat {
			out = n.heartbeatTick(out)
		} else {
			out = n.observeTimer(out)
		}
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case HB:
			out = n.recvHB(ev.From, m, out)
		case HBRequest:
			out = n.recvHBRequest(ev.From, out)
		case Fault:
			out = n.forwarding(m.IDs, out)
		}
	case core.EvSuspect:
		out = n.localProcExit(ev.Peer, out)
	}
	return out, nil
}

func (n *Daemon) check(ev core.Event) error {
	c := n.cfg
	switch ev.Kind {
	case core.EvCall:
		if _, ok := ev.Input.(Start); !ok {
			return fmt.Errorf("ringfd: daemon %v: input %v (%T) is not Start", n.d, ev.Input, ev.Input)
		}
		if n.started {
			return fmt.Errorf("ringfd: daemon %v: started twice", n.d)
		}
		return nil
	case core.EvTimer:
		if ev.Timer != TimerHeartbeat && ev.Timer != TimerObserve {
			return fmt.Errorf("ringfd: daemon %v: unknown timer %d", n.d, ev.Timer)
		}
		if !n.started {
			return fmt.Errorf("ringfd: daemon %v: timer %d before Start", n.d, ev.Timer)
		}
		return nil
	case core.EvReceive:
		if !c.IsDaemon(ev.From) {
			return fmt.Errorf("ringfd: daemon %v: message %v from %v, not a daemon (N=%d)", n.d, ev.Msg, ev.From, c.N)
		}
		switch m := ev.Msg.(type) {
		case HB:
			if m.Seq == 0 || (c.SeqWindow != 0 && m.Seq > c.SeqWindow) {
				return fmt.Errorf("ringfd: daemon %v: heartbeat number %d outside 1..%d", n.d, m.Seq, c.SeqWindow)
			}
		case HBRequest:
		case Fault:
			return n.checkFault(m)
		default:
			return fmt.Errorf("ringfd: daemon %v: message %v (%T) is not a ringfd message", n.d, ev.Msg, ev.Msg)
		}
		if ev.From == n.d {
			return fmt.Errorf("ringfd: daemon %v: %v from itself", n.d, ev.Msg)
		}
		return nil
	case core.EvSuspect:
		if !c.IsProcess(ev.Peer) || c.Host(ev.Peer) != n.d {
			return fmt.Errorf("ringfd: daemon %v: Suspect(%v): only hosted processes are observed locally", n.d, ev.Peer)
		}
		return nil
	}
	return fmt.Errorf("ringfd: daemon %v: unexpected event %v", n.d, ev)
}

// checkFault rejects an empty Fault or one naming a rank out of range.
func checkFault(c *Config, who core.Rank, m Fault) error {
	if m.IDs.Empty() {
		return fmt.Errorf("ringfd: %v: empty FAULT", who)
	}
	bad := false
	m.IDs.Each(func(r core.Rank) { bad = bad || int(r) >= c.Ranks() })
	if bad {
		return fmt.Errorf("ringfd: %v: %v names a rank out of range 0..%d", who, m, c.Ranks()-1)
	}
	return nil
}

func (n *Daemon) checkFault(m Fault) error { return checkFault(n.cfg, n.d, m) }

// Clone returns a deep copy (Reported is shared: it is copied on write).
func (n *Daemon) Clone() core.Machine {
	c := *n
	return &c
}

// String summarises the daemon, e.g.
// "daemon p4 pred=p2 obs=p5 hb=12 last=3 reported={p3,p11}".
func (n *Daemon) String() string {
	s := fmt.Sprintf("daemon %v pred=%v obs=%v hb=%d last=%d", n.d, n.pred, n.obs, n.hbSeq, n.lastSeq)
	if n.cfg.Trust == Freshness {
		s += fmt.Sprintf(" fresh=%d", n.fresh)
	}
	if !n.started {
		s += " unstarted"
	}
	return s + " reported=" + n.reported.String()
}
