package core

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// AppendUint appends x as an unsigned varint.
func AppendUint(b []byte, x uint64) []byte { return binary.AppendUvarint(b, x) }

// AppendInt appends x as a zig-zag signed varint.
func AppendInt(b []byte, x int64) []byte { return binary.AppendVarint(b, x) }

// AppendBool appends one byte, 0 or 1.
func AppendBool(b []byte, x bool) []byte {
	if x {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendBytes appends a length-prefixed byte string.
func AppendBytes(b, x []byte) []byte {
	b = AppendUint(b, uint64(len(x)))
	return append(b, x...)
}

// AppendString appends a length-prefixed string.
func AppendString(b []byte, x string) []byte {
	b = AppendUint(b, uint64(len(x)))
	return append(b, x...)
}

// ErrMalformed wraps every decoding error, so callers can test for it with
// errors.Is.
var ErrMalformed = errors.New("malformed encoding")

// Decoder reads a canonical encoding. The first error sticks: later reads
// return zero values, and Err reports the error. A Decoder never panics,
// whatever the bytes.
type Decoder struct {
	b   []byte
	off int
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err is the first error met, wrapping ErrMalformed, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records an error at the current offset, unless one is recorded already.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
	}
}

// Remaining is the number of unread bytes.
func (d *Decoder) Remaining() int { return len(d.b) - d.off }

// Finish reports an error if bytes are left over or an error occurred.
func (d *Decoder) Finish() error {
	if d.err == nil && d.off != len(d.b) {
		d.Fail("%d trailing bytes", len(d.b)-d.off)
	}
	return d.err
}

// Uint reads an unsigned varint in its minimal form (the one AppendUint
// writes): a longer encoding of the same number is an error, so that equal
// values have equal bytes.
func (d *Decoder) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.Fail("bad uvarint")
		return 0
	}
	if n > 1 && d.b[d.off+n-1] == 0 { // 0x80 0x00 is 0 again: not canonical
		d.Fail("non-minimal uvarint")
		return 0
	}
	d.off += n
	return x
}

// Int reads a zig-zag signed varint in its minimal form.
func (d *Decoder) Int() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.Fail("bad varint")
		return 0
	}
	if n > 1 && d.b[d.off+n-1] == 0 {
		d.Fail("non-minimal varint")
		return 0
	}
	d.off += n
	return x
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.Fail("unexpected end")
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

// Bool reads a byte that must be 0 or 1.
func (d *Decoder) Bool() bool {
	c := d.Byte()
	if c > 1 {
		d.Fail("bool byte %d", c)
	}
	return c == 1
}

// Len reads a count that must not exceed limit (and never the bytes left, so
// a hostile count cannot make the caller allocate).
func (d *Decoder) Len(limit int) int {
	x := d.Uint()
	if d.err != nil {
		return 0
	}
	// Every element takes at least one byte, so a count above the bytes left
	// is malformed too.
	if x > uint64(limit) || x > uint64(d.Remaining()) {
		d.Fail("count %d over limit %d or bytes left %d", x, limit, d.Remaining())
		return 0
	}
	return int(x)
}

// Rank reads a rank that must be below n.
func (d *Decoder) Rank(n int) Rank {
	x := d.Uint()
	if d.err != nil {
		return 0
	}
	if x >= uint64(n) {
		d.Fail("rank %d out of range 0..%d", x, n-1)
		return 0
	}
	return Rank(x)
}

// Bytes reads a length-prefixed byte string of at most limit bytes. The
// result aliases the input.
func (d *Decoder) Bytes(limit int) []byte {
	n := d.Len(limit)
	if d.err != nil {
		return nil
	}
	if n > d.Remaining() {
		d.Fail("byte string of %d, only %d left", n, d.Remaining())
		return nil
	}
	x := d.b[d.off : d.off+n]
	d.off += n
	return x
}

// String reads a length-prefixed string of at most limit bytes.
func (d *Decoder) String(limit int) string { return string(d.Bytes(limit)) }
