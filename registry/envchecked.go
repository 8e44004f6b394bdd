package registry

import (
	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// EnvChecked returns the model that r searches when it was made by Erase
// from an *env.Model or from a model that wraps one (EnvBacked, such as a
// symmetry): the model itself, with its optional interfaces
// (checker.CanonicalEncoder among them), where EnvModel returns the
// wrapped env model. Tests use it to run the symmetric search with their
// own observers.
func EnvChecked(r Runner) (checker.Model[*env.World], bool) {
	er, ok := r.(*envRunner)
	if !ok {
		return nil, false
	}
	return er.m, true
}
