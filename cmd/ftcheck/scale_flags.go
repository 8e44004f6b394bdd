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
	fs.StringVar(&s.checkpoint, "checkpoint", "", "write a checkpoint (BFS or --dfs) to this directory every --checkpoint-every, and on Ctrl-C")
	fs.DurationVar(&s.every, "checkpoint-every", 10*time.Minute, "with --checkpoint: time between checkpoints")
	fs.StringVar(&s.resume, "resume", "", "continue the run (BFS or --dfs) whose checkpoint is in this directory (same model and flags)")
	return s
}

// apply sets the options. Without --max-memory the checker takes its bound
// from the machine; the Go runtime is given the same limit (unless
// GOMEMLIMIT is set), so that it collects harder before the bound.
func (s *scaleFlags) apply(opt *checker.Options) {
	opt.SpillDir, opt.QueueMemory, opt.WholeStates = s.spill, s.queueMB<<20, s.whole
	opt.CheckpointDir, opt.CheckpointEvery, opt.Resume = s.checkpoint, s.every, s.resume
	if opt.CheckpointDir != "" && opt.CheckpointEvery <= 0 {
		opt.CheckpointEvery = time.Nanosecond
	}
	if opt.MaxMemory == 0 && os.Getenv("GOMEMLIMIT") == "" {
		if b, _ := checker.MachineMemoryBound(); b > 0 {
			debug.SetMemoryLimit(b)
		}
	}
}

// report prints the queue line and, after a stop at the memory bound, the
// hint.
func reportScale(w io.Writer, res *checker.Result) {
	if res.Compact {
		fmt.Fprintf(w, "%.1f bytes/state in the queue (%d states queued, largest level %d, %d bytes spilled)\n",
			res.QueueBytesPerState(), res.Queued, res.MaxQueue, res.Spilled)
	}
	if res.Checkpoints > 0 || res.Resumed {
		fmt.Fprintf(w, "checkpoints written: %d, resumed: %v\n", res.Checkpoints, res.Resumed)
	}
	if res.Hint != "" {
		fmt.Fprintln(w, "hint:", res.Hint)
	}
}
