package conformance

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// envStepper is the part of a model in the checker's environment a replay
// drives: *env.Model and the models that embed it.
type envStepper interface {
	Actions(s *env.World, buf []checker.Action) []checker.Action
	Apply(s *env.World, a checker.Action) (*env.World, error)
}

// replayEnvSteps replays the spec steps 1.. of tr on m from world w: each
// step's env action (goAction of the spec state after the step) must be
// enabled in the Go world and is applied, then compare(i, world) compares
// spec state i with the Go world. It counts Go steps in st; a step that has
// no enabled Go action or fails to apply is div(i, reason).
func replayEnvSteps(st *Stats, tr *itfTrace, m envStepper, w *env.World,
	goAction func(*env.World, map[string]any) (checker.Action, error),
	div func(i int, diff string) error, compare func(i int, w *env.World) error) error {
	if err := compare(0, w); err != nil {
		return err
	}
	var buf []checker.Action
	for i := 1; i < len(tr.States); i++ {
		act, err := goAction(w, tr.States[i])
		if err != nil {
			return div(i, err.Error())
		}
		buf = m.Actions(w, buf[:0])
		if !slices.Contains(buf, act) {
			return div(i, fmt.Sprintf("Go action %s (%v) is not enabled", env.KindName(act.Kind), act))
		}
		if w, err = m.Apply(w, act); err != nil {
			return div(i, err.Error())
		}
		st.GoSteps++
		if err := compare(i, w); err != nil {
			return err
		}
	}
	return nil
}

// readReplayModel is readReplay followed by building the Go model of the
// instance (model: the instance's Model method) with mutant mut.
func readReplayModel[M any](path string, model func(mutant.Name) (M, error), mut mutant.Name) (Stats, *itfTrace, M, error) {
	st, tr, err := readReplay(path)
	if err != nil {
		var zero M
		return st, tr, zero, err
	}
	m, err := model(mut)
	return st, tr, m, err
}
