package ringfd

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "ringfd",
		Doc:      "observation-ring failure detector with mending and the two-level BMG broadcast (Zhong et al., EuroMPI'19 §4.4–4.6), bounded delay",
		Define:   defineCheck,
		Mutants:  mutantInfos(),
		Simulate: defineSimulate,
	})
}

// mutantInfos lists the test-only broken variants of --mutant.
func mutantInfos() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		fd.MutantNoMending:         "an observer that detects its predecessor dead adopts no new one (§4.5 ¶3 skipped)",
		fd.MutantObserveSuccessor:  "daemon d expects heartbeats from d+1 instead of d−1",
		fd.MutantMendShortTimeout:  "mending never skips reported daemons and gives the new predecessor 1 tick",
		fd.MutantForwardAlways:     "FORWARDING without its guard msg ⊄ Reported: a message storm",
		fd.MutantForwardNever:      "a daemon records a FAULT but never forwards it",
		fd.MutantBMGPositiveOnly:   "ReliableBroadcast sends to i + 2^k only, not i − 2^k",
		fd.MutantHostedNotReported: "StartPropagation of a daemon omits Hosted{Eid}",
	}
	return registry.MutantInfos(fd.Mutants, docs)
}

// checkFlags are the flags of `ftcheck check ringfd`.
var checkFlagNames = []string{"n", "procs", "crashes", "delta", "period", "timeout", "bmg", "skip", "network",
	"request-waits-for-tick", "mutant", "proc-crashes", "ring", "forget-crashed"}

func defineCheck(fs *flag.FlagSet) registry.Builder {
	n := fs.Int("n", 4, fmt.Sprintf("number of daemons N, 1 … %d", MaxCheckN))
	procs := fs.Int("procs", 1, fmt.Sprintf("application processes per daemon (they die with their daemon), 0 … %d", MaxCheckProcs))
	crashes := fs.Int("crashes", 1, "crash budget: at most this many crashes, at any step, each of a daemon (with its processes) or of a single process; 0 … N-1")
	procCrashes := fs.Bool("proc-crashes", true, "single application processes may crash (seen by their daemon at once, §4.4); false: daemons only")
	ring := fs.String("ring", "", "observation ring as a permutation of the daemons, e.g. 0,2,1,3 (empty: the identity; --symmetry needs it)")
	delta := fs.Int("delta", 1, fmt.Sprintf("delay bound Δ in ticks: a message sent at tick t arrives in [t+1, t+Δ]; 1 … %d", MaxCheckDelta))
	period := fs.Uint64("period", 2, fmt.Sprintf("heartbeat period δ in ticks, 1 … %d", MaxTicks))
	timeout := fs.Uint64("timeout", 4, fmt.Sprintf("timeout η in ticks, 1 … %d", MaxTicks))
	bmg := fs.String("bmg", "paper", "broadcast topology: paper (Algorithm 1) or ompi (Open MPI)")
	skip := fs.Bool("skip", true, "mending skips daemons already in Reported (§4.5)")
	network := fs.String("network", "unordered", "network: unordered (multiset) or fifo (per pair)")
	wait := fs.Bool("request-waits-for-tick", false, "a daemon asked for heartbeats waits for its next tick")
	mut := fs.String("mutant", "", "test-only broken variant (see ftcheck list)")
	forget := fs.Bool("forget-crashed", false, "replace a crashed daemon's state by its Reported set and initial ring pointers: fewer states, the same verdicts (checker/env forget.go)")
	return func() (registry.Runner, error) {
		if err := checkSizes(*n, *procs, *crashes, *delta, *period, *timeout); err != nil {
			return nil, err
		}
		p := CheckParams{ForgetCrashed: *forget, N: *n, Procs: *procs, Crashes: *crashes, Delta: *delta, Period: *period, Timeout: *timeout,
			NoSkip: !*skip, RequestWaits: *wait, Mutant: mutant.Name(*mut), DaemonCrashesOnly: !*procCrashes}
		ids, err := ParseList(*ring)
		if err != nil {
			return nil, fmt.Errorf("--ring: %w", err)
		}
		for _, d := range ids {
			p.Ring = append(p.Ring, core.Rank(d))
		}
		if p.BMG, err = fd.ParseBMG(*bmg); err != nil {
			return nil, err
		}
		if p.Network, err = env.ParseNetwork(*network); err != nil {
			return nil, fmt.Errorf("--network %q: want unordered or fifo", *network)
		}
		if p.Mutant != mutant.None && !slices.Contains(fd.Mutants, p.Mutant) {
			return nil, fmt.Errorf("--mutant %q: unknown ringfd mutant (see ftcheck list)", *mut)
		}
		own := map[string]string{}
		for _, name := range checkFlagNames {
			own[name] = fs.Lookup(name).Value.String()
		}
		sm, err := NewSymModel(p)
		switch {
		case err == errNotRotation && symmetryAsked(fs):
			return nil, err
		case err == errNotRotation:
			m, err := NewCheckModel(p)
			if err != nil {
				return nil, err
			}
			return registry.Erase(m, "ringfd", own), nil
		case err != nil:
			return nil, err
		}
		return registry.Erase[*env.World](sm, "ringfd", own), nil
	}
}

