// Package props holds the properties the checker verifies, per protocol:
// state invariants, quiescence checks (on states with nothing left to
// deliver, detect or call) and transition properties (over the effects of a
// step and the history so far). Each property's doc cites its source.
package props
