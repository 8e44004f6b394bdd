package era

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Status is Status_p^a of ERA Part 1.
type Status uint8

const (
	// NotContributed: p has not called Agreement(v, a) (the default).
	NotContributed Status = iota
	// Gathering: p waits for its children's contributions (DC).
	Gathering
	// Broadcasting: p sent its contribution up, or decided.
	Broadcasting
)

// String is the paper's name: "notcontributed", "gathering" or
// "broadcasting".
func (s Status) String() string {
	switch s {
	case NotContributed:
		return "notcontributed"
	case Gathering:
		return "gathering"
	case Broadcasting:
		return "broadcasting"
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// agreement holds the variables of ERA Part 1 for one agreement a, plus
// the application's argument v of Agreement(v, a), ⊥ until it calls.
type agreement struct {
	a           uint64
	status      Status       // Status_p^a
	input       Value        // v of Agreement(v, a) (resolved, see AckAgree); ⊥ = not called
	result      Value        // Result_p^a, ⊥ = nil
	current     Value        // Current_p^a, ⊥ = nil
	contributed core.RankSet // Contributed_p^a
	requested   core.RankSet // RequestedResult_p^a
}

// called reports whether the application called Agreement(v, a).
func (g *agreement) called() bool { return g.input != nil }

// isDefault reports whether every variable has its initial value, so the
// record need not be stored (and must not be, for a canonical encoding).
func (g *agreement) isDefault() bool {
	return g.status == NotContributed && g.input == nil && g.result == nil &&
		g.current == nil && g.contributed.Empty() && g.requested.Empty()
}

// addTo puts r in *s, copying the set first: the rank sets of a Node (S_p,
// Contributed, RequestedResult) are copied on write, never changed in
// place, so that clones share them.
func addTo(s *core.RankSet, r core.Rank) {
	if s.Has(r) {
		return
	}
	c := s.Clone()
	c.Add(r)
	*s = c
}

// Node is one ERA process p (a core.Machine).
type Node struct {
	p    core.Rank
	cfg  Config
	dead core.RankSet // S_p: the ranks marked dead
	ags  []agreement  // ascending a; no record at its defaults
	// one holds ags when it has at most one record (the common case),
	// so that a clone is one allocation, not two. Only clone points ags
	// into it, capacity capped: a second record moves ags to the heap.
	one [1]agreement

	// Derived from dead by refreshTree; kids is replaced, never changed in
	// place, so clones may share it (as they share dead and the sets of
	// ags: see addTo).
	parent core.Rank    // Parent(S_p, p)
	kids   core.RankSet // Children(S_p, p)
}

var _ core.Machine = (*Node)(nil)

// refreshTree recomputes Parent(S_p, p) and Children(S_p, p) after S_p
// changed.
func (n *Node) refreshTree() {
	sh := n.shape(core.RankSet{})
	n.parent = mendedParent(sh, n.dead, n.p)
	n.kids = mendedChildren(sh, n.dead, n.p)
}

// markDead sets S_p[q] ← dead.
func (n *Node) markDead(q core.Rank) {
	if !n.dead.Has(q) {
		addTo(&n.dead, q)
		n.refreshTree()
	}
}

// find is the index of agreement a in n.ags, or where it would go.
func (n *Node) find(a uint64) (int, bool) {
	return slices.BinarySearchFunc(n.ags, a, func(g agreement, a uint64) int {
		return cmp.Compare(g.a, a)
	})
}

// get returns the record of agreement a, creating it at its defaults. The
// pointer is valid until the next get.
func (n *Node) get(a uint64) *agreement {
	i, ok := n.find(a)
	if !ok {
		n.ags = slices.Insert(n.ags, i, agreement{a: a})
	}
	return &n.ags[i]
}

// lookup returns the record of agreement a, or nil.
func (n *Node) lookup(a uint64) *agreement {
	if i, ok := n.find(a); ok {
		return &n.ags[i]
	}
	return nil
}

// prune drops the records that are back at their defaults.
func (n *Node) prune() {
	n.ags = slices.DeleteFunc(n.ags, func(g agreement) bool { return g.isDefault() })
}

// Step applies one event: a call Agreement(v, a) (core.Call of a
// Contribute, or of an AckAgree under the ULFM Op), a message (core.Receive of Up, Down or ResultRequest), or a
// failure discovery (core.Suspect). It then applies the spontaneous rule of
// ERA Part 3 until no agreement satisfies DC. Impossible events (a rank out
// of range, a message from self, another protocol's message, a value of
// another Op, a second call for the same a, Suspect of self, timers) give an
// error and change nothing.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if err := n.check(ev); err != nil {
		return out, err
	}
	switch ev.Kind {
	case core.EvCall:
		switch c := ev.Input.(type) {
		case Contribute:
			out = n.agreementProc(c.V, c.A, out)
		case AckAgree:
			out = n.ackAgree(c, out)
		}
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case Up:
			out = n.recvUp(ev.From, m, out)
		case Down:
			out = n.recvDown(ev.From, m, out)
		case ResultRequest:
			out = n.recvResultRequest(ev.From, m, out)
		}
	case core.EvSuspect:
		out = n.discoveredDead(ev.Peer, out)
	}
	out = n.spontaneous(out)
	n.prune()
	return out, nil
}

