package netnode

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ftkernel/ftkernel/core"
)

// DefaultMaxFrame is Config.MaxFrame's default: 1 MiB.
const DefaultMaxFrame = 1 << 20

// helloMagic opens every hello frame.
const helloMagic = "ftkn"

// ErrFrame wraps every error of a malformed frame: a length out of range, a
// bad hello or a message that does not decode.
var ErrFrame = errors.New("netnode: malformed frame")

// AppendFrame appends payload as one frame: its length as 4 big-endian
// bytes, then the payload.
func AppendFrame(b, payload []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// ReadFrame reads one frame from r and returns its payload. A length above
// max (or zero) is an error wrapping ErrFrame; a connection cut short gives
// io.EOF before the first byte of a frame, io.ErrUnexpectedEOF within one.
func ReadFrame(r *bufio.Reader, max int) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(h[:])
	if n == 0 || uint64(n) > uint64(max) {
		return nil, fmt.Errorf("%w: length %d outside 1 … %d", ErrFrame, n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// AppendHello appends the payload of a hello frame from incarnation inc
// (0 at the first start, one more at each restart) of rank p of a group
// of n.
func AppendHello(b []byte, p core.Rank, n int, inc uint64) []byte {
	b = append(b, helloMagic...)
	b = core.AppendUint(b, uint64(p))
	b = core.AppendUint(b, uint64(n))
	return core.AppendUint(b, inc)
}

// DecodeHello reads a hello payload and returns the sender's rank, which
// must be below n, and its incarnation; the hello must be from a group of
// n.
func DecodeHello(payload []byte, n int) (core.Rank, uint64, error) {
	if len(payload) < len(helloMagic) || string(payload[:len(helloMagic)]) != helloMagic {
		return core.NoRank, 0, fmt.Errorf("%w: not a hello", ErrFrame)
	}
	d := core.NewDecoder(payload[len(helloMagic):])
	p := d.Rank(n)
	m := d.Uint()
	inc := d.Uint()
	if err := d.Finish(); err != nil {
		return core.NoRank, 0, fmt.Errorf("%w: hello: %v", ErrFrame, err)
	}
	if m != uint64(n) {
		return core.NoRank, 0, fmt.Errorf("%w: hello from a group of %d, this one has %d", ErrFrame, m, n)
	}
	return p, inc, nil
}

// AppendData appends the payload of a message frame: the sender's Lamport
// clock, the sender's tick when it sent (0 outside Node.RunTicks), then
// the message's canonical encoding.
func AppendData(b []byte, clock, tick uint64, m core.Message) []byte {
	b = core.AppendUint(b, clock)
	b = core.AppendUint(b, tick)
	return m.AppendBinary(b)
}

// DecodeData reads a message frame's payload with decode. Any error wraps
// ErrFrame, and so does a panic of decode (a protocol decoder built on
// core.Decoder never panics; one that does costs its connection, not the
// process).
func DecodeData(payload []byte, decode func([]byte) (core.Message, error)) (clock, tick uint64, m core.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			clock, tick, m, err = 0, 0, nil, fmt.Errorf("%w: message: decoder panicked: %v", ErrFrame, r)
		}
	}()
	d := core.NewDecoder(payload)
	clock = d.Uint()
	tick = d.Uint()
	if err := d.Err(); err != nil {
		return 0, 0, nil, fmt.Errorf("%w: clock and tick: %v", ErrFrame, err)
	}
	rest := payload[len(payload)-d.Remaining():]
	m, err = decode(rest)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%w: message: %v", ErrFrame, err)
	}
	if m == nil {
		return 0, 0, nil, fmt.Errorf("%w: message: decoder returned none", ErrFrame)
	}
	return clock, tick, m, nil
}
