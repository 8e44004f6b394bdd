// Package era is the Early Returning Agreement (Herault et al., SC'15) bound
// to its environment: the flags and model builder of `ftcheck check era`
// (model.go), the §2.1 properties composed from props (props.go), the
// mutant list, the random-walk campaigns of `ftcheck simulate era`
// (simulate.go), and the paper's Figure 3 MPIX_Comm_agree (ULFM) benchmark
// with its own properties (ulfm_bench.go, ulfm_props.go). The protocol
// itself is statemachine/era (imported as erasm).
package era
