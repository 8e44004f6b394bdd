package gossipfd

import "fmt"

// KindName names an action kind of the round model: "round" or "crash"
// (checker.KindNamer).
func (m *CheckModel) KindName(k uint8) string {
	switch k {
	case actRound:
		return "round"
	case actCrash:
		return "crash"
	}
	return fmt.Sprintf("kind(%d)", k)
}
