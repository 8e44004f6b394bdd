package era

import "github.com/ftkernel/ftkernel/core"

// recvUp is ERA Part 2, Rule Recv(UP(a, v)) from q:
//
//	if Status = notcontributed ∨ Status = gathering then
//	    Current ← F(Current, v); Contributed ← Contributed ∪ {q}
//	else if Result ≠ ⊥ then Send(DOWN(a, Result)) to q
//
// Two ambiguities are resolved against the literal pseudocode, which fails
// Termination in both cases (the pseudocode is MutantUpNotRemembered):
//
// A process that has decided answers DOWN(a, Result) whatever its Status.
// The prose says "if the decision was already made, the process reacts by
// re-sending the DOWN message", but the pseudocode tests Status first, and a
// process can decide while gathering (a new root deciding on its children's
// DOWN, see recvDown) or before calling Agreement; it would absorb the UP of
// a child adopted later and never answer it (N=8 star: p1 becomes root,
// decides on p4's DOWN while gathering, and absorbs p6's UP). Under the
// garbage collection of §3 this is also what a collected agreement must do:
// its Status reads notcontributed again.
//
// An undecided process remembers, in RequestedResult, the sender q of an
// UP that is not a child in S_p. The prose says waiting "will trigger the
// answer to the requesting child", but Decision answers only Children(S_p,
// p) ∪ RequestedResult, and q's parent may have died without p knowing yet;
// if p decides before it discovers that death, q never decides (N=4 binary:
// p1 and p2 crash, p3 discovers p1 dead and sends UP to p0, which absorbs
// it, decides on p1's in-flight UP and sends DOWN to p1 only).
func (n *Node) recvUp(q core.Rank, m Up, out []core.Effect) []core.Effect {
	g := n.get(m.A)
	switch {
	case g.result != nil && !n.absorbsDecidedUp(g): // mutant hook
		out = n.send(q, Down{A: m.A, V: g.result}, out)
	case g.status == NotContributed || g.status == Gathering:
		g.current = n.combineUp(g.current, m.V) // mutant hook
		addTo(&g.contributed, q)
		n.rememberUp(g, q)
	default:
		n.rememberUp(g, q)
	}
	return out
}

// rememberUp records the sender q of an UP that is not a child in S_p, so
// that Decision answers it (see recvUp).
func (n *Node) rememberUp(g *agreement, q core.Rank) {
	if n.forgetsUp() { // mutant hook
		return
	}
	if v := n.viewOf(g); !v.known || !v.kids.Has(q) {
		addTo(&g.requested, q)
	}
}

// recvDown is ERA Part 2, Rule Recv(DOWN(a, v)) from q:
//
//	if Result = ⊥ ∧ q = Parent(S_p, p) then Decision(v, a)
//
// Ambiguity: a root has no parent, so the literal guard ignores every DOWN
// at a root, including the answers of its children to its RESULTREQUEST;
// the proof of Theorem 2 needs them ("this process will answer to p with a
// DOWN(a, v2) message, and p will decide v2"). Without them a new root whose
// children already decided waits forever: they answer DOWN, never UP, so DC
// never holds. A root therefore also accepts DOWN from its children. The
// literal guard is MutantRootIgnoresDown; accepting DOWN from anyone is
// MutantDownFromAnyone.
func (n *Node) recvDown(q core.Rank, m Down, out []core.Effect) []core.Effect {
	g := n.get(m.A)
	v := n.viewOf(g)
	from := q == v.parent || v.parent == core.NoRank && v.kids.Has(q) && n.rootAcceptsChildDown() // mutant hook
	if g.result == nil && (from || n.acceptsAnyDown()) {                                          // mutant hook
		out = n.decision(m.V, g, out)
	}
	return out
}

