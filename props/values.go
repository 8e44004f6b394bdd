package props

import (
	"bytes"
	"sync"

	"github.com/ftkernel/ftkernel/core"
)

// Eq reports whether two values are the same. Models pass a fast typed
// comparison where they have one; SameEncoding is the general one.
type Eq func(a, b core.Value) bool

// SameEncoding reports whether a and b have the same canonical binary
// encoding (core.Value.AppendBinary), encoding into pooled buffers.
func SameEncoding(a, b core.Value) bool {
	bufs := encBufs.Get().(*[2][]byte)
	bufs[0] = a.AppendBinary(bufs[0][:0])
	bufs[1] = b.AppendBinary(bufs[1][:0])
	eq := bytes.Equal(bufs[0], bufs[1])
	encBufs.Put(bufs)
	return eq
}

var encBufs = sync.Pool{New: func() any { return new([2][]byte) }}

// orSame returns eq, or SameEncoding if eq is nil.
func orSame(eq Eq) Eq {
	if eq == nil {
		return SameEncoding
	}
	return eq
}
