// Package statemachine holds one package per protocol (era, correction, …).
// Each is pure and deterministic and imports only core, the standard library
// and the module-internal mutant switch, so a program that embeds a protocol
// pays for nothing else. deps_test.go keeps this rule.
package statemachine
