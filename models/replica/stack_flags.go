package replica

import (
	"flag"
	"fmt"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// stackFlags are the detector's flags of `ftcheck check replica --fd
// brr|dbrr`, named as in `ftcheck check gossipfd --timing bounded`.
type stackFlags struct {
	cleanup, tgossip, pingTimeout, maxRounds uint64
	ping                                     bool
	timing                                   string
	delta                                    int
}

// stackFlagNames are the flags of stackFlags, recorded in traces.
var stackFlagNames = []string{"cleanup", "ping", "timing", "delta", "t-gossip", "ping-timeout", "max-rounds"}

func (s *stackFlags) bind(fs *flag.FlagSet) {
	fs.Uint64Var(&s.cleanup, "cleanup", 0, "with --fd brr|dbrr: T_cleanup in rounds of T_gossip, 0 … 1000 (0: the paper's setting: DBRR 3⌈log2 n⌉, BRR 2⌈log2 n⌉; n = number of replicas)")
	fs.BoolVar(&s.ping, "ping", true, "with --fd brr|dbrr: the consensus (ping) phase of §5.3 before a declaration")
	fs.StringVar(&s.timing, "timing", "bounded", "with --fd brr|dbrr: bounded (checker/env bounded delay, the only timing of the stack)")
	fs.IntVar(&s.delta, "delta", 1, "with --fd brr|dbrr: message delay bound Δ in ticks, 1 … 1000")
	fs.Uint64Var(&s.tgossip, "t-gossip", 4, "with --fd brr|dbrr: T_gossip in ticks, 1 … 1000")
	fs.Uint64Var(&s.pingTimeout, "ping-timeout", 3, "with --fd brr|dbrr and --ping: ping timeout in ticks, 1 … 1000 (> 2Δ, < T_gossip)")
	fs.Uint64Var(&s.maxRounds, "max-rounds", 10, "with --fd brr|dbrr: gossip rounds each host runs, 1 … 1000")
}

// perfectOnly rejects the stack's flags when set with --fd perfect.
func (s *stackFlags) perfectOnly(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		for _, n := range stackFlagNames {
			if f.Name == n && err == nil {
				err = fmt.Errorf("--%s is a flag of the gossip stack: use it with --fd brr|dbrr", n)
			}
		}
	})
	return err
}

// params turns the flags into StackParams for variant v.
func (s *stackFlags) params(v fd.Variant) (StackParams, error) {
	if s.timing != "bounded" {
		return StackParams{}, fmt.Errorf("--timing %q: the stack runs under bounded delay only (want bounded)", s.timing)
	}
	return StackParams{Variant: v, Cleanup: s.cleanup, Ping: s.ping, TGossip: s.tgossip, PingTimeout: s.pingTimeout,
		MaxRounds: s.maxRounds, Delta: s.delta}, nil
}

// model builds the replica model of p: on the environment's perfect
// detector, or on the gossip stack for --fd brr|dbrr.
func (f *replicaFlags) model(p Params) (*Model, error) {
	if f.fd == "perfect" {
		return NewModel(p)
	}
	v, err := fd.ParseVariant(f.fd)
	if err != nil {
		return nil, err
	}
	s, err := f.stack.params(v)
	if err != nil {
		return nil, err
	}
	return NewStackModel(p, s)
}
