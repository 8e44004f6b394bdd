// Package hyperquicksort is the model of statemachine/hyperquicksort
// (Hyperquicksort over the DGRP, de Camargo 2017 §4.2, Algorithms 1–3),
// registered as `ftcheck check hyperquicksort` and `ftcheck simulate
// hyperquicksort`.
//
// The model is its own transition system (model.go), not a checker/env
// one: its state holds the shared store of §4.2.2 besides the processes
// and the messages in flight. At the start of every sorting round the
// environment picks the round's non-recommended set (at most
// --non-recommended-max processes, the same at every process); then the
// recommended processes start the round in any order, messages arrive in
// any order, and a barrier ends the round. Properties (props.go): the
// output is sorted and a permutation of the input (P-DGRP-4), and every
// run ends. The ULFM baseline (--baseline ulfm, ulfm.go) excludes failed
// processes for good and has no store; each barrier with failures runs
// revoke, agree, acknowledge and shrink through models/era's
// MPIX_Comm_agree program. docs/hyperquicksort.md gives the runs.
package hyperquicksort