// check rejects the impossible events, before anything changes.
func (n *Node) check(ev core.Event) error {
	switch ev.Kind {
	case core.EvCall:
		var a uint64
		switch c := ev.Input.(type) {
		case Contribute:
			if c.V == nil {
				return fmt.Errorf("era: %v: Agreement(⊥, %d): ⊥ is not a contribution", n.p, c.A)
			}
			if err := n.cfg.Op.Check(c.V, n.cfg.N); err != nil {
				return err
			}
			a = c.A
		case AckAgree:
			if n.cfg.Op != ULFM {
				return fmt.Errorf("era: %v: %v needs the ulfm op, not %q", n.p, c, n.cfg.Op.Name())
			}
			a = c.A
		default:
			return fmt.Errorf("era: %v: input %T is not an era.Contribute or era.AckAgree", n.p, ev.Input)
		}
		if g := n.lookup(a); g != nil && g.called() {
			return fmt.Errorf("era: %v: Agreement called twice for a=%d", n.p, a)
		}
		return n.checkCall(a)
	case core.EvReceive:
		if !ev.From.Valid(n.cfg.N) || ev.From == n.p {
			return fmt.Errorf("era: %v: message from %v (N=%d)", n.p, ev.From, n.cfg.N)
		}
		switch m := ev.Msg.(type) {
		case Up:
			if n.validValue(m.V) {
				return nil
			}
			return n.checkValue(m, m.V)
		case Down:
			if n.validValue(m.V) {
				return nil
			}
			return n.checkValue(m, m.V)
		case ResultRequest:
			return nil
		}
		return fmt.Errorf("era: %v: message %v (%T) is not an ERA message", n.p, ev.Msg, ev.Msg)
	case core.EvSuspect:
		if !ev.Peer.Valid(n.cfg.N) || ev.Peer == n.p {
			return fmt.Errorf("era: %v: cannot discover %v dead (N=%d)", n.p, ev.Peer, n.cfg.N)
		}
		return nil
	}
	return fmt.Errorf("era: %v: unexpected event %v", n.p, ev)
}

// validValue reports whether checkValue accepts v, without building an
// error (nor boxing the message).
func (n *Node) validValue(v Value) bool {
	return v != nil && n.cfg.Op.Check(v, n.cfg.N) == nil
}

func (n *Node) checkValue(m core.Message, v Value) error {
	if v == nil {
		return fmt.Errorf("era: %v: %v carries ⊥", n.p, m)
	}
	if err := n.cfg.Op.Check(v, n.cfg.N); err != nil {
		return fmt.Errorf("era: %v: %v: %w", n.p, m, err)
	}
	return nil
}

// send appends "Send(m) to q". Ambiguity: the paper sends to processes
// whatever their state; a message to a process p already marks dead
// (S_p[q] = dead, which by Lemma 1 means q is dead) could never be received
// under fail-stop, so it is not sent.
func (n *Node) send(q core.Rank, m core.Message, out []core.Effect) []core.Effect {
	if n.dead.Has(q) {
		return out
	}
	return append(out, core.Send(q, m))
}

// Clone returns a deep copy.
func (n *Node) Clone() core.Machine { return n.clone() }

func (n *Node) clone() *Node {
	c := *n
	// The records are copied; their rank sets, like dead and kids, are
	// shared: they are copied on write (addTo).
	if len(n.ags) <= len(c.one) {
		copy(c.one[:], n.ags)
		c.ags = c.one[:len(n.ags):len(c.one)]
	} else {
		c.ags = slices.Clone(n.ags)
	}
	return &c
}

// String summarises the node on one line, e.g.
// "era p1 dead={} parent=p0 | a0 gathering cur=0x1 res=⊥ contrib={p1} req={}".
func (n *Node) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "era %v dead=%v parent=%v", n.p, n.dead, n.parent)
	for _, g := range n.ags {
		fmt.Fprintf(&b, " | a%d %v", g.a, g.status)
		if g.called() {
			b.WriteString(" called")
		}
		fmt.Fprintf(&b, " cur=%v res=%v contrib=%v req=%v", bot(g.current), bot(g.result), g.contributed, g.requested)
	}
	return b.String()
}

// bot formats ⊥ for nil values.
func bot(v Value) any {
	if v == nil {
		return "⊥"
	}
	return v
}
