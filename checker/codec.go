package checker

// Codec is the optional interface of a Model whose states can be decoded
// from their canonical encoding. With it BFS keeps its frontier compact
// (queue.go): each queued state is held as the bytes of Encode (the bytes
// its fingerprint is computed from), in blocks of consecutive states, and
// rebuilt with Decode when it is expanded; a queue over its memory budget
// goes to disk (Options.SpillDir), and a checkpoint can hold it
// (Options.Checkpoint).
//
// Decode must invert Encode for every reachable state s: Decode(Encode(s))
// is a state that Encode, Actions, Apply, Quiescent and every property treat
// exactly as s. Malformed bytes are an error, never a panic. Decodes reports
// whether this instance can decode at all (a model whose decoders are hooks
// may lack them); when it is false the search keeps whole states.
type Codec[S any] interface {
	Encode(b []byte, s S) []byte
	Decode(b []byte) (S, error)
	Decodes() bool
}

// codecOf returns m's Codec when the compact frontier applies to this run:
// the model decodes, Options.WholeStates is off, and the run is not a BFS
// with sleep sets (whose frontier entries carry sleep sets and todo lists).
func codecOf[S any](m Model[S], opt Options) Codec[S] {
	c, ok := m.(Codec[S])
	if !ok || opt.WholeStates || !c.Decodes() {
		return nil
	}
	return c
}
