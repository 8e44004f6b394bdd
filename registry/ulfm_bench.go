package registry

import "fmt"

// simulateULFMBench runs the paper's Figure 3 benchmark on the
// MPIX_Comm_agree layer. Not yet implemented: it reports so clearly.
func simulateULFMBench(_ *eraFlags, scenario string, _ int, _ uint64, _ string, _ func(string)) (*SimReport, error) {
	return nil, fmt.Errorf("--scenario %q: not implemented yet", scenario)
}
