package checker

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// A sorted fingerprint set is stored as the differences between
// consecutive fingerprints (the first from 0), each as an unsigned varint
// (encoding/binary): for n fingerprints spread uniformly over 2^64 a
// difference takes about log2(2^64/n)/7 bytes, rounded up: 7 bytes a state
// from 2^15 to 2^22 fingerprints, 6 bytes from 2^22 to 2^29.

// WriteFingerprints writes the ascending, duplicate-free fps to w.
func WriteFingerprints(w io.Writer, fps []uint64) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf [binary.MaxVarintLen64]byte
	var n int64
	prev := uint64(0)
	for i, fp := range fps {
		if i > 0 && fp <= prev {
			return n, fmt.Errorf("checker: fingerprints not ascending at %d", i)
		}
		k := binary.PutUvarint(buf[:], fp-prev)
		if _, err := bw.Write(buf[:k]); err != nil {
			return n, err
		}
		n += int64(k)
		prev = fp
	}
	return n, bw.Flush()
}

// FingerprintReader reads count fingerprints written by WriteFingerprints
// from r, as a MergeFingerprints stream; Err reports a short or damaged
// stream once the stream has ended.
type FingerprintReader struct {
	r     io.ByteReader
	left  int64
	prev  uint64
	first bool
	err   error
}

// NewFingerprintReader reads count fingerprints from r.
func NewFingerprintReader(r io.ByteReader, count int64) *FingerprintReader {
	return &FingerprintReader{r: r, left: count, first: true}
}

// Next returns the next fingerprint, or false at the end or on an error.
func (f *FingerprintReader) Next() (uint64, bool) {
	if f.left == 0 || f.err != nil {
		return 0, false
	}
	d, err := binary.ReadUvarint(f.r)
	if err != nil {
		f.err = fmt.Errorf("fingerprints: %d left to read: %w", f.left, err)
		return 0, false
	}
	if !f.first && d == 0 {
		f.err = fmt.Errorf("fingerprints: a repeated fingerprint, %d left to read", f.left)
		return 0, false
	}
	f.first = false
	f.prev += d
	f.left--
	return f.prev, true
}

// Err is the error that ended the stream early, or nil.
func (f *FingerprintReader) Err() error { return f.err }

// WriteExpansions writes es (ascending, duplicate-free fingerprints) to w:
// per expansion the difference from the previous fingerprint, then the
// out-degree, each an unsigned varint.
func WriteExpansions(w io.Writer, es []Expansion) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf [2 * binary.MaxVarintLen64]byte
	var n int64
	prev := uint64(0)
	for i, e := range es {
		if i > 0 && e.FP <= prev {
			return n, fmt.Errorf("checker: expansions not ascending at %d", i)
		}
		k := binary.PutUvarint(buf[:], e.FP-prev)
		k += binary.PutUvarint(buf[k:], uint64(e.Out))
		if _, err := bw.Write(buf[:k]); err != nil {
			return n, err
		}
		n += int64(k)
		prev = e.FP
	}
	return n, bw.Flush()
}

// ExpansionReader reads count expansions written by WriteExpansions, as a
// MergeExpansions stream; Err reports a short or damaged stream once the
// stream has ended.
type ExpansionReader struct {
	fps FingerprintReader
	err error
}

// NewExpansionReader reads count expansions from r.
func NewExpansionReader(r io.ByteReader, count int64) *ExpansionReader {
	return &ExpansionReader{fps: FingerprintReader{r: r, left: count, first: true}}
}

// Next returns the next expansion, or false at the end or on an error.
func (e *ExpansionReader) Next() (Expansion, bool) {
	if e.err != nil {
		return Expansion{}, false
	}
	fp, ok := e.fps.Next()
	if !ok {
		return Expansion{}, false
	}
	out, err := binary.ReadUvarint(e.fps.r)
	if err == nil && out > actMask {
		err = fmt.Errorf("an out-degree of %d, more than %d", out, actMask)
	}
	if err != nil {
		e.err = fmt.Errorf("expansions: %w", err)
		return Expansion{}, false
	}
	return Expansion{FP: fp, Out: uint32(out)}, true
}

// Err is the error that ended the stream early, or nil.
func (e *ExpansionReader) Err() error {
	if e.err != nil {
		return e.err
	}
	return e.fps.Err()
}
