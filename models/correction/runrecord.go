package correction

import (
	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
)

// runRecord is what a shard of a campaign (ftcheck simulate --shard)
// records of one run, and what the merge replays: the run's figures and
// the guarantee it violated, if any.
type runRecord struct {
	Figures   RunFigures       `json:"figures"`
	Violation *violationRecord `json:"violation,omitempty"`
}

// violationRecord is a RunViolation in a runRecord.
type violationRecord struct {
	Faults   []core.Rank `json:"faults"`
	Property string      `json:"property"`
	Detail   string      `json:"detail"`
}

// campaignRun is run i of sub-campaign c of Campaign under log: simulated
// and recorded when this shard owns it, replayed from the shards' records
// when merging, and left at zero figures (never aggregated: the merge
// replays it from its owner) otherwise.
func (s *CorrSim) campaignRun(log *registry.RunLog, c int, sims *Sims, rate float64, seed uint64, i int) (RunFigures, error) {
	switch {
	case !log.Owns(i):
		return RunFigures{}, nil
	case log.Replaying():
		var rec runRecord
		if err := log.Replay(c, i, &rec); err != nil {
			return RunFigures{}, err
		}
		fig := rec.Figures
		if v := rec.Violation; v != nil {
			var set core.RankSet
			for _, r := range v.Faults {
				set.Add(r)
			}
			fig.Violation = &RunViolation{Run: i, Faults: set, Err: &GuaranteeError{Property: v.Property, Detail: v.Detail}}
		}
		return fig, nil
	}
	res, viol, err := s.RunChecked(sims, logp.RandomFaults(s.Params.P, rate, seed, uint64(i)), uint64(i))
	if err != nil {
		return RunFigures{}, err
	}
	fig := figuresOf(res)
	fig.Violation = viol
	rec := runRecord{Figures: fig}
	if viol != nil {
		rec.Violation = &violationRecord{viol.Faults.Ranks(), viol.Err.Property, viol.Err.Detail}
	}
	return fig, log.Record(c, i, rec)
}
