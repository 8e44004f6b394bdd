package checker

import (
	"context"
	"fmt"
	"time"
)

// Options bound and tune BFS and DFS. The zero value explores everything
// breadth first with one worker per CPU, checks every property not marked
// ExpectFail and stops at the first violation.
type Options struct {
	// Mode chooses the search run by Search: BreadthFirst (the zero value)
	// or DepthFirst. BFS and DFS ignore it.
	Mode Mode
	// Symmetry, when the model implements Symmetric, makes the visited set
	// hold fingerprints of canonical representatives (Model.Encode of
	// Symmetric.Canonical(s)), so that one state per symmetry class is
	// expanded. The search still walks real states: counterexamples replay
	// on the model as it is. Without Symmetric it has no effect
	// (Result.Symmetry says whether it was used).
	Symmetry bool
	// Lassos makes DFS report every reachable cycle of non-quiescent states
	// (a livelock: the system can run forever without reaching quiescence)
	// as a violation of LivelockProperty, with Trace.Loop set. BFS rejects
	// it (Result.Err).
	Lassos bool
	// Shrink passes every counterexample (lassos excepted) through Shrink
	// before it is reported; useful with DFS, whose counterexamples are its
	// stack paths rather than shortest ones.
	Shrink bool
	// MaxMemory, when positive, bounds the memory of the process in bytes:
	// both the Go heap (runtime/metrics /memory/classes/heap/objects:bytes,
	// sampled every few hundred states) and the resident set
	// (/proc/self/statm, sampled at most every 10 ms), each plus an estimate
	// of the next level's needs before BFS allocates it. At the bound the
	// search stops with StopMaxMemory, Complete false, every count so far
	// and a Result.Hint, rather than be killed. 0 takes the bound from the
	// machine when the search starts (machine.go: the smallest of the
	// cgroup limits that apply to the process, less what other processes
	// hold in them, and of MemAvailable plus the process's resident set,
	// minus a margin; MachineMemoryBound); negative means no bound.
	MaxMemory int64
	// MemoryFrom says where a positive MaxMemory comes from, for
	// Result.MemoryFrom and the hint ("" is "Options.MaxMemory"), e.g. the
	// source MachineMemoryBound returned with it.
	MemoryFrom string
	// machineRoot replaces "/" when reading the machine's memory (tests).
	machineRoot string
	// POR turns on partial-order reduction. In BFS: sleep sets with state
	// caching (see independence.go), which skip transitions that are
	// equivalent to checked ones while keeping every reachable state; it
	// needs a model that implements Independence and selected transition
	// properties that all declare what they read (Property.Reads). In DFS:
	// persistent sets with the stack proviso (see persistent.go), which also
	// skip states; it needs a model that implements Persistent, transition
	// properties that declare what they read, and invariants (and
	// ReadsState transition properties) marked Stable. Otherwise, and under
	// Symmetry (and Lassos in DFS), it has no effect and Result.PORNote says
	// why. Verdicts do not change; States (DFS), Transitions, Depth and
	// counterexamples (which may be longer than the shortest) may.
	POR bool
	// WholeStates keeps BFS's frontier as whole states even when the model
	// is a Codec (by default such a model's queued states are held as their
	// encodings; see Codec).
	WholeStates bool
	// SpillDir, with a Codec model, lets BFS write the queued states of a
	// level to a file in this directory once they take more than
	// QueueMemory bytes (default 256 MiB), in sequential blocks, and read
	// them back block by block when they are expanded; the file is deleted
	// when the level is done. Counts and counterexamples do not change.
	SpillDir string
	// QueueMemory is the in-memory budget of a level's queue under
	// SpillDir, in bytes; 0 means 256 MiB.
	QueueMemory int64
	// CheckpointDir, with CheckpointEvery, makes BFS write a checkpoint
	// (checkpoint.go) to this directory at the start of a level once
	// CheckpointEvery has passed since the last, and when it is canceled;
	// DFS (checkpoint_dfs.go) writes one between two steps. It needs a
	// Codec model; BFS also needs the compact frontier (no WholeStates, no
	// POR), and neither search checkpoints with an Eventually property
	// selected. The directory is created if missing and must be writable;
	// the search locks it (checkpoint_lock.go) while it runs. Any of these
	// failing stops the search before it starts, with Result.Err.
	CheckpointDir   string
	CheckpointEvery time.Duration
	// Resume continues the BFS or DFS whose checkpoint is in this directory,
	// locking it while the search runs. The checkpoint's checksum is
	// verified first, and it must be of the same model (its Name), the same
	// selected Properties and the same Symmetry, POR and Lassos in effect;
	// otherwise the search stops before it starts, with Result.Err. Workers
	// may differ. It ends with the counts of an uninterrupted run. Resume
	// does not write checkpoints: set CheckpointDir (it may be the same
	// directory) for that.
	Resume string
	// Workers is the number of goroutines expanding states; 0 means
	// runtime.NumCPU(). Results do not depend on it.
	Workers int
	// MaxDepth, when positive, bounds the search: states at depth MaxDepth
	// (initial states are depth 0) are checked but not expanded.
	MaxDepth int
	// MaxStates, when positive, stops the search once this many distinct
	// states are known. It is checked between levels, so the search may
	// overshoot by up to one level; the last level is checked, not expanded.
	MaxStates int64
	// Context, when non-nil, cancels the search; cancellation is noticed
	// within one chunk of states per worker.
	Context context.Context
	// Properties, when non-empty, names exactly the properties to check
	// (ExpectFail ones included); otherwise every property not marked
	// ExpectFail is checked. An unknown name is an error.
	Properties []string
	// ContinueAfterViolation keeps searching after a violation, reporting the
	// first (shortest) counterexample of each property. By default the
	// search stops at the end of the level where the first violation shows:
	// that level's states are expanded (their successors counted in
	// Transitions and transition properties checked) but the next level is
	// not inserted, so States counts exactly the states checked.
	ContinueAfterViolation bool
	// Progress, when non-nil, is called every ProgressEvery while the search
	// runs, and once at its end, from one goroutine at a time.
	Progress func(Stats)
	// ProgressEvery is the period of Progress; 0 means one second.
	ProgressEvery time.Duration
	// Split, when non-nil, makes BFS one shard of a sharded search
	// (shard.go): Result.Fingerprints then holds its visited set.
	Split *Split
}

