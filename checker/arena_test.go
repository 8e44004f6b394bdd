package checker

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestArenaKeepsEncodings appends encodings of random lengths (some longer
// than a block, which grow it) over three levels and checks that every
// one reads back unchanged after all of its level's appends, and that
// reset keeps at most arenaKeep bytes of blocks.
func TestArenaKeepsEncodings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a arena
	for level := range 3 {
		type loc struct {
			off  int64
			n    int32
			want []byte
		}
		var locs []loc
		for i := range 3000 {
			n := r.IntN(2000)
			if i%1000 == 999 {
				n = arenaBlock + r.IntN(1000) // longer than a block
			}
			want := make([]byte, n)
			for j := range want {
				want[j] = byte(r.Uint32())
			}
			off, got := a.done(append(a.room(), want...))
			if int(got) != n {
				t.Fatalf("level %d: done gave length %d for %d bytes", level, got, n)
			}
			locs = append(locs, loc{off, got, want})
		}
		for i, l := range locs {
			if !bytes.Equal(a.at(l.off, l.n), l.want) {
				t.Fatalf("level %d: encoding %d (off %#x, %d bytes) changed", level, i, l.off, l.n)
			}
		}
		a.reset()
		kept := 0
		for _, b := range a.blocks {
			kept += cap(b)
		}
		if kept > arenaKeep || a.used != 0 {
			t.Fatalf("level %d: reset kept %d bytes in %d blocks (used %d), bound %d", level, kept, len(a.blocks), a.used, arenaKeep)
		}
	}
}
