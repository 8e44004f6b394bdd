package env

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// encodeFresh is Encode without the bytes procs keep (proc.enc): every
// process encoded again by appendProc.
func encodeFresh(m *Model, s *World) []byte {
	b := core.AppendUint(nil, uint64(m.cfg.N))
	b = s.crashed.AppendBinary(b)
	b = core.AppendUint(b, uint64(s.clock))
	if m.faulty() {
		b = m.appendFaults(b, s) // faults.go
	}
	enc := m.schedEnc[s.alt]
	each(s.root, m.height, 0, func(i int, p *proc) bool {
		b = appendProc(b, p, enc[i], m.cfg.Timing)
		return true
	})
	return b
}

// TestProcEncCache: the bytes Apply and Decode keep for a proc (proc.enc)
// are what appendProc writes for it, so Encode (which copies them) equals
// a fresh encoding, and each kept fingerprint is the hash of the kept
// bytes, on every state of random walks of every toy model and on the
// decoded copy of each.
func TestProcEncCache(t *testing.T) {
	for name, cfg := range codecConfigs() {
		t.Run(name, func(t *testing.T) {
			m := mustNew(t, cfg)
			cached := 0
			for _, w := range walkStates(m, 2, 30, 40) {
				d, err := m.Decode(m.Encode(nil, w))
				if err != nil {
					t.Fatalf("%v: %v", w, err)
				}
				for _, s := range []*World{w, d} {
					if got, want := m.Encode(nil, s), encodeFresh(m, s); !bytes.Equal(got, want) {
						t.Fatalf("%v: Encode %x, fresh encoding %x", s, got, want)
					}
					each(s.root, m.height, 0, func(i int, p *proc) bool {
						if p.enc != nil {
							cached++
							if p.fp != core.Fingerprint(p.enc) {
								t.Errorf("%v: p%d's fingerprint is not its bytes' hash", s, i)
							}
						}
						return true
					})
				}
			}
			if cached == 0 {
				t.Fatal("no proc kept its encoding: the cache is not exercised")
			}
		})
	}
}
