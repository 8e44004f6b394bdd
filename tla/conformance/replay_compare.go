package conformance

import "github.com/google/go-cmp/cmp"

// compareSpecState compares spec state i (s, decoded with fromSpec and
// checked with check, nil: no check) with the Go state got (goErr: the Go
// state does not translate) and counts the comparison in st. A spec state
// that does not decode or check is its error; a Go state that does not
// translate, or differs (cmp.Diff), is div(i, reason).
func compareSpecState[S any](st *Stats, i int, s map[string]any, fromSpec func(map[string]any) (S, error), check func(S) error,
	got S, goErr error, div func(i int, diff string) error) error {
	spec, err := fromSpec(s)
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(spec); err != nil {
			return err
		}
	}
	if goErr != nil {
		return div(i, goErr.Error())
	}
	st.Compared++
	if d := cmp.Diff(spec, got); d != "" {
		return div(i, d)
	}
	return nil
}
