package graphalytics

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DirEnv names the environment variable that points at the reference
// graphs' folder.
const DirEnv = "QUIVER_GRAPHALYTICS_DIR"

// FindDir returns the folder of the reference graphs: $QUIVER_GRAPHALYTICS_DIR
// when set, else shared/graphalytics beside the module root or beside one
// of its parents (where CI keeps its external suites). named reports
// whether the variable named it: a named folder must exist, a default
// one may be absent (a bare clone).
func FindDir() (dir string, named bool) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, true
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	return findFrom(wd), false
}

// findFrom looks for shared/graphalytics beside the module root holding
// wd, then beside each of its parents; it returns the first candidate
// when there is none.
func findFrom(wd string) string {
	root := wd
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			root = d
			break
		}
	}
	first := filepath.Join(filepath.Dir(root), "shared", "graphalytics")
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "graphalytics")
		if fi, err := os.Stat(cand); err == nil && fi.IsDir() {
			return cand
		}
		if filepath.Dir(d) == d {
			return first
		}
	}
}

// Graphs lists the path prefixes (folder/NAME) of the graphs in dir: one
// per NAME.properties file, sorted.
func Graphs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), ".properties"); ok && !e.IsDir() {
			out = append(out, filepath.Join(dir, name))
		}
	}
	slices.Sort(out)
	return out, nil
}
