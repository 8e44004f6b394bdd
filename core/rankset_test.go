package core

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRankSetOperations(t *testing.T) {
	var a, b RankSet
	for _, r := range []Rank{0, 5, 63, 64, 200} {
		a.Add(r)
	}
	for _, r := range []Rank{5, 64, 300} {
		b.Add(r)
	}
	if got := a.Ranks(); !slices.Equal(got, []Rank{0, 5, 63, 64, 200}) {
		t.Fatalf("Ranks = %v", got)
	}
	if a.Len() != 5 || !a.Has(63) || a.Has(62) || a.Has(-1) || a.Has(1000) {
		t.Fatalf("membership wrong: %v", a)
	}
	if got := a.Intersect(b).Ranks(); !slices.Equal(got, []Rank{5, 64}) {
		t.Fatalf("Intersect = %v", got)
	}
	if got := a.Union(b).Len(); got != 6 {
		t.Fatalf("Union has %d members, want 6", got)
	}
	if !a.Intersect(b).SubsetOf(a) || a.SubsetOf(b) {
		t.Fatal("SubsetOf wrong")
	}
	c := a.Clone()
	c.Remove(0)
	if !a.Has(0) || c.Has(0) {
		t.Fatal("Clone shares storage")
	}
	// Equal sets of different capacity encode and compare equal.
	var d RankSet
	d.Add(500)
	d.Remove(500)
	if !d.Equal(RankSet{}) || string(d.AppendBinary(nil)) != string(RankSet{}.AppendBinary(nil)) || !d.Empty() {
		t.Fatal("empty sets of different capacity differ")
	}
	if s := a.Intersect(b).String(); s != "{p5,p64}" {
		t.Fatalf("String = %q", s)
	}
}

func TestRankSetRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		var s RankSet
		for j := r.IntN(20); j > 0; j-- {
			s.Add(Rank(r.IntN(300)))
		}
		b := s.AppendBinary(nil)
		d := NewDecoder(b)
		got := DecodeRankSet(d, 300)
		if err := d.Finish(); err != nil || !got.Equal(s) {
			t.Fatalf("round trip of %v: got %v, %v", s, got, err)
		}
	}
}

func TestDecoderRejectsMalformed(t *testing.T) {
	cases := map[string][]byte{
		"not ascending":  {2, 5, 5},
		"rank too large": {1, 0xff, 0x01},
		"count too big":  {9, 1},
		"truncated":      {2, 1},
		"trailing bytes": {1, 3, 7},
		"bad varint":     {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	}
	for name, b := range cases {
		d := NewDecoder(b)
		DecodeRankSet(d, 100)
		if err := d.Finish(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	// Arbitrary bytes never panic.
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		b := make([]byte, r.IntN(16))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		d := NewDecoder(b)
		DecodeRankSet(d, 64)
		d.Bytes(8)
		d.Bool()
		d.Int()
		_ = d.Finish()
	}
}

func TestFingerprintIsFixedAndSpreads(t *testing.T) {
	if a, b := Fingerprint([]byte("ftkernel")), Fingerprint([]byte("ftkernel")); a != b {
		t.Fatal("not deterministic")
	}
	seen := map[uint64][]byte{}
	for i := 0; i < 1<<16; i++ {
		b := AppendUint(nil, uint64(i))
		f := Fingerprint(b)
		if prev, dup := seen[f]; dup {
			t.Fatalf("collision between %x and %x", prev, b)
		}
		seen[f] = b
	}
	// Prefixes of zeros of different lengths differ (length is mixed in).
	if Fingerprint([]byte{0}) == Fingerprint([]byte{0, 0}) || Fingerprint(nil) == Fingerprint([]byte{0}) {
		t.Fatal("length not mixed in")
	}
}
