package checker

// Symmetric is an optional interface of a Model whose states have
// symmetries (interchangeable processes, resource managers, values).
// Canonical returns the canonical representative of the symmetry class of
// s: two states are symmetric exactly when their representatives have the
// same Model.Encode. It must be a true canonical form — the same
// representative for every state of a class, whatever the order of its
// parts — or the search expands one class several times (a correct but
// larger, order-dependent count).
//
// With Options.Symmetry the visited set holds fingerprints of canonical
// representatives; the frontier and the stack keep the real states, so
// counterexamples are paths of the model itself. Properties, Quiescent and
// Actions must respect the symmetry (hold in s exactly when they hold in any
// state symmetric to s), as TLC requires of its SYMMETRY sets.
type Symmetric[S any] interface {
	Canonical(s S) S
}

// CanonicalEncoder is an optional, faster alternative to Symmetric: it
// appends the encoding of the canonical representative of s (the bytes
// Model.Encode would append for Canonical(s)) without building that state.
// When a model implements both, Options.Symmetry uses EncodeCanonical.
type CanonicalEncoder[S any] interface {
	EncodeCanonical(b []byte, s S) []byte
}

// keyer encodes the visited-set key of a state: Model.Encode, or the
// encoding of its canonical representative under symmetry.
type keyer[S any] struct {
	m     Model[S]
	canon Symmetric[S]
	enc   CanonicalEncoder[S]
}

// newKeyer returns the keyer of m under opt and whether symmetry is used.
func newKeyer[S any](m Model[S], opt Options) (keyer[S], bool) {
	k := keyer[S]{m: m}
	if !opt.Symmetry {
		return k, false
	}
	if e, ok := m.(CanonicalEncoder[S]); ok {
		k.enc = e
		return k, true
	}
	if c, ok := m.(Symmetric[S]); ok {
		k.canon = c
		return k, true
	}
	return k, false
}

// encode appends the key bytes of s.
func (k *keyer[S]) encode(b []byte, s S) []byte {
	if k.enc != nil {
		return k.enc.EncodeCanonical(b, s)
	}
	if k.canon != nil {
		s = k.canon.Canonical(s)
	}
	return k.m.Encode(b, s)
}
