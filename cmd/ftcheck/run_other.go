//go:build !linux

package main

import "os/exec"

// setChildAttrs does nothing here: a rank's process exits when its stdin,
// held by ftcheck run, closes.
func setChildAttrs(*exec.Cmd) {}