// recvResultRequest is ERA Part 2, Rule Recv(RESULTREQUEST(a)) from q:
//
//	forall r < q do S_p[r] ← dead
//	if Result ≠ ⊥ then Send(DOWN(a, Result)) to q
//	else if Status = broadcasting then Send(UP(a, Current)) to q
//	else RequestedResult ← RequestedResult ∪ {q}
//
// Only a root sends RESULTREQUEST, and a root's elders are dead (proof of
// Lemma 1). Ambiguity: when p < q the literal rule marks p itself dead; a
// running process is alive (Lemma 1.3), so p is left out.
// Ambiguity: the pseudocode only assigns S_p[r], but each r newly marked
// dead is a process discovered dead, so the rule of Part 4 runs for it, in
// ascending r. Otherwise the failure detector's later report finds r
// already dead and Part 4 does nothing, and a process whose parent r was
// marked here never sends UP to its new parent (Termination fails: N=6
// binary; p4's parent p2 becomes root, sends RESULTREQUEST and dies; p3
// becomes root and its RESULTREQUEST(a=0) marks p2 dead at p4, which never
// re-sends its contribution to a=1). The literal assignment is
// MutantMarkEldersSilently.
//
// Finding (the paper's rule, not our reading, breaks Theorem 2): the rule
// also marks dead the initial ancestors of p above q in a's tree, the ranks
// Parent(S_p, p) would choose before q (see requestMarks). With r < q alone,
// an ancestor d > q that died after forwarding an old root's decision stays
// Parent(S_p, p): p answers UP, q decides on it, and d's late DOWN then makes
// p decide the old value (N = 4, bin/bin, node size 2, 2 crashes: 15 steps;
// testdata/finding_orphaned_down.txt at N = 8 flat). The literal r < q is
// MutantRequestEldersOnly.
func (n *Node) recvResultRequest(q core.Rank, m ResultRequest, out []core.Effect) []core.Effect {
	out = n.markEldersDead(q, m.A, out)
	g := n.get(m.A)
	switch {
	case g.result != nil:
		out = n.send(q, Down{A: m.A, V: g.result}, out)
	case g.status == Broadcasting && !n.recordsInsteadOfUp(): // mutant hook
		out = n.send(q, Up{A: m.A, V: g.current}, out)
	default:
		addTo(&g.requested, q)
	}
	return out
}

// markEldersDead is "forall r < q do S_p[r] ← dead" of Rule
// Recv(RESULTREQUEST(a)) from q, completed by the ancestors of p above q
// (requestMarks), each newly marked r discovered dead (Part 4), in
// ascending r (see recvResultRequest).
func (n *Node) markEldersDead(q core.Rank, a uint64, out []core.Effect) []core.Effect {
	if n.marksEldersOtherwise(q) { // mutant hook
		return out
	}
	// Part 4 acts only when r is the parent or a child; marking any other
	// rank changes neither Parent(S_p, p) nor Children(S_p, p) (a rank's
	// orphans go to its own parent), so it is just marked. Ascending r
	// marks the ancestors above q from the farthest to the nearest: only
	// the last is the parent, so p re-sends its UP once (to q).
	n.requestMarks(q, a).Each(func(r core.Rank) {
		switch {
		case n.dead.Has(r):
		case n.inSomeTree(r):
			out = n.discoveredDead(r, out)
		default:
			addTo(&n.dead, r)
		}
	})
	n.refreshTree()
	return out
}

// requestMarks is the set of ranks that Rule Recv(RESULTREQUEST(a)) from q
// marks dead at p: every r < q but p (the paper's "forall r < q"), and
// every initial ancestor of p in a's tree (the rebuilt one under
// Config.Rebalance, once known) whose rank is above q.
//
// Finding: the paper's rule marks only r < q, which lets p accept a DOWN
// from an ancestor d > q that died after forwarding an earlier root's
// decision, once p has answered q's RESULTREQUEST with UP: Theorem 2 fails
// (docs/era.md, "Finding"). The completion is sound (Lemma 1.3 still
// holds: only dead ranks are marked): a root q sends RESULTREQUEST(a) to n
// only when Parent(S_q, n) = q in a's tree (Part 4's first rule: n ∈
// Children(S_q, q); the second: n ∈ Children(S'_q, c) for a child c of q
// now dead, whose parent in S_q is then q, since the chain of initial
// ancestors of n continues with that of c). Parent is the first rank not
// marked dead in the fixed order "initial ancestors of n, nearest first,
// then the members below n, ascending", so every rank before q in that
// order, an initial ancestor above q among them, is in S_q: dead, by
// Lemma 1.3 at q. Dead stays dead, so the inference holds however late
// the message arrives.
//
// The completion is left out when q is the initial root of a's tree, where
// the paper's rule cannot fail: the initial root has no parent, so it sends
// RESULTREQUEST(a) only by Part 4's second rule, gathering and undecided;
// every decision originates in a root's DC (Theorem 4) and no other root
// exists while it lives (Lemmas 1 and 3), so no process has decided a and
// no ancestor of p can have a DOWN(a) in flight. There Rule
// Recv(RESULTREQUEST) keeps the paper's behaviour (the r < q alone), and
// the completion changes only runs in which a later root asks past a dead
// ancestor. Under MutantRequestEldersOnly only r < q is marked.
func (n *Node) requestMarks(q core.Rank, a uint64) core.RankSet {
	var out core.RankSet
	for r := core.Rank(0); r < q; r++ {
		if r != n.p {
			out.Add(r)
		}
	}
	if n.marksEldersOnly() { // mutant hook
		return out
	}
	base, ok := n.rebuiltBase(a)
	if !ok { // a's tree is unknown: p has no parent in it yet
		return out
	}
	sh := n.shape(base)
	if q == sh.root() { // the initial root: no decision exists yet
		return out
	}
	for r := sh.initParent(n.p); r != core.NoRank && r > q; r = sh.initParent(r) {
		out.Add(r)
	}
	return out
}

