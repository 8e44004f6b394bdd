package hyperquicksort

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestNodeCodecRoundTrip: every message kind and a store of lists decode
// back to the same bytes, and every cut of an encoding is refused.
func TestNodeCodecRoundTrip(t *testing.T) {
	const n = 8
	msgs := []core.Message{
		Sort{Msg{From: 0, To: 4, Round: 0, IsPivot: true, Root: 0, Pivot: -3, HasPivot: true}},
		Sort{Msg{From: 7, To: 1, Round: 2, IsPivot: true, Root: 6}},
		Sort{Msg{From: 5, To: 0, Round: 1, FromV: 4, ToV: 0, Values: []int32{1, 2, 2, 9}}},
		Sort{Msg{From: 2, To: 3, Round: 2, FromV: 2, ToV: 3}},
		Store{From: 6, Round: 1, Writes: []Write{{V: 6, Values: []int32{4}}, {V: 7}}},
		Store{From: 0, Round: 0},
	}
	for _, m := range msgs {
		b := m.AppendBinary(nil)
		got, err := DecodeMessage(b, n)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if string(got.AppendBinary(nil)) != string(b) || got.String() != m.String() {
			t.Errorf("%v decoded as %v", m, got)
		}
		for k := range len(b) {
			if _, err := DecodeMessage(b[:k], n); err == nil {
				t.Errorf("%v: the first %d of %d bytes decode", m, k, len(b))
			}
		}
	}
	if _, err := DecodeMessage(msgs[0].AppendBinary(nil), 4); err == nil {
		t.Errorf("a message to p4 decodes for n = 4")
	}
	l := Lists{{1, 2}, nil, {-5}, {}}
	b := l.AppendBinary(nil)
	got, err := DecodeLists(b, 4)
	if err != nil || got.String() != l.String() {
		t.Errorf("lists %v decoded as %v, %v", l, got, err)
	}
}
