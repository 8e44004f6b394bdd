package env

import (
	"reflect"
	"slices"
	"testing"
)

// TestPermuteCoversEveryField fails when a field is added to what a World
// keeps per process or per rank and permute.go has not been reviewed for
// it: each field below is either renamed by AppendPermuted/permuteProc or
// named with the reason it needs no renaming.
func TestPermuteCoversEveryField(t *testing.T) {
	for _, c := range []struct {
		v      any
		fields []string
	}{
		// m, blk: the model and memory, shared; alt: schedules are
		// checked equal (CheckPermutation); root: the procs, moved;
		// crashed: renamed; ncrash, nfail, spent, clock, now, depth:
		// counts; last, actor, effects: the last step, not encoded;
		// faults: inc renamed, the rest counts.
		{World{}, []string{"m", "blk", "alt", "root", "crashed", "ncrash", "nfail", "spent", "clock", "now", "depth", "last", "actor", "effects", "faults"}},
		// node: the protocol's hook; ns, edit, agg, fp, enc: derived,
		// recomputed by Decode; detected: renamed; inbox: senders and
		// messages renamed; live, awaiting, made, ndet: flags and counts;
		// hist: values kept; timers, next, due: ids kept.
		{proc{}, []string{"edit", "node", "ns", "live", "awaiting", "made", "inbox", "detected", "ndet", "hist", "timers", "next", "due", "agg", "fp", "enc"}},
		// from renamed, msg renamed (hook), key re-encoded, n and d kept.
		{entry{}, []string{"from", "n", "key", "msg", "d"}},
		// inc: per rank, renamed; the rest are counts.
		{faultState{}, []string{"inc", "recovered", "lost", "duped"}},
	} {
		typ := reflect.TypeOf(c.v)
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, c.fields) {
			t.Errorf("%s has fields %v; permute.go was reviewed for %v: rename the new ones in AppendPermuted (or say why not) and update this list", typ.Name(), got, c.fields)
		}
	}
}
