package env

import "encoding/binary"

// framer reads the framing of encoded processes (counts, lengths and
// varints) without decoding them, for Decode: faster than a core.Decoder,
// and only a first pass (decodeProc validates what it reads again).
type framer struct {
	b   []byte
	i   int
	bad bool
}

func (f *framer) uint() uint64 {
	if f.i < len(f.b) {
		if c := f.b[f.i]; c < 0x80 { // one byte: the common case
			f.i++
			return uint64(c)
		}
	}
	return f.uvarint()
}

// uvarint reads a varint of any length.
func (f *framer) uvarint() uint64 {
	x, n := binary.Uvarint(f.b[f.i:])
	if n <= 0 {
		f.bad, f.i = true, len(f.b)
		return 0
	}
	f.i += n
	return x
}

// count reads a count, which cannot exceed the bytes left.
func (f *framer) count() int {
	n := f.uint()
	if n > uint64(len(f.b)-f.i) {
		f.bad, f.i = true, len(f.b)
		return 0
	}
	return int(n)
}

func (f *framer) skipBytes() { f.i += f.count() }

func (f *framer) byte() byte {
	if f.i >= len(f.b) {
		f.bad = true
		return 0
	}
	f.i++
	return f.b[f.i-1]
}

// skipProc reads past what appendProc wrote for one process, checking only
// the framing, and returns the bytes of its encoded call schedule
// (aliasing f.b). decodeProc validates the rest.
func (m *Model) skipProc(f *framer) []byte {
	timed := m.cfg.Timing == BoundedDelay
	f.skipBytes() // node
	k := f.count()
	for j := 0; j < k && !f.bad; j++ {
		f.uint() // sender
		f.uint() // copies
		f.skipBytes()
		if timed {
			f.uint()
		}
	}
	nd := f.count() // detected
	for j := 0; j < nd && !f.bad; j++ {
		f.uint()
	}
	start := f.i
	nc := f.count()
	for j := 0; j < nc && !f.bad; j++ {
		f.skipBytes()
	}
	sched := f.b[start:f.i]
	f.uint() // made
	f.byte() // awaiting
	nh := f.count()
	for j := 0; j < nh && !f.bad; j++ {
		f.byte()
		f.uint()
		if f.byte() != 0 {
			f.skipBytes()
		}
	}
	nt := f.count()
	for j := 0; j < nt && !f.bad; j++ {
		f.uint()
		if timed {
			f.uint()
		}
	}
	if m.cfg.Timing == LockStepRounds {
		nn := f.count()
		for j := 0; j < nn && !f.bad; j++ {
			f.uint()
		}
	}
	return sched
}
