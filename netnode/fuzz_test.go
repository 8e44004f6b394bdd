package netnode

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// fuzzMsg is a message of a toy protocol: a tag byte and a uvarint.
type fuzzMsg struct {
	tag byte
	v   uint64
}

func (m fuzzMsg) Kind() string                 { return "M" }
func (m fuzzMsg) AppendBinary(b []byte) []byte { return core.AppendUint(append(b, m.tag), m.v) }
func (m fuzzMsg) String() string               { return "M" }

func fuzzDecode(b []byte) (core.Message, error) {
	d := core.NewDecoder(b)
	m := fuzzMsg{tag: d.Byte(), v: d.Uint()}
	if m.tag > 3 {
		d.Fail("tag %d", m.tag)
	}
	return m, d.Finish()
}

// FuzzConnection feeds arbitrary bytes to the reading side of a
// connection, as the node reads it: a hello frame, then message frames. It
// never panics, it stops at the first error, and every error but the end of
// the stream is a malformed frame or a stream cut short; every message it
// delivers re-encodes to the bytes it was read from.
func FuzzConnection(f *testing.F) {
	hello := AppendFrame(nil, AppendHello(nil, 1, 4, 0))
	f.Add(hello)
	f.Add(AppendFrame(hello, AppendData(nil, 7, 2, fuzzMsg{2, 300})))
	f.Add(AppendFrame(AppendFrame(hello, AppendData(nil, 7, 2, fuzzMsg{2, 300})), AppendData(nil, 9, 3, fuzzMsg{0, 0})))
	f.Add(append(hello, 0, 0, 0))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add(AppendFrame(nil, []byte("ftkn\x09\x04")))
	f.Add(AppendFrame(hello, []byte{0x80}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []core.Message
		err := readPeer(bufio.NewReader(bytes.NewReader(b)), 64, fuzzDecode,
			func(h []byte) error { _, _, err := DecodeHello(h, 4); return err },
			func(_, _ uint64, m core.Message) { got = append(got, m) })
		if err == nil {
			t.Fatal("readPeer ended without an error")
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrFrame) {
			t.Fatalf("unexpected error %v", err)
		}
		// Each frame is at least 4 bytes of length and a byte of payload.
		if len(got) > len(b)/5 {
			t.Fatalf("%d messages from %d bytes", len(got), len(b))
		}
		for _, m := range got {
			again, err := fuzzDecode(m.AppendBinary(nil))
			if err != nil || again != m {
				t.Fatalf("delivered %v does not round-trip: %v %v", m, again, err)
			}
		}
	})
}

// TestFrameRoundTrip: frames read back as written, one after another.
func TestFrameRoundTrip(t *testing.T) {
	var b []byte
	payloads := [][]byte{{1}, bytes.Repeat([]byte{7}, 300), AppendData(nil, 1<<40, 5, fuzzMsg{3, 1 << 60})}
	for _, p := range payloads {
		b = AppendFrame(b, p)
	}
	r := bufio.NewReader(bytes.NewReader(b))
	for _, p := range payloads {
		got, err := ReadFrame(r, 1024)
		if err != nil || !bytes.Equal(got, p) {
			t.Fatalf("read %x, %v; want %x", got, err, p)
		}
	}
	if _, err := ReadFrame(r, 1024); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v, want EOF", err)
	}
	clock, tick, m, err := DecodeData(payloads[2], fuzzDecode)
	if err != nil || clock != 1<<40 || tick != 5 || m != (fuzzMsg{3, 1 << 60}) {
		t.Fatalf("DecodeData: %d %d %v %v", clock, tick, m, err)
	}
	if _, _, err := DecodeHello(AppendHello(nil, 4, 4, 0), 4); err == nil {
		t.Fatal("hello from rank 4 of 4 accepted")
	}
}
