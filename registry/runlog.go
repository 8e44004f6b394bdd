package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// RunLog shards a simulation campaign by run index and merges it back
// exactly (ftcheck simulate --shard, ftcheck merge). A campaign that
// supports it draws each run from (seed, run index) alone, and asks the
// RunLog its context carries (RunLogOf) before each run:
//
//   - recording (a shard, K of N): Owns(i) is i mod N = K; the campaign
//     runs only those indices, every one of them (even after a violating
//     run), and Records what each measured;
//   - replaying (the merge): Owns is true for every index and Replay
//     returns the record a shard made, so that the campaign aggregates
//     every run, in index order, with its own code, without running any.
//
// A campaign made of several sub-campaigns (one per tree and fault rate,
// say) calls Begin before each; the sub-campaigns are numbered in the
// order of those calls, which must not depend on the shard. A nil *RunLog
// owns every index and records nothing, so a campaign calls it
// unconditionally.
type RunLog struct {
	Shard, Shards int
	replay        bool
	begun         int // sub-campaigns begun, replaying
	mu            sync.Mutex
	// Campaigns[c][i] is the record of run i of sub-campaign c.
	Campaigns []map[int]json.RawMessage
	// Seconds, replaying, is the shards' summed wall-clock time, for
	// campaigns that report a rate (steps per second).
	Seconds float64
}

// NewRunLog is the log of shard k of n.
func NewRunLog(k, n int) *RunLog { return &RunLog{Shard: k, Shards: n} }

// ReplayLog is the log that replays the records of campaigns: the union of
// every shard's Campaigns, sub-campaign by sub-campaign.
func ReplayLog(campaigns []map[int]json.RawMessage) *RunLog {
	return &RunLog{Shards: 1, replay: true, Campaigns: campaigns}
}

type runLogKey struct{}

// WithRunLog returns ctx carrying l.
func WithRunLog(ctx context.Context, l *RunLog) context.Context {
	return context.WithValue(ctx, runLogKey{}, l)
}

// RunLogOf is the log ctx carries, or nil.
func RunLogOf(ctx context.Context) *RunLog {
	l, _ := ctx.Value(runLogKey{}).(*RunLog)
	return l
}

// Begin starts the next sub-campaign and returns its number.
func (l *RunLog) Begin() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.replay {
		l.Campaigns = append(l.Campaigns, map[int]json.RawMessage{})
		return len(l.Campaigns) - 1
	}
	// Replaying: sub-campaigns are met in the order the shards met them.
	c := l.begun
	l.begun++
	return c
}

// Owns reports whether this shard runs run i.
func (l *RunLog) Owns(i int) bool {
	return l == nil || l.replay || i%l.Shards == l.Shard
}

// Replaying reports whether the runs are replayed from records.
func (l *RunLog) Replaying() bool { return l != nil && l.replay }

// Record stores what run i of sub-campaign c measured (as JSON).
func (l *RunLog) Record(c, i int, v any) error {
	if l == nil || l.replay {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Campaigns[c][i] = b
	return nil
}

// Replay reads the record of run i of sub-campaign c into v.
func (l *RunLog) Replay(c, i int, v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c >= len(l.Campaigns) {
		return fmt.Errorf("merge: the shards recorded %d sub-campaigns, the campaign has more", len(l.Campaigns))
	}
	b, ok := l.Campaigns[c][i]
	if !ok {
		return fmt.Errorf("merge: no shard recorded run %d of sub-campaign %d", i, c)
	}
	return json.Unmarshal(b, v)
}

// Used reports whether the campaign consulted the log: a simulation that
// did not cannot be sharded.
func (l *RunLog) Used() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.Campaigns) > 0 || l.begun > 0
}
