package checker

import "time"

// stats reads the progress counters the workers update once per chunk.
func (x *search[S]) stats() Stats {
	sec := x.elapsed().Seconds()
	g := x.generated.Load()
	st := Stats{
		Distinct:  x.distinct.Load(),
		Generated: g,
		Queue:     x.queue.Load(),
		Depth:     int(x.depth.Load()),
		Seconds:   sec,
	}
	if sec > 0 {
		st.Rate = float64(g) / sec
	}
	return st
}

func (x *search[S]) progressLoop(done <-chan struct{}, exited chan<- struct{}) {
	defer close(exited)
	t := time.NewTicker(x.opt.progressEvery())
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			x.opt.Progress(x.stats())
		}
	}
}
