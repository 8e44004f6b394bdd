package env

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestBlockSparesAndRoom: an Apply that copies more procs than a world's
// block has spares (nSpare), or whose copied procs' bytes do not all fit
// the block's room (encRoom), still gives each changed proc its own bytes
// (appendProc's, hashed into its fingerprint), leaves its parent's and
// sibling's bytes intact, and reuses a recycled sibling's block safely: on
// random walks of a flood of 10 processes (a call sends to every peer),
// each step also applies and recycles another enabled action first. Both
// overflows must happen.
func TestBlockSparesAndRoom(t *testing.T) {
	cfg := floodConfig(10)
	cfg.Codec = toyCodec
	m := mustNew(t, cfg)
	r := rand.New(rand.NewPCG(3, 3))
	many, over, steps := 0, 0, 0
	for range 20 {
		w := m.Init()[0]
		for range 40 {
			as := m.Actions(w, nil)
			if len(as) == 0 {
				break
			}
			before := m.Encode(nil, w)
			if x, err := m.Apply(w, as[r.IntN(len(as))]); err == nil {
				m.Recycle(x) // a dropped sibling: its block serves the next Apply
			}
			next, err := m.Apply(w, as[r.IntN(len(as))])
			if err != nil {
				break // the toy's deliberate failures
			}
			steps++
			changed, size := 0, 0
			for i := range cfg.N {
				p := next.proc(core.Rank(i))
				if p == w.proc(core.Rank(i)) {
					continue
				}
				changed++
				size += len(p.enc)
				want := appendProc(nil, p, m.schedEnc[next.alt][i], m.cfg.Timing)
				if !bytes.Equal(p.enc, want) || p.fp != core.Fingerprint(want) {
					t.Fatalf("after %v: p%d keeps bytes %x (fingerprint %x), its encoding is %x", next.LastAction(), i, p.enc, p.fp, want)
				}
			}
			if changed > nSpare {
				many++
			}
			if size > encRoom {
				over++
			}
			if got := m.Encode(nil, w); !bytes.Equal(got, before) {
				t.Fatalf("after %v: the parent's encoding changed", next.LastAction())
			}
			enc := m.Encode(nil, next)
			if !bytes.Equal(enc, encodeFresh(m, next)) {
				t.Fatalf("after %v: Encode differs from a fresh encoding", next.LastAction())
			}
			d, err := m.Decode(enc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(m.Encode(nil, d), enc) || m.Fingerprint(d) != m.Fingerprint(next) {
				t.Fatalf("after %v: the decoded world encodes or fingerprints differently", next.LastAction())
			}
			w = next
		}
	}
	if many == 0 || over == 0 {
		t.Fatalf("%d steps: %d copied more than %d procs, %d overflowed the %d-byte room: both must happen", steps, many, nSpare, over, encRoom)
	}
	t.Logf("%d steps: %d copied more than %d procs, %d overflowed the %d-byte room", steps, many, nSpare, over, encRoom)
}
