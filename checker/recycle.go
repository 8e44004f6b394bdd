package checker

// Recycler is an optional interface of a Model whose states can be given
// back for reuse once the search is done with them (for example a pool of
// the states' memory). BFS and DFS call Recycle on a successor they built
// with Apply and then dropped: in DFS one already visited (or equal to
// its parent); in BFS one already visited, equal to its parent, or (on the
// compact frontier) encoded into the queue. They never recycle a state
// they keep (a frontier or stack state, an initial state), a state they
// gave to Apply, a state whose Apply or transition check failed (a
// violation's error may refer to it), nor the same state twice.
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
