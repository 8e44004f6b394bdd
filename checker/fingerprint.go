package checker

import "github.com/ftkernel/ftkernel/core"

// Fingerprinter is an optional interface of a Model that computes the
// fingerprint of a state without encoding it, typically from parts cached
// in the state. Fingerprint(s) must be a function of Model.Encode(s) — equal
// encodings, equal fingerprints — that separates unequal encodings as well
// as a 64-bit hash does; it need not equal core.Fingerprint(Encode(s)).
// Without Options.Symmetry, BFS and DFS key their visited sets with it.
type Fingerprinter[S any] interface {
	Fingerprint(s S) uint64
}

// fingerprint returns the visited-set fingerprint of s: the model's
// Fingerprint when it has one (and symmetry is off), else the hash of the
// key bytes, which it encodes into *buf (reused).
func (x *search[S]) fingerprint(buf *[]byte, s S) uint64 {
	if !x.sym {
		if f, ok := x.m.(Fingerprinter[S]); ok {
			return f.Fingerprint(s)
		}
	}
	*buf = x.key.encode((*buf)[:0], s)
	return core.Fingerprint(*buf)
}
