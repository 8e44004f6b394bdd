package era

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestN5ThreeCrashesForget (FTKERNEL_LONG=1 only, about 2 minutes and
// 0.8 GB): issue 14's ERA target, N=5 with three crashes, complete by
// depth-first search when crashed processes are forgotten
// (--forget-crashed), every property holding; the counts are the ones
// docs/era.md and docs/scale.md quote (674,794,366 states without
// forgetting).
func TestN5ThreeCrashesForget(t *testing.T) {
	if !modeltest.Long() {
		t.Skip("FTKERNEL_LONG=1 runs it (about 2 minutes)")
	}
	res := modeltest.Build(t, "era", "--n", "5", "--crashes", "3", "--forget-crashed").BFS(checker.Options{Mode: checker.DepthFirst})
	modeltest.PinCounts(t, "--n 5 --crashes 3 --forget-crashed --dfs", res, "", 33_887_005, 179_367_619, 41)
}
