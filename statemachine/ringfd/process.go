package ringfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Process is an application process (a core.Machine): it only records the
// failures its daemon notifies it of. Algorithm 1's FORWARDING runs at
// processes too, where "if j is a daemon" is false, so only line 5 remains:
// "Add msg to Reported_j". The notification is PMIx Event Notification in
// the paper (§4.7.1); here a Fault from the host daemon.
type Process struct {
	p        core.Rank
	cfg      *Config
	reported core.RankSet // copied on write
}

var _ core.Machine = (*Process)(nil)

// Rank is the process's rank.
func (n *Process) Rank() core.Rank { return n.p }

// Knows reports whether rank r is in Reported_p.
func (n *Process) Knows(r core.Rank) bool { return n.reported.Has(r) }

// Reported is a copy of Reported_p.
func (n *Process) Reported() core.RankSet { return n.reported.Clone() }

// EachReported calls f for each member of Reported_p in ascending order,
// without copying the set.
func (n *Process) EachReported(f func(core.Rank)) { n.reported.Each(f) }

// Step records a Fault from the host daemon. Any other event (a message from
// another rank, a call, a timer, a suspicion) is an error and changes
// nothing.
func (n *Process) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if ev.Kind != core.EvReceive {
		return out, fmt.Errorf("ringfd: process %v: unexpected event %v", n.p, ev)
	}
	m, ok := ev.Msg.(Fault)
	if !ok {
		return out, fmt.Errorf("ringfd: process %v: message %v (%T) is not a FAULT", n.p, ev.Msg, ev.Msg)
	}
	if host := n.cfg.Host(n.p); ev.From != host {
		return out, fmt.Errorf("ringfd: process %v: FAULT from %v, not its daemon %v", n.p, ev.From, host)
	}
	if err := checkFault(n.cfg, n.p, m); err != nil {
		return out, err
	}
	n.reported = union(n.reported, m.IDs)
	return out, nil
}

// Clone returns a deep copy (Reported is shared: it is copied on write).
func (n *Process) Clone() core.Machine {
	c := *n
	return &c
}

// AppendBinary appends Reported_p. The rank and Config are not encoded:
// DecodeNode takes them.
func (n *Process) AppendBinary(b []byte) []byte { return n.reported.AppendBinary(b) }

// String summarises the process, e.g. "process p9 of p1 reported={p3}".
func (n *Process) String() string {
	return fmt.Sprintf("process %v of %v reported=%v", n.p, n.cfg.Host(n.p), n.reported)
}