// Stats is a progress report.
type Stats struct {
	Distinct  int64   // distinct states found so far
	Generated int64   // states generated so far (see Result.Transitions)
	Queue     int64   // states of the current level not yet expanded
	Depth     int     // depth of the level being expanded
	Rate      float64 // Generated / Seconds, in states per second
	// Seconds is the search's wall time, in seconds; after a resume it is
	// cumulative, like Generated: Result.ResumedSeconds plus this run's.
	Seconds float64
}

// StopReason says why a search ended.
type StopReason string

const (
	StopDone      StopReason = "done"       // every reachable state explored
	StopViolation StopReason = "violation"  // a property failed
	StopMaxDepth  StopReason = "max-depth"  // Options.MaxDepth reached
	StopMaxStates StopReason = "max-states" // Options.MaxStates reached
	StopCanceled  StopReason = "canceled"   // Options.Context canceled
	StopMaxMemory StopReason = "max-memory" // Options.MaxMemory reached
	StopError     StopReason = "error"      // Result.Err is set
)

// Result is the outcome of BFS. Counts follow TLC.
type Result struct {
	Model string
	// States is the number of distinct states found (by fingerprint).
	States int64
	// Transitions is the number of states generated: the initial states
	// plus one successor for every enabled action of every expanded state,
	// duplicates included (TLC's "states generated").
	Transitions int64
	// Depth is the largest distance from an initial state of any state
	// found (initial states are at depth 0). On a complete search it is the
	// diameter of the state graph; TLC prints Depth+1 as "depth of the
	// complete state graph search". Under DFS it is the deepest stack
	// (the number of steps of the longest path the search walked).
	Depth int
	// Complete reports that every reachable state was found and checked.
	Complete bool
	Stop     StopReason
	// Seconds is the search's wall time in seconds. After Options.Resume it
	// is cumulative over the runs, as the counts are: ResumedSeconds (the
	// time of the runs before, up to the point the checkpoint saved; the
	// work after it, done again, counts once) plus this run's.
	Seconds float64
	// ResumedSeconds is the part of Seconds carried over from the
	// checkpoint (0 without Options.Resume).
	ResumedSeconds float64
	Workers        int
	// Mode is the search that ran.
	Mode Mode
	// Symmetry reports that the visited set held canonical representatives
	// (Options.Symmetry and a Symmetric model): States then counts
	// symmetry classes.
	Symmetry bool
	// POR reports that partial-order reduction was used (Options.POR and a
	// model and properties that allow it); PORNote says why not otherwise.
	POR     bool
	PORNote string
	// Slept counts, under POR, the enabled transitions never taken: in BFS
	// because they were in their state's sleep set (on a complete search,
	// Transitions + Slept is the unreduced search's Transitions), in DFS
	// because they were outside their state's persistent set.
	Slept int64
	// Reexpanded counts, under POR, the expansions of states already
	// visited that were reached again with a smaller sleep set (BFS), or
	// the states that the stack proviso expanded fully (DFS).
	Reexpanded int64
	// HeapBytes and RSSBytes are the largest Go heap and resident set, in
	// bytes, sampled during the search when it had a memory bound (0
	// otherwise, or when the resident set cannot be read).
	HeapBytes int64
	RSSBytes  int64
	// MemoryBound is the memory bound in bytes the search ran under (0:
	// none) and MemoryFrom where it came from (Options.MaxMemory or
	// Options.MemoryFrom, a cgroup limit, MemAvailable), margin included.
	MemoryBound int64
	MemoryFrom  string
	// Hint, after a stop at the memory bound, says what to try instead.
	Hint string
	// Checkpoints counts the checkpoints written; Resumed says the search
	// started from one (Options.Resume).
	Checkpoints int
	Resumed     bool
	// Violations holds one shortest counterexample per violated property,
	// shortest first; ties keep the order found (by level, then by the
	// property's place in Model.Properties).
	Violations []*Trace
	// Err is a bug in the model (an Apply error, an unknown property name)
	// or the Context's error; the search stops at it.
	Err error
	// VisitedBytes is the memory held by the visited set's table.
	VisitedBytes int64
	// Compact reports that BFS held its frontier as encodings (Codec).
	// QueueBytes then sums, over every level, the bytes its queued states
	// took (encodings plus 4 bytes of offset per state, in memory or
	// spilled) and Queued the states queued (each expanded level's size,
	// summed); MaxQueue is the largest level, in states; Spilled is the
	// bytes written to SpillDir.
	Compact    bool
	QueueBytes int64
	Queued     int64
	MaxQueue   int64
	Spilled    int64
	// CollisionProb is TLC's optimistic estimate of the chance that a
	// fingerprint collision hid a state: States·(Transitions−States)/2^64.
	CollisionProb float64
	// CollisionBound is the simple bound States²/2^65.
	CollisionBound float64
	// Bounds holds, after a complete search, one entry per checked
	// Eventually property that holds: how long it can take (eventually.go).
	Bounds []Bound
	// Fingerprints, with Options.Split, is the visited set, ascending;
	// SplitStates and SplitTransitions are the states found and generated
	// before the split level was expanded, which every shard shares
	// (shard.go).
	Fingerprints                  []uint64
	SplitStates, SplitTransitions int64
	// Expanded, with Options.Split, lists the states this shard expanded,
	// by ascending fingerprint, with their out-degrees; InitTransitions is
	// the initial states, which Transitions counts too. The unsharded
	// Transitions is InitTransitions plus the out-degrees of the union of
	// the shards' lists (MergeExpansions).
	Expanded        []Expansion
	InitTransitions int64
}

