package envtest

import (
	"fmt"
	"reflect"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Distinct remembers the view of every world it is shown, by the model's
// encoding and by its fingerprint (checker.Fingerprinter when the model
// has one, else the hash of the encoding), and reports two worlds that
// differ (View, compared field by field; go-cmp prints the difference)
// but share either: the search would merge them
// and explore less than it says. A fingerprint is 64 bits, so a shared
// fingerprint of two genuinely different worlds is possible in principle;
// at the thousands of worlds these tests see, its chance is below 1e-11.
type Distinct struct {
	m     Model
	byEnc map[string]WorldView
	byFP  map[uint64]WorldView
	// Worlds counts the distinct encodings seen.
	Worlds int
}

// NewDistinct is an empty Distinct for worlds of m.
func NewDistinct(m Model) *Distinct {
	return &Distinct{m: m, byEnc: map[string]WorldView{}, byFP: map[uint64]WorldView{}}
}

// Add records w and returns an error if an earlier world with the same
// encoding or fingerprint has a different view.
func (d *Distinct) Add(w *env.World) error {
	v := View(w)
	enc := d.m.Encode(nil, w)
	if old, ok := d.byEnc[string(enc)]; ok {
		if !reflect.DeepEqual(old, v) {
			return fmt.Errorf("%s: two different worlds share an encoding (-first +second):\n%s", d.m.Name(), cmp.Diff(old, v))
		}
	} else {
		d.byEnc[string(enc)] = v
		d.Worlds++
	}
	var fp uint64
	if f, ok := d.m.(checker.Fingerprinter[*env.World]); ok {
		fp = f.Fingerprint(w)
	} else {
		fp = core.Fingerprint(enc)
	}
	if old, ok := d.byFP[fp]; ok {
		if !reflect.DeepEqual(old, v) {
			return fmt.Errorf("%s: two different worlds share the fingerprint %#x (-first +second):\n%s", d.m.Name(), fp, cmp.Diff(old, v))
		}
	} else {
		d.byFP[fp] = v
	}
	return nil
}
