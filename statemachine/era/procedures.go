package era

import "github.com/ftkernel/ftkernel/core"

// agreementProc is Procedure Agreement(v, a):
//
//	Status ← gathering; Contributed ← Contributed ∪ {p}; Current ← F(Current, v)
//	Wait Until Result ≠ ⊥ Then return Result
//
// The wait is the Return effect, emitted by decision or, if Result is
// already set, at once.
//
// Ambiguity: a process may receive DOWN from its parent, and decide, before
// it calls Agreement (Recv(DOWN) does not look at Status). The call then
// returns at once ("Wait Until" holds) with a decision that may not include
// v. The three assignments are still made, literally; the process then
// proceeds through DC to broadcasting like any other, and decision's
// at-most-once guard keeps Result.
func (n *Node) agreementProc(v Value, a uint64, out []core.Effect) []core.Effect {
	g := n.get(a)
	g.input = v
	if g.result != nil {
		out = append(out, core.Return(a, g.result))
		if n.cfg.GC {
			n.collect(g)
			return out
		}
	}
	g.status = Gathering
	addTo(&g.contributed, n.p)
	g.current = n.combine(g.current, v) // mutant hook
	return out
}

// decision is Procedure Decision(v, a):
//
//	Result ← v
//	for n ∈ Children(S_p, p) ∪ RequestedResult do Send(DOWN(a, Result)) to n
//	RequestedResult ← ∅
//
// It emits core.Decide(a, v), and core.Return(a, v) if Agreement(·, a) was
// called. Ambiguity: the paper writes DOWN(c, Result), a typo for a.
// Ambiguity: the paper says each process calls Decision "once, and only
// once", but the literal rules can reach DC again at a process that
// already decided (after a DOWN received in gathering); a second call does
// nothing, so Result is never overwritten (Theorem 1, Irrevocability).
func (n *Node) decision(v Value, g *agreement, out []core.Effect) []core.Effect {
	if g.result != nil {
		return out
	}
	g.result = v
	out = append(out, core.Decide(g.a, v))
	to := n.viewOf(g).kids
	if answered := n.requestsAnswered(g); !answered.Empty() { // mutant hook
		to = to.Union(answered)
	}
	to.Each(func(q core.Rank) { out = n.send(q, Down{A: g.a, V: v}, out) })
	g.requested = core.RankSet{}
	if g.called() {
		out = append(out, core.Return(g.a, v))
		if n.cfg.GC {
			n.collect(g)
		}
	}
	return out
}

// ackAgree is a call AckAgree(flag, a): MPIX_Comm_failure_ack then
// MPIX_Comm_agree(flag), as Figure 3's stabilization loop (lines 19–25)
// calls them. §1.1: the failures a process acknowledged before entering the
// agreement are part of what it brings to it ("if the failure of a process
// is known and acknowledged by all participants before entering the
// agreement, no exception is raised"). The failures p knows and
// acknowledges are S_p, those it has been told about, so the call is
// procedure Agreement with v = (flag, S_p, S_p); the resolved v is kept as
// the call's input (Node.Input).
func (n *Node) ackAgree(c AckAgree, out []core.Effect) []core.Effect {
	return n.agreementProc(NewContribution(c.Flag, n.dead, n.dead), c.A, out)
}
