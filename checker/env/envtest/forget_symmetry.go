package envtest

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// Symmetric is an env model with a symmetry given as a canonical encoder
// (checker.CanonicalEncoder over the worlds of the env.Model it wraps,
// registry.EnvBacked), such as gossipfd.SymmetricEnv and ringfd.SymModel.
type Symmetric interface {
	checker.CanonicalEncoder[*env.World]
	Env() *env.Model
}

// SymmetryReport compares the symmetric depth-first search of a model that
// forgets crashed processes against the symmetric search of the same model
// without forgetting, and against the forgetting search without symmetry.
type SymmetryReport struct {
	// States: distinct states (one per symmetry class) of the symmetric
	// search without forgetting and with it; ForgetPlainStates: distinct
	// states of the forgetting search without symmetry.
	States, ForgetStates, ForgetPlainStates int64
	// Classes and QuiescentClasses: the symmetry classes of the worlds
	// visited and of the quiescent worlds (equal in the three searches).
	Classes, QuiescentClasses int
	// Violated lists the properties violated (equal in the three), sorted,
	// comma-separated.
	Violated string
}

// CompareForgetSymmetric runs checker.DFS under checker.Options.Symmetry on
// plain and on forget, the same symmetric model without and with
// env.Config.ForgetCrashed (each a CanonicalEncoder: one world per class is
// expanded), and checker.DFS without symmetry on forget's env model, each
// continuing after violations and bounded by maxStates, with their
// properties other than Eventually ones and two more that record the
// classes (canonical keys) of the visited and the quiescent worlds:
// plain's mapped through Model.Forgotten and then plain's canonical
// encoder, forget's through forget's canonical encoder. It returns an
// error (ErrIncomplete wrapped for a search stopped at its bound) unless
// forget forgets and plain does not, the three searches find the same
// violated properties, the forgetting symmetric search has no more states
// than the plain symmetric one, the three have the same classes of
// visited worlds and of quiescent worlds, and every counterexample of the
// forgetting symmetric search replays to its violation on both env models.
// The two canonical encoders must be the same function of a world's
// contents (gossipfd's RotatedKey and ringfd's RotationKey read the world's
// accessors, not the model's name).
//
// What is comparable under symmetry, and why. Let G be the symmetry group
// (the rotations of ranks), c(w) the canonical key (c(w) = c(v) exactly
// when v = ρw for some ρ in G), and φ = Model.Forgotten (the map of the
// soundness argument of checker/env forget.go). A symmetric search of a
// model whose Actions, Apply, Quiescent and properties respect G expands
// exactly one world of each reachable class, the first it meets: which
// one depends on the order of the search. So the encodings of the visited
// and quiescent worlds, and the numbers of transitions, are not comparable
// between two symmetric searches; the sets of classes, their number
// (States) and the violated properties (the verdicts are invariant under
// G) are. The premise of the composition is
//
//	(P) φ(ρw) = ρφ(w) for every world w and every ρ in G:
//
// Forget commutes with the renaming (the forgotten node of rank p maps to
// the forgotten node of its image) and clearing the detections of the
// crashed processes commutes with any renaming of ranks. Under (P) the
// forgetting model respects G as the plain one does (its step is
// Apply_f(φ(w), a) = φ(Apply(w, a)), and a renamed action of a renamed
// world gives the renamed successor), and c(φ(w)) depends on w's class
// only: c(φ(ρw)) = c(ρφ(w)) = c(φ(w)). The reachable forgetting worlds are
// the φ-images of the reachable plain worlds (forget.go), so the classes
// the symmetric forgetting search visits, {c(v)}, are {c(φ(w))} over the
// classes the symmetric plain search visits, whichever representative w
// it met, and are the classes of the forgetting search without symmetry;
// likewise for the quiescent worlds (quiescence is invariant under φ and
// G). Distinct plain classes may have the same image class, hence no more
// states with forgetting. Without (P) the plain side's set depends on the
// representatives met, and the forgetting model need not respect G, so its
// symmetric search may miss a class: the third search, without symmetry,
// sees every class that is reachable and makes that a difference.
func CompareForgetSymmetric(plain, forget Symmetric, maxStates int64) (SymmetryReport, error) {
	var rep SymmetryReport
	pm, fm := plain.Env(), forget.Env()
	if pm.ForgetsCrashed() || !fm.ForgetsCrashed() {
		return rep, fmt.Errorf("envtest: CompareForgetSymmetric(%s, %s): want a plain model and a forgetting one", pm.Name(), fm.Name())
	}
	image := func(w *env.World) (string, error) {
		fw, err := pm.Forgotten(w)
		if err != nil {
			return "", err
		}
		return string(plain.EncodeCanonical(nil, fw)), nil
	}
	class := func(w *env.World) (string, error) { return string(forget.EncodeCanonical(nil, w)), nil }
	pres, pq, _, pall, err := dfsKeys(pm, plain, maxStates, false, true, image)
	if err != nil {
		return rep, err
	}
	fres, fq, _, fall, err := dfsKeys(fm, forget, maxStates, false, true, class)
	if err != nil {
		return rep, err
	}
	ures, uq, _, uall, err := dfsKeys(fm, nil, maxStates, false, true, class)
	if err != nil {
		return rep, err
	}
	rep = SymmetryReport{States: pres.States, ForgetStates: fres.States, ForgetPlainStates: ures.States,
		Classes: len(fall), QuiescentClasses: len(fq), Violated: violated(pres)}
	name := fmt.Sprintf("%s (symmetry)", fm.Name())
	switch {
	case violated(fres) != rep.Violated:
		return rep, fmt.Errorf("%s: violated {%s} without forgetting, {%s} with", name, rep.Violated, violated(fres))
	case violated(ures) != rep.Violated:
		return rep, fmt.Errorf("%s: violated {%s} with symmetry, {%s} with forgetting and without symmetry", name, rep.Violated, violated(ures))
	}
	for _, c := range []struct {
		p, f, u map[string]bool
		plural  string
	}{
		{pq, fq, uq, "quiescent worlds"},
		{pall, fall, uall, "worlds"},
	} {
		if err := sameClasses(c.p, c.f, "the images of the plain symmetric search's "+c.plural, "the forgetting symmetric search's"); err != nil {
			return rep, fmt.Errorf("%s: %w", name, err)
		}
		if err := sameClasses(c.u, c.f, "the forgetting search's "+c.plural+" without symmetry", "with symmetry"); err != nil {
			return rep, fmt.Errorf("%s: %w", name, err)
		}
	}
	if fres.States > pres.States {
		return rep, fmt.Errorf("%s: %d states with forgetting, %d without", name, fres.States, pres.States)
	}
	for _, tr := range fres.Violations {
		for _, m := range []*env.Model{fm, pm} {
			_, err := checker.Replay[*env.World](m, tr)
			var ve *checker.ViolationError
			if !errors.As(err, &ve) || ve.Violation.Property != tr.Violation.Property {
				return rep, fmt.Errorf("%s: the counterexample of %s found with forgetting and symmetry does not replay to it on %s: %v", name, tr.Violation.Property, m.Name(), err)
			}
		}
	}
	return rep, nil
}

// sameClasses returns an error unless the sets of classes a (named what)
// and b (named other) are equal.
func sameClasses(a, b map[string]bool, what, other string) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s fall in %d classes, %s in %d", what, len(a), other, len(b))
	}
	for k := range a {
		if !b[k] {
			return fmt.Errorf("a class of %s is not one of %s", what, other)
		}
	}
	return nil
}
