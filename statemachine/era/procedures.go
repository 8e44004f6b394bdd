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
	g.called = true
	if g.result != nil {
		out = append(out, core.Return(a, g.result))
		if n.cfg.GC {
			n.collect(g)
			return out
		}
	}
	g.status = Gathering
	addTo(&g.contributed, n.p)
	g.current = n.cfg.Op.Combine(g.current, n.contribution(v))
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
	if g.called {
		out = append(out, core.Return(g.a, v))
		if n.cfg.GC {
			n.collect(g)
		}
	}
	return out
}
