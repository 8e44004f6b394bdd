package env

import "github.com/ftkernel/ftkernel/core"

// SoundnessToys are the toy models of this package's tests, configured so
// that together they use every semantics option (networks, loss, blocking
// calls, Fail ranks, Survivors, no detector, wakeups, lock-step rounds):
// the soundness tests (package env_test, soundness_*_test.go) check the
// environment on each. Each is small enough to explore exhaustively.
func SoundnessToys() map[string]Config {
	out := map[string]Config{}
	two := func(cfg Config) Config {
		cfg.Schedules = append(cfg.Schedules, one(1, 0))
		return cfg
	}
	out["flood-two-schedules"] = two(floodConfig(2))
	twoCall := [][][]core.Input{{{in{V: 0}}, {in{V: 1}}, nil}} // p2 only listens
	c := floodConfig(3)
	c.Network, c.Loss, c.Schedules = FIFO, LossOnCrash, twoCall
	out["flood-fifo-lossy"] = c
	c = floodConfig(3)
	c.Loss, c.Schedules = LossOnCrash, twoCall
	out["flood-lossy"] = c
	c = floodConfig(3)
	c.Blocking, c.Crashes, c.Fail = true, 0, []core.Rank{1}
	c.Schedules = [][][]core.Input{{{in{A: 0, V: 1}, in{A: 1, V: 1}}, {in{A: 0, V: 2}}, nil}}
	out["flood-blocking-fail"] = c
	c = floodConfig(3)
	c.Detector = DetectorNone
	out["flood-no-detector"] = c
	c = floodConfig(4)
	c.NewNode, c.Crashes, c.Survivors = newStar, 1, []core.Rank{0}
	out["star-survivor"] = c
	c = floodConfig(3)
	c.Schedules = [][][]core.Input{{{in{V: 1, Twice: true}}, {in{V: 2, Twice: true}}, nil}}
	c.Loss = LossOnCrash // losing one of two copies changes no node
	out["flood-twice-lossy"] = c
	c = tickerConfig(3, 2)
	c.Crashes, c.Wakeups, c.Survivors, c.CrashBeforeWakeup = 1, []uint64{7}, []core.Rank{0}, true
	out["ticker-wakeup"] = c
	c = tickerConfig(3, 2)
	c.Crashes, c.Timing = 1, LockStepRounds
	out["ticker-rounds"] = c
	return out
}
