package registry

import "fmt"

func errUnknownMutant(model, name string) error {
	return fmt.Errorf("--mutant %q: unknown %s mutant (see ftcheck list)", name, model)
}
