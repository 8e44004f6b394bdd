package ringfd

import (
	"flag"
	"fmt"

	"github.com/ftkernel/ftkernel/internal/mutant"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// BindSimulate binds the flags of `ftcheck simulate ringfd` to fs, with
// the names (--n --procs --fail --fail-procs --period --timeout
// --seed; --json belongs to the command), and returns a function that
// builds the Params once fs is parsed.
func BindSimulate(fs *flag.FlagSet) func() (Params, error) {
	n := fs.Int("n", 64, fmt.Sprintf("number of daemons N (nodes), 1 … %d", fd.MaxDaemons))
	procs := fs.Int("procs", 12, fmt.Sprintf("application processes per daemon, 0 … %d", fd.MaxProcs))
	fail := fs.String("fail", "", "daemons that crash with their processes at --crash-at, e.g. 3,5-7")
	failProcs := fs.String("fail-procs", "", "processes that crash alone at --crash-at, by process number d·procs + j")
	period := fs.Uint64("period", 10, fmt.Sprintf("heartbeat period δ in ticks, 1 … %d", MaxTicks))
	timeout := fs.Uint64("timeout", 0, fmt.Sprintf("timeout η in ticks, 0 … %d (0: 2·period, the paper's η = δ * 2)", MaxTicks))
	seed := fs.Uint64("seed", 1, "seed of the crash phase and the delays")
	delayMin := fs.Uint64("delay-min", 1, fmt.Sprintf("smallest message delay in ticks, 0 … %d", MaxTicks))
	delayMax := fs.Uint64("delay-max", 1, fmt.Sprintf("largest message delay in ticks, 1 … %d (uniform between, from the seed)", MaxTicks))
	zero := fs.Bool("zero-delay", false, "deliver every message in the tick it is sent (the spec's worked examples)")
	startup := fs.Uint64("startup-delay", 0, fmt.Sprintf("extra delay of every daemon's first heartbeat (§5.2's job start-up), 0 … %d ticks", MaxTicks))
	crashAt := fs.Uint64("crash-at", 0, fmt.Sprintf("tick of the --fail and --fail-procs crashes, 0 … %d (0: 10·period plus a phase from the seed)", MaxHorizon))
	horizon := fs.Uint64("horizon", 0, fmt.Sprintf("last tick simulated, 0 … %d (0: enough for every crash to be detected and broadcast)", MaxHorizon))
	trust := fs.String("trust", "timer-reset", "trust rule: timer-reset (Model T) or freshness (Model F)")
	skip := fs.Bool("skip", true, "mending skips daemons already in Reported (§4.5)")
	bmg := fs.String("bmg", "paper", "broadcast topology: paper (Algorithm 1) or ompi (Open MPI comm_ft_reliable_bcast.c)")
	literal := fs.Bool("literal-loop", false, "Algorithm 1's loop literally: k = 0 … ⌊log2 N⌋, duplicates and self-sends kept")
	wait := fs.Bool("request-waits-for-tick", false, "a daemon asked for heartbeats waits for its next tick instead of sending one at once")
	mut := fs.String("mutant", "", "run a broken variant (see ftcheck list)")
	return func() (Params, error) {
		if err := simSizes(*n, *procs, *period, *timeout, *delayMin, *delayMax, *startup, *crashAt, *horizon); err != nil {
			return Params{}, err
		}
		p := Params{N: *n, Procs: *procs, Period: *period, Timeout: *timeout, Seed: *seed,
			DelayMin: *delayMin, DelayMax: *delayMax, ZeroDelay: *zero, StartupDelay: *startup,
			CrashAt: *crashAt, Horizon: *horizon, NoSkip: !*skip, LiteralLoop: *literal,
			RequestWaitsForTick: *wait, Mutant: mutant.Name(*mut)}
		var err error
		if p.Fail, err = ParseList(*fail); err != nil {
			return p, fmt.Errorf("--fail: %w", err)
		}
		if p.FailProcs, err = ParseList(*failProcs); err != nil {
			return p, fmt.Errorf("--fail-procs: %w", err)
		}
		switch *trust {
		case "timer-reset":
		case "freshness":
			p.Trust = fd.Freshness
		default:
			return p, fmt.Errorf("--trust %q: want timer-reset or freshness", *trust)
		}
		if p.BMG, err = fd.ParseBMG(*bmg); err != nil {
			return p, err
		}
		return p, nil
	}
}
