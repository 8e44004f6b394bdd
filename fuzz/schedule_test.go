package fuzz

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// followSchedule runs m from s, each byte of sched choosing, modulo their
// number, the next action among Model.Actions, until quiescence, the end of
// the bytes or maxScheduleSteps; it appends the steps to tr and returns the
// last state.
func followSchedule(m *env.Model, s *env.World, tr *checker.Trace, sched []byte) (*env.World, error) {
	var buf []checker.Action
	for _, b := range sched {
		if len(tr.Steps) >= maxScheduleSteps || m.Quiescent(s) {
			break
		}
		buf = m.Actions(s, buf[:0])
		if len(buf) == 0 {
			break
		}
		a := buf[int(b)%len(buf)]
		next, err := m.Apply(s, a)
		if err != nil {
			return s, fmt.Errorf("model bug: Apply of an enabled action: %w", err)
		}
		tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(s, a)})
		s = next
	}
	return s, nil
}
