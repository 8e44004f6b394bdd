package envtest

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// Ignorer is implemented by models that declare which enabled actions may
// remain in a quiescent world (env.Model.Ignorable: budget crashes).
type Ignorer interface {
	Ignorable(a checker.Action) bool
}

// Quiescence checks, in w, that m.Quiescent(w) holds exactly when every
// action m.Actions(w) lists is one m declares ignorable (a model that is
// no Ignorer declares none). A quiescent world with work left means the
// Quiescence properties are checked where the run has not ended (and a
// search that stops there hides what follows); a non-quiescent world with
// nothing but ignorable actions is a run that can end unchecked (the
// liveness properties never see it).
func Quiescence(m Model, w *env.World) error {
	ig, _ := m.(Ignorer)
	as := m.Actions(w, nil)
	owed := 0
	for _, a := range as {
		if ig == nil || !ig.Ignorable(a) {
			owed++
		}
	}
	switch q := m.Quiescent(w); {
	case q && owed > 0:
		var ds []string
		for _, a := range as {
			if ig == nil || !ig.Ignorable(a) {
				ds = append(ds, m.Describe(w, a))
			}
		}
		return fmt.Errorf("%s: quiescent (%v), yet %d actions are enabled that are not ignorable: %s", m.Name(), w, owed, strings.Join(ds, "; "))
	case !q && owed == 0:
		return fmt.Errorf("%s: not quiescent (%v), yet no action but ignorable ones is enabled (%d enabled)", m.Name(), w, len(as))
	}
	return nil
}
