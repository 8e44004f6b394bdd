package abcast

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// Ranges of simulate's flags.
const (
	MaxSimN = 512
)

// defineSimulate is `ftcheck simulate abcast`: one broadcast round of the
// appendix (every stable member broadcasts one message) by discrete-event
// simulation of the statemachine's members (Round).
func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	variant := fs.String("variant", "consensus", "consensus, ub or bb")
	n := fs.Int("n", 32, fmt.Sprintf("total nodes N (the core is N − unstable), 4 … %d", MaxSimN))
	unstable := fs.Int("unstable", 2, "unstable nodes, outside the core, 0 … N−2")
	k := fs.Int("k", 0, "consensus: messages per consensus instance k, 0 … N−unstable (0: the core size, Figs. A.3 and A.4)")
	seed := fs.Uint64("seed", 1, "seed: the same seed and flags give the same run")
	tx := fs.Float64("tx", 1, "mean transmission time of a message on the shared network, time units, > 0 (exponential)")
	handle := fs.Float64("handle", 0.1, "time a process of speed 1 takes to handle an event, time units, ≥ 0 (speeds uniform in [0.5, 1.5])")
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.First(
			flagcheck.Int("n", int64(*n), 4, MaxSimN, ""),
			flagcheck.Int("unstable", int64(*unstable), 0, int64(*n)-2, "at most N−2"),
			flagcheck.Int("k", int64(*k), 0, int64(*n-*unstable), "at most the core size"),
		); err != nil {
			return nil, err
		}
		if !(*tx > 0 && *tx < 1e6) || !(*handle >= 0 && *handle < 1e6) {
			return nil, fmt.Errorf("--tx %v, --handle %v: want 0 < tx < 1e6 and 0 ≤ handle < 1e6", *tx, *handle)
		}
		v, err := ab.ParseVariant(*variant)
		if err != nil {
			return nil, fmt.Errorf("--%v", err)
		}
		r := Round{Variant: v, N: *n, Unstable: *unstable, K: *k, Seed: *seed, Tx: *tx, Handle: *handle}
		res, err := r.Simulate()
		if err != nil {
			return nil, err
		}
		rep := &registry.SimReport{Model: "abcast", Mode: "discrete-event", Seed: *seed, Violations: []registry.ViolationRef{}}
		rep.Figures = map[string]any{
			"variant": v.String(), "n": *n, "core": res.Core, "k": res.K, "instances": res.Instances,
			"messages_total": res.Total, "messages_consensus": res.Consensus,
			"messages_consensus_phase1": res.Phase1, "messages_consensus_phase2": res.Phase2,
			"messages_broadcast": res.Broadcast, "messages_seq": res.Seq, "messages_seq_ack": res.SeqAck,
			"messages_decision": res.Decision,
			"latency":           res.Latency, "latency_consensus": res.ConsensusLatency, "deliveries": res.Delivered,
		}
		var b strings.Builder
		fmt.Fprintf(&b, "abcast %v: n=%d unstable=%d core s=%d", v, *n, *unstable, res.Core)
		if v == ab.ConsensusBased {
			fmt.Fprintf(&b, " k=%d (%d instances)", res.K, res.Instances)
		}
		fmt.Fprintf(&b, ", one message per member from t=%d; shared network, transmission exp(mean %g), handling %g/speed\n", StartTime, *tx, *handle)
		fmt.Fprintf(&b, "messages: %d in all = %d MSG + %d SEQ + %d SEQ acks to origins + %d DECISION + %d Paxos (phase 1 %d, phase 2 %d)\n",
			res.Total, res.Broadcast, res.Seq, res.SeqAck, res.Decision, res.Consensus, res.Phase1, res.Phase2)
		fmt.Fprintf(&b, "latency: %.1f time units to the last delivery (a consensus instance %.1f on average); %d deliveries\n",
			res.Latency, res.ConsensusLatency, res.Delivered)
		rep.Text = b.String()
		return rep, nil
	}
}
