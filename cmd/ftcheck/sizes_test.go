package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestSizesRefusedBeforeAllocating: a size flag out of its documented
// range exits 2 with one line naming the flag and its range, and is
// refused before the model allocates anything for it (the run allocates
// less than 64 MiB in all; a size of 10^8 processes would take gigabytes).
func TestSizesRefusedBeforeAllocating(t *testing.T) {
	const big = "100000000"
	for _, c := range []struct {
		args []string
		want string // a substring of the stderr line
	}{
		{[]string{"simulate", "correction", "--P", big}, "--P 100000000: out of range 1 … 4194304"},
		{[]string{"simulate", "era", "--n", big}, "--n 100000000: out of range 1 … 65536"},
		{[]string{"check", "replica", "--procs", big}, "--procs 100000000: out of range 1 … "},
		{[]string{"check", "era", "--n", big}, "--n 100000000: out of range 1 … "},
		{[]string{"check", "era", "--n", big, "--inputs-seed", "1"}, "--n 100000000: out of range 1 … 65536"},
		{[]string{"simulate", "era", "--agreements", big}, "--agreements 100000000: out of range 1 … "},
		{[]string{"simulate", "era", "--values", big}, "--values 100000000: out of range 1 … "},
		{[]string{"simulate", "era", "--walks", big}, "--walks 100000000: out of range 1 … "},
		{[]string{"simulate", "era", "--max-steps", "10000000000"}, "--max-steps 10000000000: out of range 0 … "},
		{[]string{"simulate", "era", "--node-size", big, "--topology", "binary/binary"}, "--node-size 100000000: out of range 0 … "},
		{[]string{"check", "correction", "--P", big}, "--P 100000000: out of range 1 … 16"},
		{[]string{"simulate", "correction", "--k", big, "--tree", "kary"}, "--k 100000000: out of range "},
		{[]string{"simulate", "correction", "--runs", big}, "--runs 100000000: out of range 1 … "},
		{[]string{"simulate", "correction", "--tree", "gossip", "--gossip-rounds", big}, "--gossip-rounds 100000000: out of range 0 … "},
		{[]string{"check", "replica", "--degree", big}, "--degree 100000000: out of range 1 … "},
		{[]string{"check", "replica", "--rounds", big}, "--rounds 100000000: out of range 0 … "},
		{[]string{"simulate", "replica", "--procs", big}, "--procs 100000000: out of range 1 … "},
		{[]string{"simulate", "replica", "--walks", big}, "--walks 100000000: out of range 1 … "},
		{[]string{"simulate", "replica", "--max-steps", "10000000000"}, "--max-steps 10000000000: out of range 1 … "},
		{[]string{"simulate", "replica", "--failure-probability", "--p", "10000000000"}, "--p 10000000000: out of range 1 … "},
		{[]string{"check", "ringfd", "--n", big}, "--n 100000000: out of range 1 … 8"},
		{[]string{"check", "ringfd", "--procs", big}, "--procs 100000000: out of range 0 … "},
		{[]string{"simulate", "ringfd", "--n", big}, "--n 100000000: out of range 1 … 8192"},
		{[]string{"simulate", "ringfd", "--procs", big}, "--procs 100000000: out of range 0 … 64"},
		{[]string{"check", "gossipfd", "--n", big}, "--n 100000000: out of range 2 … 16"},
		{[]string{"check", "gossipfd", "--horizon", big}, "--horizon 100000000: out of range 0 … "},
		{[]string{"check", "gossipfd", "--timing", "bounded", "--max-rounds", big}, "--max-rounds 100000000: out of range 1 … "},
		{[]string{"simulate", "gossipfd", "--load", "--n", big}, "--n 100000000: out of range 2 … "},
		{[]string{"simulate", "gossipfd", "--detection", "--ticks-per-round", big}, "--ticks-per-round 100000000: out of range 1 … "},
		{[]string{"check", "eventlogger", "--procs", big}, "--procs 100000000: out of range 1 … 64"},
		{[]string{"simulate", "eventlogger", "--procs", big}, "--procs 100000000: out of range 1 … 1024"},
		{[]string{"simulate", "eventlogger", "--walks", big}, "--walks 100000000: out of range 0 … "},
		{[]string{"check", "twophase", "--rm", big}, "--rm 100000000: out of range 1 … 15"},
		{[]string{"check", "paxos", "--proposers", big}, "--proposers 100000000: out of range 1 … 4"},
		{[]string{"check", "paxos", "--acceptors", big}, "--acceptors 100000000: out of range 1 … 7"},
		{[]string{"check", "paxos", "--instances", big}, "--instances 100000000: out of range 1 … 8"},
		{[]string{"check", "paxos", "--loss", big}, "--loss 100000000: out of range 0 … 8"},
		{[]string{"simulate", "paxos", "--instances", big}, "--instances 100000000: out of range 1 … 10000"},
		{[]string{"simulate", "paxos", "--acceptors", big}, "--acceptors 100000000: out of range 1 … 63"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, out, errs := ftcheck(t, c.args...)
		runtime.ReadMemStats(&after)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errs, c.want)
		}
		if out != "" {
			t.Errorf("%v: stdout %q, want nothing", c.args, out)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%v: allocated %d MiB before refusing", c.args, alloc>>20)
		}
	}
}

