package checker

// Recycler is an optional interface of a Model whose states can be given
// back for reuse once the search is done with them (for example a pool of
// the states' memory). BFS and DFS call Recycle on a successor they built
// with Apply and then dropped: in DFS one already visited (or equal to
// its parent); in BFS one already visited, equal to its parent, or (on the
// compact frontier) encoded into the queue. DFS also recycles a state it
// pops off its stack (every state it reached from it is gone by then),
// except with Options.Lassos (states set aside) and once any property has
// failed. They never recycle a state they still keep (a frontier or stack
// state, an initial state), a state a successor still in use came from, a
// state on which a transition check failed (a violation's error may refer
// to it), nor the same state twice. A model may share parts of a state
// with the states Apply derives from it: those are gone when it is
// recycled.
//
// So that this is safe, the selected properties' Check and CheckStep must
// not keep the states they are given beyond the call (every property of
// this module is a function of its arguments). Recycling must not change
// any result: counts, encodings and counterexamples are those of a search
// without it.
type Recycler[S any] interface {
	Recycle(s S)
}

// recyclerOf returns m as a Recycler, or nil.
func recyclerOf[S any](m Model[S]) Recycler[S] {
	if r, ok := m.(Recycler[S]); ok {
		return r
	}
	return nil
}
