package era

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/registry"
)

// walkRecord is what one walk of `ftcheck simulate era` measured, as a
// shard records it (ftcheck simulate --shard, registry.RunLog) and the merge
// replays it: every figure the campaign's totals read.
type walkRecord struct {
	Stat    checker.WalkStat `json:"stat"`
	Sends   int              `json:"sends"`
	ByKind  map[string]int   `json:"by_kind,omitempty"`
	Rounds  int              `json:"rounds"`
	Mended  int              `json:"mended"`
	PerMax  float64          `json:"per_max"`
	PerMean float64          `json:"per_mean"`
}

func (f *walkFigures) record(st checker.WalkStat) walkRecord {
	return walkRecord{Stat: st, Sends: f.sends, ByKind: f.byKind, Rounds: f.rounds, Mended: f.mended, PerMax: f.per.Max, PerMean: f.per.Mean}
}

// recordTo makes o record each walk it sees end into sub-campaign c of log
// instead of adding it to the totals (a shard owns walks that are not
// consecutive, so it keeps no totals).
func (o *eraObserver) recordTo(log *registry.RunLog, c int) {
	o.log, o.campaign = log, c
}

// recordEnd records walk i (recordTo) and recycles its figures.
func (o *eraObserver) recordEnd(i int, f *walkFigures, st checker.WalkStat) {
	err := o.log.Record(o.campaign, i, f.record(st))
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil && o.recordErr == nil {
		o.recordErr = fmt.Errorf("walk %d: %w", i, err)
	}
	delete(o.live, i)
	o.recycle(f)
}

// replay is the merge of a sharded campaign: it adds the walks' records
// to the totals in index order, up to and including the lowest violating
// walk, as the unsharded campaign stops there, and returns what
// checker.Walk would have. The violating walk's trace is drawn again from
// (seed, index) by one walk of m (opt gives the seed and step bound);
// Seconds is the shards' sum (RunLog.Seconds).
func (o *eraObserver) replay(m *env.Model, log *registry.RunLog, c int, opt checker.WalkOptions) (*checker.WalkResult, error) {
	res := &checker.WalkResult{Model: m.Name(), ViolationWalk: -1}
	for i := range opt.Walks {
		var rec walkRecord
		if err := log.Replay(c, i, &rec); err != nil {
			return nil, err
		}
		f := o.fig(i)
		f.sends, f.rounds, f.mended, f.violated = rec.Sends, rec.Rounds, rec.Mended, rec.Stat.Violated
		f.per = PerProcess{Max: rec.PerMax, Mean: rec.PerMean}
		for k, v := range rec.ByKind {
			f.byKind[k] = v
		}
		o.ObserveEnd(i, nil, rec.Stat)
		res.PerWalk = append(res.PerWalk, rec.Stat)
		res.Steps += int64(rec.Stat.Steps)
		if rec.Stat.Violated {
			res.ViolationWalk = i
			break
		}
	}
	res.Walks = len(res.PerWalk)
	if res.Seconds = log.Seconds; res.Seconds > 0 {
		res.StepsPerSec = float64(res.Steps) / res.Seconds
	}
	if v := res.ViolationWalk; v >= 0 {
		opt.Walks, opt.Owns = v+1, func(i int) bool { return i == v }
		again := checker.Walk[*env.World](m, opt)
		if again.Err != nil {
			return nil, again.Err
		}
		if again.Violation == nil {
			return nil, fmt.Errorf("merge: walk %d violated a property in its shard but not when drawn again from the seed", v)
		}
		res.Violation = again.Violation
	}
	return res, nil
}
