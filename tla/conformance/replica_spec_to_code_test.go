package conformance

import (
	"os"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/replica"
)

func repInstance(t testing.TB, module string) RepInstance {
	for _, in := range RepInstances {
		if in.Module == module {
			return in
		}
	}
	t.Fatalf("no replica instance %q", module)
	return RepInstance{}
}

// quintReplica runs replica.qnt (invariant Inv); see quintRun.traces.
var quintReplica = quintRun{spec: "replica.qnt", invariant: "Inv", maxSteps: 100}

// TestReplicaSpecTracesConform generates ITF traces of replica.qnt with
// quint (instances pingpong and midexample; pingpong2 and pingpong0 too
// with REPLICA_CONFORMANCE_ALL=1) and replays each on the Go machines of
// models/replica, comparing every state. The same traces are replayed on
// every Go mutant (replica.Mutants) and the first divergence of each is
// logged; history-not-consulted and no-backup-resend, the mutants of
// replica_mutants.qnt, must diverge on pingpong. Knobs:
// QUINT_REPLICA_TRACES (quint samples per instance, default 30),
// QUINT_SEED.
func TestReplicaSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_REPLICA_TRACES", 30)
	seed := quintSeed()
	for _, in := range RepInstances {
		if os.Getenv("REPLICA_CONFORMANCE_ALL") != "1" && (in.Module == "pingpong2" || in.Module == "pingpong0") {
			continue
		}
		t.Run(in.Module, func(t *testing.T) {
			files, gen := quintReplica.traces(t, quint, t.TempDir(), in.Module, k, seed)
			t0 := time.Now()
			tt := replayTally(t, files, func(file string) (Stats, error) { return ReplayReplicaITF(file, in, mutant.None) })
			if len(files) < k/4 {
				t.Fatalf("only %d distinct traces of %d samples", len(files), k)
			}
			t.Logf("%s: %d distinct traces (of %d samples) conform (spec steps %d..%d, total %d = %d Go steps; %d states compared; final crashed-set sizes %v); quint %.1fs, replay %.1fs",
				in.Module, len(files), k, tt.minLen, tt.maxLen, tt.SpecSteps, tt.GoSteps, tt.Compared, tt.crashes,
				gen.Seconds(), time.Since(t0).Seconds())
			for _, mut := range replica.Mutants {
				where := firstDivergence(files, func(file string) error {
					_, err := ReplayReplicaITF(file, in, mut)
					return err
				})
				t.Logf("mutant %-24s %s", mut, where)
				if in.Module == "pingpong" && where == "not caught" &&
					(mut == replica.MutantHistoryNotConsulted || mut == replica.MutantNoBackupResend) {
					t.Errorf("no trace tells the Go mutant %s apart", mut)
				}
			}
		})
	}
}
