package era

import "github.com/ftkernel/ftkernel/core"

// Rank is p.
func (n *Node) Rank() core.Rank { return n.p }

// Config is the node's configuration, defaults filled in.
func (n *Node) Config() Config { return n.cfg }

// Dead is a copy of S_p: the ranks p has marked dead.
func (n *Node) Dead() core.RankSet { return n.dead.Clone() }

// Parent is Parent(S_p, p), core.NoRank at the root.
func (n *Node) Parent() core.Rank { return n.parent }

// Children is a copy of Children(S_p, p).
func (n *Node) Children() core.RankSet { return n.kids.Clone() }

// Agreements lists, ascending, the agreements whose variables are not all
// at their defaults.
func (n *Node) Agreements() []uint64 {
	out := make([]uint64, len(n.ags))
	for i, g := range n.ags {
		out[i] = g.a
	}
	return out
}

// Result is Result_p^a, nil for ⊥.
func (n *Node) Result(a uint64) Value {
	if g := n.lookup(a); g != nil {
		return g.result
	}
	return nil
}

// Current is Current_p^a, nil for ⊥.
func (n *Node) Current(a uint64) Value {
	if g := n.lookup(a); g != nil {
		return g.current
	}
	return nil
}

// Status is Status_p^a.
func (n *Node) Status(a uint64) Status {
	if g := n.lookup(a); g != nil {
		return g.status
	}
	return NotContributed
}

// Contributed is a copy of Contributed_p^a.
func (n *Node) Contributed(a uint64) core.RankSet {
	if g := n.lookup(a); g != nil {
		return g.contributed.Clone()
	}
	return core.RankSet{}
}

// RequestedResult is a copy of RequestedResult_p^a.
func (n *Node) RequestedResult(a uint64) core.RankSet {
	if g := n.lookup(a); g != nil {
		return g.requested.Clone()
	}
	return core.RankSet{}
}

// Called reports whether the application called Agreement(v, a).
func (n *Node) Called(a uint64) bool {
	g := n.lookup(a)
	return g != nil && g.called()
}

// Returned reports whether Agreement(v, a) has returned: it was called and
// Result_p^a ≠ ⊥.
func (n *Node) Returned(a uint64) bool {
	g := n.lookup(a)
	return g != nil && g.called() && g.result != nil
}

// Input is the argument v of p's call Agreement(v, a), nil if p has not
// called it. For an AckAgree call it is the contribution resolved at the
// call, (flag, S_p, S_p). It survives the garbage collection of §3.
func (n *Node) Input(a uint64) Value {
	if g := n.lookup(a); g != nil {
		return g.input
	}
	return nil
}
