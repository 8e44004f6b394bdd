package checker

// The compact frontier of BFS (Codec models; see codec.go and queue.go).

// levelLen is the number of states of the current level.
func (x *search[S]) levelLen() int {
	if x.q != nil {
		return int(x.q.n)
	}
	return len(x.frontier)
}

// newQueue starts a level with the run's spill settings.
func (x *search[S]) newQueue() *queue {
	budget := x.opt.QueueMemory
	if budget <= 0 {
		budget = 256 << 20
	}
	return newQueue(budget, x.opt.SpillDir)
}

// noteQueue records the current level's size in the Result (compact
// frontier): the largest level, its bytes, and the running totals behind
// QueueBytesPerState.
func (x *search[S]) noteQueue() {
	q := x.q
	if q == nil {
		return
	}
	x.qStates += q.n
	x.res.Queued = x.qStates
	x.res.QueueBytes += q.enc
	x.res.Spilled += q.spilled
	if q.n > x.res.MaxQueue {
		x.res.MaxQueue = q.n
	}
}

// nextLevelCompact makes the winners of all shards, in key order, the next
// level: their encodings are copied from the workers' arenas into a new
// queue (spilling as it fills), their keys become the level's parent links.
// The order is orderedWinners', as for whole states.
func (x *search[S]) nextLevelCompact() error {
	all := x.orderedWinners(x.levelLen())
	q := x.newQueue()
	links := make([]uint64, len(all))
	for i, nd := range all {
		links[i] = nd.key
		if err := q.push(x.workers[nd.w].arena.at(nd.off, nd.n)); err != nil {
			q.close()
			return err
		}
	}
	for _, w := range x.workers {
		w.arena.reset()
	}
	x.q.close()
	x.q, x.links = q, append(x.links, links)
	return nil
}
