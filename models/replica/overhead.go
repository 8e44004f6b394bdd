package replica

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Cost is the message count of one failure-free run: the program's
// logical sends and the DATA and COMMIT messages the replicas sent.
type Cost struct {
	Degree       int    `json:"degree"`
	LogicalSends uint64 `json:"logical_sends"`
	Data         uint64 `json:"data"`
	Commits      uint64 `json:"commits"`
}

// PerSend is (DATA + COMMIT) / logical sends: 2r − 1 with degree r on both
// sides (§4.4: "sent to all replicas of the destination process. An extra
// step is necessary as well for the master to commit").
func (c Cost) PerSend() float64 { return float64(c.Data+c.Commits) / float64(c.LogicalSends) }

// MeasureCost runs p failure-free (crashes forced to 0), taking the first
// enabled action at every step until quiescence, and counts the messages
// the replicas sent.
func MeasureCost(p Params) (Cost, error) {
	p.Crashes = 0
	m, err := NewModel(p)
	if err != nil {
		return Cost{}, err
	}
	w := m.Init()[0]
	var buf []checker.Action
	for steps := 0; !m.Quiescent(w); steps++ {
		if steps > 1<<20 {
			return Cost{}, fmt.Errorf("replica: no quiescence after %d steps", steps)
		}
		buf = m.Actions(w, buf[:0])
		if len(buf) == 0 {
			return Cost{}, fmt.Errorf("replica: stuck in a non-quiescent state")
		}
		if w, err = m.Apply(w, buf[0]); err != nil {
			return Cost{}, err
		}
	}
	c := Cost{Degree: p.Degree}
	for _, prog := range m.Config.Programs {
		for _, in := range prog {
			if in.Op == sm.OpSend {
				c.LogicalSends++
			}
		}
	}
	for r := range w.N() {
		d, k := node(w, r).Sent()
		c.Data += d
		c.Commits += k
	}
	return c, nil
}
