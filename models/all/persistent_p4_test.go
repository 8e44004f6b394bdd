package all

import (
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// TestPersistentSoundnessP4 (FTKERNEL_LONG=1 only): the persistent-set
// guard (envtest.ComparePersistent: every violated property and every
// quiescent world of the unreduced depth-first search found with
// persistent sets) at the size below the target, asynchronous
// checked correction at P=4 with 0, 1 and 2 faults, forgetting crashed
// processes and dropping absorbed messages (the unreduced searches are
// 2.6 M, 4.7 M and 5.2 M states), where quiet messages at receivers that
// may crash take out most of the persistent sets' members.
func TestPersistentSoundnessP4(t *testing.T) {
	if os.Getenv("FTKERNEL_LONG") != "1" {
		t.Skip("FTKERNEL_LONG=1 runs it (three unreduced searches of 2.6–5.2 M states)")
	}
	for _, args := range []string{
		"--P 4 --faults 0 --drop-absorbed",
		"--P 4 --faults 1 --forget-crashed --drop-absorbed",
		"--P 4 --faults 2 --forget-crashed --drop-absorbed",
	} {
		m, ok := registry.EnvModel(modeltest.Build(t, "correction", strings.Fields(args)...))
		if !ok {
			t.Fatalf("correction %s: not an env model", args)
		}
		rep, err := envtest.ComparePersistent(m, 8_000_000)
		if err != nil {
			t.Fatalf("correction %s: %v", args, err)
		}
		t.Logf("correction %-50s states %8d → %8d, generated %9d → %9d, %d quiescent {%s}", args,
			rep.States, rep.ReducedStates, rep.Transitions, rep.ReducedTransitions, rep.Quiescent, rep.Violated)
	}
}
