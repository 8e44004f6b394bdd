package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Key identifies a delivered message, to match one process's deliveries
// with another's.
type Key func(r env.Record) string

// DeliveryKey identifies a delivery by its instance and the canonical
// encoding of its value.
func DeliveryKey(r env.Record) string {
	b := core.AppendUint(nil, r.Instance)
	if r.Value != nil {
		b = r.Value.AppendBinary(b)
	}
	return string(b)
}

// TotalOrder is "any two processes deliver the messages they both deliver
// in the same order": for every pair p, q, the deliveries of p that q also
// made appear in q's history in the same relative order. Messages are
// matched by key (nil: DeliveryKey); a message delivered twice by one
// process is NoDuplicates' concern, and only its first delivery counts
// here. An invariant (Stable: histories only grow), O(N² · deliveries).
func TotalOrder(name, doc string, key Key) checker.Property[*env.World] {
	if key == nil {
		key = DeliveryKey
	}
	return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc, Stable: true,
		Check: func(w *env.World) error { return totalOrder(w, key) }}
}

// delivered is one process's deliveries: the keys in order of first
// delivery and each key's position.
type delivered struct {
	keys []string
	vals []core.Value
	pos  map[string]int
}

// deliveredOf collects the first deliveries of one history.
func deliveredOf(hist []env.Record, key Key) delivered {
	d := delivered{pos: map[string]int{}}
	for _, r := range hist {
		if r.Kind != core.EffDeliver {
			continue
		}
		k := key(r)
		if _, dup := d.pos[k]; dup {
			continue
		}
		d.pos[k] = len(d.keys)
		d.keys = append(d.keys, k)
		d.vals = append(d.vals, r.Value)
	}
	return d
}

// misordered walks a's deliveries that b also made: their positions in b
// must increase. It returns the indices in a of the first pair b delivers
// the other way round, or ok.
func misordered(a, b delivered) (i, j int, ok bool) {
	last, lastI := -1, -1
	for k, key := range a.keys {
		pos, in := b.pos[key]
		if !in {
			continue
		}
		if pos < last {
			return lastI, k, false
		}
		last, lastI = pos, k
	}
	return 0, 0, true
}

func totalOrder(w *env.World, key Key) error {
	all := make([]delivered, w.N())
	for p := range all {
		all[p] = deliveredOf(w.History(core.Rank(p)), key)
	}
	for p := range all {
		for q := p + 1; q < len(all); q++ {
			if i, j, ok := misordered(all[p], all[q]); !ok {
				return fmt.Errorf("%v delivered %v before %v, %v the other way round",
					core.Rank(p), all[p].vals[i], all[p].vals[j], core.Rank(q))
			}
		}
	}
	return nil
}
