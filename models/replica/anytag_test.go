package replica

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestAnyTagHolds: with a fixed source, an ANY_TAG receive takes the
// earliest message of the source still pending (MPI's non-overtaking rule,
// sm's nonOvertaking), so any-tag-diff keeps every property, equivalence
// with the unreplicated MPI run included, under every crash of one replica
// on unordered channels; the MID order of §4.2 read literally
// (any-tag-mid-order) is caught by equivalence after 6 steps.
func TestAnyTagHolds(t *testing.T) {
	const args = "--program any-tag-diff --procs 2 --degree 2 --crashes 1 --network unordered"
	res := modeltest.Build(t, "replica", strings.Fields(args)...).BFS(checker.Options{})
	modeltest.PinCounts(t, args, res, "", 2117, 0, 13)
	modeltest.MustCatch(t, modeltest.Build(t, "replica", strings.Fields(args+" --mutant any-tag-mid-order")...), Equivalence, 6)
}
