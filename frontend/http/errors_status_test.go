package http

import (
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// The HTTP status of the engine's codes that name the server's resources:
// memory and disk are 507, never the retryable 503 nor a generic 500.
func TestStatusOfResources(t *testing.T) {
	for code, want := range map[string]int{
		engine.CodeOutOfMemory: 507,
		engine.CodeDiskFull:    507,
		engine.CodeTooMany:     503,
		engine.CodeUnavailable: 503,
	} {
		if got := statusOf(code); got != want {
			t.Errorf("statusOf(%s) = %d, want %d", code, got, want)
		}
	}
}
