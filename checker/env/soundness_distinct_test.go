package env_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env/envtest"
)

// TestEncodingSeparatesWorlds: over every world of every toy model
// (exhaustively, every generated successor) and along random walks, two
// worlds whose exported views differ (go-cmp over envtest.View) never
// share an encoding or a fingerprint. It fails on an encoding that forgets
// which processes crashed, or how many copies of a message are in flight
// (planted in env/encode.go: the crashed set left out; the copy count
// left out; likewise in the incremental Fingerprint), which make the
// search merge distinct worlds and report fewer states while every
// property still "holds".
func TestEncodingSeparatesWorlds(t *testing.T) {
	names, ms := toyModels(t)
	for _, name := range names {
		m := ms[name]
		d := envtest.NewDistinct(m)
		if _, err := envtest.Explore(m, 200_000, d.Add); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := envtest.Walk(m, 3, 200, 200, d.Add); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d distinct worlds compared", name, d.Worlds)
	}
}
