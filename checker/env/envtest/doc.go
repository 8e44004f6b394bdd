// Package envtest checks the environment's own soundness on any model built
// on checker/env, for the tests of env and of every models/<p>: that
// Quiescent agrees with Actions (Quiescence), that two worlds that differ
// never share an encoding or a fingerprint (Distinct, over View, the
// world's exported view), along random walks that pick uniformly among
// Actions (Walk) and over small exhaustive runs (Explore). It imports no
// protocol.
package envtest