// BytesPerState is VisitedBytes divided by States.
func (r *Result) BytesPerState() float64 {
	if r.States == 0 {
		return 0
	}
	return float64(r.VisitedBytes) / float64(r.States)
}

// QueueBytesPerState is the mean size of a queued state under the compact
// frontier: QueueBytes over every state queued (0 without it).
func (r *Result) QueueBytesPerState() float64 {
	if !r.Compact || r.Queued == 0 {
		return 0
	}
	return float64(r.QueueBytes) / float64(r.Queued)
}

func (o *Options) progressEvery() time.Duration {
	if o.ProgressEvery > 0 {
		return o.ProgressEvery
	}
	return time.Second
}

// Mode is a search strategy.
type Mode uint8

const (
	// BreadthFirst is BFS: parallel, shortest counterexamples.
	BreadthFirst Mode = iota
	// DepthFirst is DFS: one worker, memory for the stack only, lassos.
	DepthFirst
)

// String is "bfs" or "dfs".
func (m Mode) String() string {
	switch m {
	case BreadthFirst:
		return "bfs"
	case DepthFirst:
		return "dfs"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Search runs BFS or DFS as opt.Mode says.
func Search[S any](m Model[S], opt Options) *Result {
	if opt.Mode == DepthFirst {
		return DFS(m, opt)
	}
	return BFS(m, opt)
}