// TestSizeRangesDocumented: every size flag of every model says its range
// in its -h.
func TestSizeRangesDocumented(t *testing.T) {
	for _, c := range []struct {
		cmd   []string
		flags []string
	}{
		{[]string{"check", "era"}, []string{"n", "crashes", "agreements", "values", "node-size", "inputs-seed"}},
		{[]string{"simulate", "era"}, []string{"n", "crashes", "agreements", "values", "node-size", "walks", "max-steps"}},
		{[]string{"check", "correction"}, []string{"P", "k", "d", "L", "o", "delay", "gossip-rounds", "faults"}},
		{[]string{"simulate", "correction"}, []string{"P", "k", "d", "L", "o", "g", "delay", "gossip-rounds", "gossip-time", "runs"}},
		{[]string{"check", "replica"}, []string{"procs", "degree", "crashes", "rounds", "delta", "t-gossip", "ping-timeout", "max-rounds", "cleanup"}},
		{[]string{"simulate", "replica"}, []string{"procs", "degree", "rounds", "p", "r", "trials", "walks", "max-steps"}},
		{[]string{"check", "ringfd"}, []string{"n", "procs", "crashes", "delta", "period", "timeout"}},
		{[]string{"simulate", "ringfd"}, []string{"n", "procs", "period", "timeout", "delay-min", "delay-max", "startup-delay", "crash-at", "horizon"}},
		{[]string{"check", "gossipfd"}, []string{"n", "crashes", "cleanup", "window", "horizon", "detect-bound", "delta", "t-gossip", "ping-timeout", "max-rounds"}},
		{[]string{"simulate", "gossipfd"}, []string{"n", "trials", "ticks-per-round", "delay-min", "delay-max", "ping-timeout", "cleanup", "round", "crashes"}},
		{[]string{"check", "twophase"}, []string{"rm"}},
		{[]string{"check", "paxos"}, []string{"proposers", "acceptors", "instances", "crashes", "recoveries", "loss", "dup", "delta"}},
		{[]string{"simulate", "paxos"}, []string{"proposers", "acceptors", "instances", "crashes", "recoveries", "loss", "dup", "delta", "walks", "max-steps", "crash-prob"}},
	} {
		code, out, _ := ftcheck(t, append(c.cmd, "-h")...)
		if code != 0 {
			t.Fatalf("%v -h: exit %d", c.cmd, code)
		}
		for _, f := range c.flags {
			_, after, ok := strings.Cut(out, "\n  -"+f+" ")
			help, _, _ := strings.Cut(after, "\n  -")
			if !ok || !strings.Contains(help, " … ") {
				t.Errorf("%v -h: --%s gives no range (lo … hi):%s", c.cmd, f, help)
			}
		}
	}
}
