package gossipfd

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestDetectSpread pins the dissemination time of a crashed host's last
// heartbeat (rounds, best/worst phase; docs/gossipfd.md "Tight
// completeness and suspicion round") and the default completeness bound
// T_cleanup + worst at the paper's T_cleanup (§5.1 Eqs. 3–4, §5.2 Eq. 5).
func TestDetectSpread(t *testing.T) {
	for _, c := range []struct {
		v                  fd.Variant
		n, best, worst, bd int
	}{
		{fd.RR, 4, 3, 4, 9},
		{fd.BRR, 4, 3, 3, 7},
		{fd.DBRR, 4, 3, 3, 9},
		{fd.RR, 5, 4, 5, 11},
		{fd.BRR, 8, 4, 4, 10},
		{fd.DBRR, 8, 4, 4, 13},
	} {
		C, _ := fd.PaperCleanup(c.v, c.n, fd.CleanupMargin)
		cfg := &fd.Config{N: c.n, Variant: c.v, Cleanup: uint64(C)}
		b, w, _, _, err := DetectSpread(cfg)
		bd, iso, err2 := DetectBound(cfg)
		if err != nil || err2 != nil || b != c.best || w != c.worst || bd != c.bd || iso != w {
			t.Errorf("%v n=%d: spread %d/%d (%v), bound %d isolation %d (%v); want %d/%d, %d", c.v, c.n, b, w, err, bd, iso, err2, c.best, c.worst, c.bd)
		}
	}
}

// TestTightPropertiesCatchPlantedBugs: the default properties of `ftcheck
// check gossipfd` (completeness within T_cleanup + the crashed host's
// dissemination time, and suspicion-round, §5.1 and §5.3) hold on the
// correct detector and catch each planted bug of issue class "routing,
// cleanup counting and merge", with the shortest counterexample's length:
// RR's offset from r+1 (Eq. 3), the cleanup check one round late, the
// merge dating an increase by the heartbeat's own round (round model);
// under bounded delay (Δ = 1 tick, T_gossip = 4 ticks) completeness at the
// default bound catches the late cleanup check. Each row is a documented
// run (docs/gossipfd.md).
func TestTightPropertiesCatchPlantedBugs(t *testing.T) {
	for _, c := range []struct {
		args, mutant, prop string
		steps              int
	}{
		{"--variant rr --n 4 --crashes 1", "rr-offset-r-plus-1", "suspicion-round", 8},
		{"--variant brr --n 4 --crashes 1", "cleanup-late", "suspicion-round", 6},
		{"--variant dbrr --n 4 --crashes 1", "cleanup-late", "suspicion-round", 8},
		{"--variant dbrr --n 4 --crashes 1", "merge-sender-round", "suspicion-round", 9},
		{"--variant rr --n 4 --crashes 1", "merge-sender-round", "suspicion-round", 8},
		{"--timing bounded --variant brr --n 4 --crashes 1", "cleanup-late", "completeness", 86},
		{"--timing bounded --variant dbrr --n 4 --crashes 1", "cleanup-late", "completeness", 104},
	} {
		args := strings.Fields(c.args)
		if v, res := verdicts(build(t, args...), false); len(v) != 0 || !res.Complete {
			t.Errorf("%s: the correct detector violates %v", c.args, v)
		}
		modeltest.MustCatch(t, build(t, append(args, "--mutant", c.mutant)...), c.prop, c.steps)
	}
}
