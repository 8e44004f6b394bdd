package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/ftkernel/ftkernel/checker"
)

// scaleFlags are check's options for large runs: the queue on disk,
// checkpoints and resume, and the whole-state frontier for comparison.
type scaleFlags struct {
	spill      string
	queueMB    int64
	whole      bool
	checkpoint string
	every      time.Duration
	resume     string
}

func bindScale(fs *flag.FlagSet) *scaleFlags {
	s := &scaleFlags{}
	fs.StringVar(&s.spill, "spill", "", "BFS: write a level's queued states to a file in this directory once they pass --queue-memory (models with a decoder)")
	fs.Int64Var(&s.queueMB, "queue-memory", 256, "with --spill: MiB of queued states kept in memory per level")
	fs.BoolVar(&s.whole, "whole-states", false, "BFS: keep whole states in the queue instead of their encodings (for comparison)")
	fs.StringVar(&s.checkpoint, "checkpoint", "", "write a checkpoint to this directory (created if missing; must be writable; locked against other runs) every --checkpoint-every, and on Ctrl-C or SIGTERM. Works with BFS without --por or --whole-states, and with --dfs (also with --por, --symmetry, --lassos); not with eventually properties; the model must decode its states")
	s.every = 10 * time.Minute
	if fs.Lookup("checkpoint-every") == nil { // msglog's model flag of that name (its checkpoints, in deliveries) wins
		fs.DurationVar(&s.every, "checkpoint-every", s.every, "with --checkpoint: time between checkpoints")
	}
	fs.StringVar(&s.resume, "resume", "", "continue the run whose checkpoint is in this directory; a damaged checkpoint (checksum) is refused. Same model, model flags, --dfs, --property, --symmetry, --por and --lassos as the run that wrote it; --workers may change (results do not depend on it). Add --checkpoint (the same directory) to keep writing checkpoints. Seconds and generated/s are then cumulative over the runs")
	return s
}

// apply sets the options. Without --max-memory the memory bound is the
// machine's (checker.MachineMemoryBound: the smallest of the process's
// cgroup limits, less what other processes hold in them, and of
// MemAvailable plus this process's resident set, minus a margin), read
// once here and passed on in opt, so that the search, any later search of
// the run (--mutants) and the Go runtime share it. The runtime's soft
// memory limit (debug.SetMemoryLimit) is set to the bound, unless
// GOMEMLIMIT is set, so that it collects harder before the bound.
func (s *scaleFlags) apply(opt *checker.Options) {
	opt.SpillDir, opt.QueueMemory, opt.WholeStates = s.spill, s.queueMB<<20, s.whole
	opt.CheckpointDir, opt.CheckpointEvery, opt.Resume = s.checkpoint, s.every, s.resume
	if opt.CheckpointDir != "" && opt.CheckpointEvery <= 0 {
		opt.CheckpointEvery = time.Nanosecond
	}
	switch {
	case opt.MaxMemory == 0:
		if b, from := checker.MachineMemoryBound(); b > 0 {
			opt.MaxMemory, opt.MemoryFrom = b, from
		}
	case opt.MaxMemory > 0 && opt.MemoryFrom == "":
		opt.MemoryFrom = "--max-memory"
	}
	if opt.MaxMemory > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(opt.MaxMemory)
	}
}

// report prints the queue line and, after a stop at the memory bound, the
// hint.
func reportScale(w io.Writer, res *checker.Result) {
	if res.Compact {
		fmt.Fprintf(w, "%.1f bytes/state in the queue (%d states queued, largest level %d, %d bytes spilled)\n",
			res.QueueBytesPerState(), res.Queued, res.MaxQueue, res.Spilled)
	}
	if res.Resumed {
		fmt.Fprintf(w, "checkpoints written: %d, resumed: true (seconds and generated/s are cumulative: %.2fs before this run, %.2fs in it)\n",
			res.Checkpoints, res.ResumedSeconds, res.Seconds-res.ResumedSeconds)
	} else if res.Checkpoints > 0 {
		fmt.Fprintf(w, "checkpoints written: %d, resumed: false\n", res.Checkpoints)
	}
	if res.Hint != "" {
		fmt.Fprintln(w, "hint:", res.Hint)
	}
}
