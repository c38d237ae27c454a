package graphalytics

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFindFrom(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "a", "repo")
	pkg := filepath.Join(repo, "bench", "graphalytics")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// None anywhere: the candidate beside the module root.
	if got, want := findFrom(pkg), filepath.Join(top, "a", "shared", "graphalytics"); got != want {
		t.Errorf("no suite: %s, want %s", got, want)
	}
	// One beside a parent of the module root.
	far := filepath.Join(top, "shared", "graphalytics")
	if err := os.MkdirAll(far, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findFrom(pkg); got != far {
		t.Errorf("suite higher up: %s, want %s", got, far)
	}
	// The nearest wins.
	near := filepath.Join(top, "a", "shared", "graphalytics")
	if err := os.MkdirAll(near, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findFrom(pkg); got != near {
		t.Errorf("suite beside the root: %s, want %s", got, near)
	}
	t.Setenv(DirEnv, far)
	if got, named := FindDir(); got != far || !named {
		t.Errorf("FindDir with %s set: %s, %v", DirEnv, got, named)
	}
}

func TestGraphs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.properties", "a.properties", "a.v", "a-BFS", "x.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Graphs(dir)
	if err != nil || !slices.Equal(got, []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}) {
		t.Fatalf("Graphs: %v, %v", got, err)
	}
}
