package engine_test

import (
	"errors"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Resuming from a log position is refused with 0A000; a closed database
// refuses feeds, and closing it ends the open ones.
func TestSubscribeChangesRefusals(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SubscribeChanges(engine.SubscribeOptions{FromLSN: 42})
	if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeNotSupported {
		t.Fatalf("resume: %v, want 0A000", err)
	}
	f, err := db.SubscribeChanges(engine.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := f.Next(t.Context()); !errors.Is(err, engine.ErrChangeFeedClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := db.SubscribeChanges(engine.SubscribeOptions{}); err == nil {
		t.Fatal("a closed database opened a feed")
	}
}
