package env_test

import "github.com/ftkernel/ftkernel/checker"

// envAction is the action of kind with operand P = p.
func envAction(kind uint8, p int32) checker.Action { return checker.Action{Kind: kind, P: p} }
