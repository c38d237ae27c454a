package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Open says at start-up which database it serves: a mistyped data
// directory must not pass for the real one.
func TestOpenSaysWhatItOpened(t *testing.T) {
	open := func(dir string) string {
		var buf bytes.Buffer
		db, err := engine.Open(dir, engine.Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(dir, "with-base") && !strings.Contains(buf.String(), "opened an existing database") {
			mustQuery(t, db, "CREATE (:A), (:A)-[:R]->(:B)", nil)
			if _, err := db.SaveBase(); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		return buf.String()
	}
	parent := t.TempDir()
	missing := filepath.Join(parent, "typo")
	if log := open(missing); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "created a new, empty database") {
		t.Errorf("a directory that did not exist: %q", log)
	}
	if log := open(missing); !strings.Contains(log, "level=INFO") || !strings.Contains(log, "holds no database yet") {
		t.Errorf("an existing empty directory: %q", log)
	}
	withBase := filepath.Join(parent, "with-base")
	open(withBase)
	if log := open(withBase); !strings.Contains(log, "opened an existing database") ||
		!strings.Contains(log, "nodes=3") || !strings.Contains(log, "relationships=1") {
		t.Errorf("a directory with a base: %q", log)
	}
	db, err := engine.Open(withBase, engine.Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Query(context.Background(), "MATCH (n) RETURN count(*)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := drain(res); len(rows) != 1 || rows[0] != "3" {
		t.Errorf("reopened: %v", rows)
	}
}
