package era

import "github.com/ftkernel/ftkernel/core"

// collect is the garbage collection of §3: once Agreement(·, a) returned,
// RequestedResult, Current, Status and Contributed "have no further use and
// can be reclaimed"; Result is kept, since it "can be requested by another
// participant long after the result was locally returned". The paper's
// second mechanism, agreeing on a range of returned agreements to dispose
// of Result too, is not implemented. The caller's input (Node.Input) is not
// an ERA variable but the application's argument, and is kept too.
func (g *agreement) collect() {
	g.status = NotContributed
	g.current = nil
	g.contributed = core.RankSet{}
	g.requested = core.RankSet{}
}

// collect reclaims a's variables (see agreement.collect).
func (n *Node) collect(g *agreement) {
	g.collect()
	n.dropResult(g) // mutant hook
}

// collected reports whether a's variables were reclaimed by collect.
func (n *Node) collected(g *agreement) bool {
	return n.cfg.GC && g.called() && g.result != nil
}
