package twophase

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// TestDFSCounts: a complete DFS finds exactly TLC's (and BFS's) distinct
// and generated states; with Lassos it finds no livelock (TwoPhase's only
// cycles are stuttering steps) and the same counts.
func TestDFSCounts(t *testing.T) {
	for _, rm := range []int{3, 5, 6} {
		for _, lassos := range []bool{false, true} {
			t.Run(fmt.Sprintf("RM=%d/lassos=%v", rm, lassos), func(t *testing.T) {
				m, _ := New(rm)
				r := checker.DFS[State](m, checker.Options{Lassos: lassos})
				if r.Err != nil || !r.Complete || len(r.Violations) != 0 || r.Mode != checker.DepthFirst {
					t.Fatalf("err=%v complete=%v violations=%v", r.Err, r.Complete, r.Violations)
				}
				if want := tlcCounts[rm]; r.States != want[0] || r.Transitions != want[1] {
					t.Fatalf("%d distinct / %d generated, want %d / %d", r.States, r.Transitions, want[0], want[1])
				}
			})
		}
	}
}

// TestMaxMemory stops RM=8 (about 21 MB of visited set and more for the
// levels) at a limit 8 MB above the heap at the start, in both modes.
func TestMaxMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("RM=8 in -short mode")
	}
	m, _ := New(8)
	for _, mode := range []checker.Mode{checker.BreadthFirst, checker.DepthFirst} {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		limit := int64(ms.HeapAlloc) + 8<<20
		r := checker.Search[State](m, checker.Options{Mode: mode, MaxMemory: limit})
		if r.Stop != checker.StopMaxMemory || r.Complete || r.Err != nil || r.States == 0 {
			t.Fatalf("%s: stop=%s complete=%v err=%v states=%d", mode, r.Stop, r.Complete, r.Err, r.States)
		}
		if r.HeapBytes > limit+4<<20 {
			t.Errorf("%s: heap sampled at %d, limit %d", mode, r.HeapBytes, limit)
		}
		t.Logf("%s: stopped at %d states, %d generated, peak heap sample %.1f MB (limit %.1f MB)",
			mode, r.States, r.Transitions, float64(r.HeapBytes)/1e6, float64(limit)/1e6)
	}
}