// dc is the Deciding Condition of ERA Part 3:
//
//	DC = Status = gathering ∧ Children(S_p, p) ∪ {p} ⊆ Contributed
func (n *Node) dc(g *agreement, v view) bool {
	if g.status != Gathering || !g.contributed.Has(n.p) || !v.known {
		return false
	}
	return v.kids.SubsetOf(g.contributed) || n.rootDecidesAlone(v) // mutant hook
}

// spontaneous is ERA Part 3, the Spontaneous Rule, applied to every
// agreement satisfying DC, in ascending a, until none does:
//
//	if Parent(S_p, p) = ⊥ then Decision(Current, a)
//	else Send(UP(a, Current)) to Parent(S_p, p)
//	Status ← broadcasting
//
// It ends with the garbage collection of §3 when Config.GC is set.
func (n *Node) spontaneous(out []core.Effect) []core.Effect {
	for fired := true; fired; {
		fired = false
		for i := range n.ags {
			g := &n.ags[i]
			v := n.viewOf(g)
			if !n.dc(g, v) {
				continue
			}
			fired = true
			if v.parent == core.NoRank {
				out = n.decision(g.current, g, out)
			} else {
				out = n.send(v.parent, Up{A: g.a, V: g.current}, out)
			}
			g.status = Broadcasting
		}
	}
	for i := range n.ags {
		if g := &n.ags[i]; n.collected(g) {
			n.collect(g)
		}
	}
	return out
}

// discoveredDead is ERA Part 4, Rule "Process q is discovered dead":
//
//	S'_p ← S_p; S_p[q] ← dead
//	forall a s.t. Status = broadcasting ∧ q = Parent(S_p, p) do
//	    if Parent(S_p, p) = ⊥ then
//	        Contributed ← {p}; Status ← gathering
//	        for n ∈ Children(S_p, p) do Send(RESULTREQUEST(a)) to n
//	    else Send(UP(a, Current)) to Parent(S_p, p)
//	forall a s.t. q ∈ Children(S'_p, p) ∧ Parent(S'_p, p) = ⊥ ∧ Status = gathering do
//	    for n ∈ Children(S'_p, q) do Send(RESULTREQUEST(a)) to n
//
// Ambiguity: in the first rule's guard, q = Parent(S_p, p) is read with
// S'_p (q was the parent): after S_p[q] ← dead, Parent(S_p, p) is never q
// and the rule would be dead code. The body uses the new S_p, literally.
// Ambiguity: the first rule applies only to agreements not yet decided
// (Result = ⊥), the "ongoing agreement" of the prose: a decided process
// that became root would re-enter gathering, absorb the UPs of undecided
// adopted children and, Decision running at most once, never answer them;
// staying broadcasting, it answers their UP with DOWN (Rule Recv(UP)).
// The second rule is literal: S'_p, the view before q is marked dead.
// Discovering a rank already marked dead changes nothing.
func (n *Node) discoveredDead(q core.Rank, out []core.Effect) []core.Effect {
	if n.dead.Has(q) {
		return out
	}
	oldDead := n.dead // S'_p (markDead replaces n.dead: copy on write)
	olds := n.views(oldDead)
	n.markDead(q)
	resent := 0
	for i := range n.ags {
		g := &n.ags[i]
		if g.status != Broadcasting || g.result != nil || q != olds.of(i).parent {
			continue
		}
		if v := n.viewOf(g); v.parent == core.NoRank {
			g.contributed = core.RankSet{}
			addTo(&g.contributed, n.p)
			g.status = Gathering
			v.kids.Each(func(c core.Rank) { out = n.send(c, ResultRequest{A: g.a}, out) })
		} else if !n.skipsUpToNewParent() && n.resendsAgain(resent) { // mutant hooks
			out = n.send(v.parent, Up{A: g.a, V: g.current}, out)
			resent++
		}
	}
	if n.skipsGrandchildren() { // mutant hook
		return out
	}
	var grandchildren core.RankSet // Children(S'_p, q), in the configured tree
	computed := false
	for i := range n.ags {
		g := &n.ags[i]
		old := olds.of(i)
		if g.status != Gathering || old.parent != core.NoRank || !old.kids.Has(q) {
			continue
		}
		if base, _ := n.rebuiltBase(g.a); !base.Empty() {
			n.childrenIn(g, oldDead, q).Each(func(c core.Rank) { out = n.send(c, ResultRequest{A: g.a}, out) })
			continue
		}
		if !computed {
			grandchildren = mendedChildren(n.shape(core.RankSet{}), oldDead, q)
			computed = true
		}
		grandchildren.Each(func(c core.Rank) { out = n.send(c, ResultRequest{A: g.a}, out) })
	}
	return out
}