// defineSimulate is `ftcheck simulate ringfd`: one run of the discrete-event
// simulator (Run), its report flattened into the JSON summary.
func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	build := BindSimulate(fs)
	return func(_ context.Context, progress func(string)) (*registry.SimReport, error) {
		p, err := build()
		if err != nil {
			return nil, err
		}
		r, err := Run(p)
		if err != nil {
			return nil, err
		}
		rep := &registry.SimReport{Model: "ringfd", Mode: "discrete-event", Seed: r.Seed, Seconds: r.Seconds,
			Violations: []registry.ViolationRef{}, Figures: map[string]any{
				"messages_daemon":     r.MessagesDaemon,
				"messages_process":    r.MessagesProcess,
				"messages_heartbeat":  r.MessagesHeartbeat,
				"messages_request":    r.MessagesRequest,
				"hops_max":            r.HopsMax,
				"detection_latency":   r.DetectionLatency,
				"propagation_latency": r.PropagationLatency,
				"violation_details":   r.Violations,
				"ticks":               r.Ticks,
				"crash_at":            r.CrashAt,
			}}
		for _, v := range r.Violations {
			prop, _, _ := strings.Cut(v, ":")
			rep.Violations = append(rep.Violations, registry.ViolationRef{Property: prop})
		}
		var b strings.Builder
		crashes := len(p.Fail)+len(p.FailProcs) > 0
		each := fmt.Sprintf("%d processes each", p.Procs)
		if p.Procs == 1 {
			each = "1 process each"
		}
		if crashes {
			fmt.Fprintf(&b, "N=%d daemons, %s; crashes at tick %d; simulated to tick %d\n", p.N, each, r.CrashAt, r.Ticks)
		} else {
			fmt.Fprintf(&b, "N=%d daemons, %s; no crash (--fail, --fail-procs); simulated to tick %d\n", p.N, each, r.Ticks)
		}
		b.WriteString(rankLegend(p.N, p.Procs))
		fmt.Fprintf(&b, "messages: %d daemon→daemon FAULT, %d daemon→process FAULT, %d heartbeats, %d requests\n",
			r.MessagesDaemon, r.MessagesProcess, r.MessagesHeartbeat, r.MessagesRequest)
		if crashes {
			fmt.Fprintf(&b, "hops_max %d, detection latency %d ticks, propagation latency %d ticks\n", r.HopsMax, r.DetectionLatency, r.PropagationLatency)
		}
		if len(r.Violations) == 0 {
			b.WriteString("all checked properties hold\n")
		}
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "VIOLATION %s\n", v)
		}
		rep.Text = b.String()
		return rep, nil
	}
}

// rankLegend says how the simulator numbers ranks: the daemons first, then
// the processes, daemon by daemon.
func rankLegend(n, procs int) string {
	if procs == 0 {
		return fmt.Sprintf("ranks: daemons p0…p%d, no processes\n", n-1)
	}
	return fmt.Sprintf("ranks: daemons p0…p%d, then processes p%d…p%d: process j of daemon d is p(%d + %d·d + j), numbered %d·d + j by --fail-procs\n",
		n-1, n, n*(1+procs)-1, n, procs, procs)
}

// symmetryAsked reports whether the command's --symmetry flag (bound by
// ftcheck check in the same flag set) is on.
func symmetryAsked(fs *flag.FlagSet) bool {
	f := fs.Lookup("symmetry")
	return f != nil && f.Value.String() == "true"
}
