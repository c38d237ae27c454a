// Package quiver_test holds repository-wide checks. TestLayerDirection
// enforces DESIGN.md's rule that dependencies point down the layers only,
// and keeps the test-support packages (internal/floodtest, netfault,
// linearcheck, serverproc) in tests.
package quiver_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/quiverdb/quiver"

// allowed lists, for every package of the module, the module packages it may
// import (a trailing "/" allows a whole subtree). A package missing here
// fails the test, so a new package must take its place in the layering.
var allowed = map[string][]string{
	"temporal":              nil,
	"vector":                nil,
	"csr":                   nil,
	"jsontext":              nil,                                // the JSON scalars the frontends, the shell and COPY … TO write alike
	"jsonvalue":             {"temporal", "vector", "jsontext"}, // values, entities and paths as JSON text, for the answers and COPY … TO alike
	"engine/errs":           nil,
	"engine/gql":            {"engine/errs"},
	"engine/catalog":        {"engine/errs"},
	"engine/storage":        {"temporal", "vector", "csr", "engine/errs", "engine/catalog", "engine/storage/vfs", "engine/progress"},
	"engine/storage/vfs":    nil,                    // the filesystem the durable parts write through
	"engine/progress":       nil,                    // counters long work updates and watchers read
	"engine/storage/wal":    {"engine/storage/vfs"}, // bytes only: storage reaches it through its Log interface
	"engine/procs":          {"vector", "engine/errs", "engine/catalog", "engine/memory"},
	"engine/algo":           {"vector", "csr", "engine/errs", "engine/catalog", "engine/storage", "engine/memory", "engine/progress", "engine/procs"},
	"engine/plancache":      {"vector", "engine/catalog", "engine/storage", "engine/plan"},
	"engine/access":         {"vector", "engine/errs", "engine/catalog", "engine/gql", "engine/procs", "engine/plan"},
	"engine/admin":          {"vector", "engine/errs", "engine/catalog", "engine/gql", "engine/storage", "engine/procs", "engine/load", "engine/progress", "engine/access"},
	"engine/index":          {"vector", "engine/errs", "engine/catalog", "engine/storage", "engine/procs"},                                  // the secondary-index manager: FULLTEXT (VECTOR) kept from commits
	"engine/index/fulltext": {"vector", "engine/errs", "engine/catalog", "engine/storage", "engine/index", "engine/procs", "engine/memory"}, // FULLTEXT on bleve
	"engine/changes":        {"vector", "engine/errs", "engine/catalog", "engine/gql", "engine/settings", "engine/storage", "engine/storage/vfs"},
	"engine/durable":        {"engine/errs", "engine/storage", "engine/storage/vfs", "engine/storage/wal", "engine/progress", "engine/load"},
	"engine/settings":       {"engine/errs"},
	"engine/system":         {"engine/errs", "engine/storage"},
	"engine/fle":            {"vector", "engine/errs", "engine/catalog", "engine/storage"},                                                                      // field-level encryption: the cipher, its records, the store's sealer
	"engine/index/vector":   {"vector", "engine/errs", "engine/catalog", "engine/storage", "engine/index", "engine/memory", "engine/procs", "engine/functions"}, // exact and HNSW vector search; the search procedures read a storage transaction
	"engine/storageprocs":   {"vector", "engine/errs", "engine/storage", "engine/procs"},
	"engine/timeseries":     {"temporal", "vector", "engine/errs", "engine/catalog", "engine/storage", "engine/procs", "engine/functions"}, // quiver.ts.aggregate reads a storage transaction's columns
	"engine/memory":         {"temporal", "vector", "engine/errs"},
	"engine/functions":      {"temporal", "vector", "engine/errs", "engine/memory"},
	"engine/export":         {"temporal", "vector", "engine/errs", "engine/catalog", "engine/storage", "engine/storage/vfs", "engine/progress", "jsonvalue"}, // a whole graph written as import's files; COPY … TO's JSON text as the frontends write it
	"engine/load":           {"temporal", "vector", "engine/errs", "engine/catalog", "engine/storage", "engine/storage/vfs", "engine/progress"},
	"engine/plan":           {"temporal", "vector", "engine/errs", "engine/gql", "engine/procs", "engine/functions"},
	"engine/plan/physical":  {"vector", "engine/plan", "engine/functions"},
	"engine/plan/opt":       {"vector", "engine/errs", "engine/plan", "engine/plan/physical", "engine/gql", "engine/functions"}, // gql: its tests parse queries; functions: aggregates' properties
	"engine/expr":           {"temporal", "vector", "engine/errs", "engine/catalog", "engine/storage", "engine/plan", "engine/memory", "engine/functions"},
	"engine/exec":           {"temporal", "vector", "engine/errs", "engine/catalog", "engine/storage", "engine/plan", "engine/plan/physical", "engine/procs", "engine/memory", "engine/functions", "engine/expr", "engine/exec/rowkey", "engine/exec/idset", "engine/exec/inttable", "engine/exec/rowstore", "engine/exec/pathtree"},
	"engine/exec/rowkey":    {"temporal", "vector", "engine/functions"}, // the byte keys of grouping and DISTINCT
	"engine/exec/idset":     {"vector"},                                 // sets over ids for the operators' hot loops
	"engine/exec/inttable":  {"vector"},                                 // int64 keys to group numbers, and a row read as such a key
	"engine/exec/rowstore":  {"vector", "engine/memory"},                // what operators keep across batches, charged
	"engine/exec/pathtree":  nil,                                        // a shortest-path search's levels, parent hops and their walk back
	"engine":                {"temporal", "vector", "csr", "engine/"},
	"cluster":               {"vector", "engine", "engine/errs", "engine/storage", "engine/storage/vfs", "engine/storage/vfs/cryptfs"}, // replication over raft: implements the engine's Replication hook
	"frontend/jsonio":       {"temporal", "vector", "jsontext", "jsonvalue", "engine"},
	"frontend/arrowio":      {"temporal", "vector", "engine", "frontend/jsonio"},
	"frontend/auth":         {"vector", "engine", "engine/storage/vfs", "engine/storage/vfs/cryptfs"}, // vfs: the audit trail's files
	"frontend/serving":      nil,
	"frontend/http":         {"temporal", "vector", "engine", "frontend/jsonio", "frontend/arrowio", "frontend/auth", "frontend/serving", "internal/floodtest"},
	"frontend/metrics":      {"engine", "frontend/auth", "frontend/serving"},
	"frontend/wire":         {"temporal", "vector", "engine", "frontend/jsonio", "frontend/auth", "frontend/serving", "internal/floodtest", "engine/storage/vfs"},
	"frontend/stream":       {"vector", "engine", "frontend/jsonio", "frontend/auth"},
	"client":                nil,                    // the public Go client: standard library, transports and arrow-go (QueryArrow)
	"shell":                 {"client", "jsontext"}, // the interactive shell: a client like any other, never the engine or a frontend
	"cmd/quiver":            {"vector", "engine", "cluster", "frontend/", "client", "shell", "internal/floodtest", "internal/serverproc", "internal/netfault", "internal/linearcheck"},
	"bench":                 {"vector", "csr", "engine", "engine/", "frontend/", "client"},
	"bench/cmd/quiverbench": {"bench", "engine"},
	"bench/graphalytics":    {"vector", "engine"},
	"tck":                   {"vector", "engine"},
	"internal/floodtest":    nil, // test support: standard library only
	"internal/netfault":     nil, // test support: TCP links between cluster members that a test cuts
	"internal/linearcheck":  nil, // test support: histories of register operations checked by porcupine
	"internal/serverproc":   nil, // test support: `quiver serve` as a child process a test kills, pauses and restarts
	".":                     nil, // this test

	// The web console's embedded files (it calls the API as any client
	// does) and `make console`'s build: esbuild over the vendored tarballs.
	"frontend/console":       nil,
	"frontend/console/build": nil,

	// Encryption at rest: a vfs.FS over another (under engine/storage/vfs).
	"engine/storage/vfs/cryptfs": {"engine/storage/vfs"},
}

// testSupport names the packages that exist for tests: only _test.go
// files may import them, whatever the importer's entry in allowed says,
// and they import nothing but the standard library and the modules listed
// here, so that no test helper drags a dependency into the packages whose
// tests use it.
var testSupport = map[string][]string{
	"internal/floodtest":  nil,
	"internal/netfault":   nil,
	"internal/serverproc": nil,
	// porcupine: the linearizability checker issue 33 names.
	"internal/linearcheck": {"github.com/anishathalye/porcupine"},
}

func TestLayerDirection(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			// A nested module (e.g. a patched copy of a dependency) is
			// not a package of this module.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		rules, known := allowed[pkg]
		if !known {
			if !seen[pkg] {
				t.Errorf("package %s has no entry in the layer table of layers_test.go", pkg)
			}
			seen[pkg] = true
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if extra, ok := testSupport[pkg]; ok && !isStandard(p) && !slices.Contains(extra, p) {
				t.Errorf("%s imports %s: a test-support package imports the standard library and the modules testSupport names only", path, p)
			}
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			target := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			if target == "" {
				target = "."
			}
			if target != pkg && !permitted(rules, target) { // a package's own external tests may import it
				t.Errorf("%s imports %s against the layer direction (DESIGN.md)", path, target)
			}
			if _, ok := testSupport[target]; ok && !strings.HasSuffix(path, "_test.go") {
				t.Errorf("%s imports %s, which only tests may import", path, target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isStandard reports whether an import path names a package of the
// standard library: its first element has no dot, as every module path
// outside it has (github.com/…, golang.org/x/…).
func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func permitted(rules []string, target string) bool {
	for _, r := range rules {
		if r == target || (strings.HasSuffix(r, "/") && strings.HasPrefix(target, r)) {
			return true
		}
	}
	return false
}

func TestPermitted(t *testing.T) {
	if permitted(allowed["vector"], "engine") {
		t.Fatal("vector may not import engine")
	}
	if !permitted(allowed["engine"], "engine/exec") || permitted(allowed["frontend/http"], "engine/storage") {
		t.Fatal("subtree rules are wrong")
	}
	for pkg := range testSupport {
		if _, ok := allowed[pkg]; !ok {
			t.Errorf("test-support package %s has no entry in allowed", pkg)
		}
	}
	if !isStandard("net/http") || !isStandard("syscall") || isStandard(module+"/engine") || isStandard("golang.org/x/sys/unix") {
		t.Fatal("isStandard is wrong")
	}
}

// The planner and its optimizer read no storage, not even through the
// packages they import: the engine hands them the counts and indexes they
// need (GraphStats, IndexInfo). The table's rules, followed transitively,
// must keep storage and csr out of their reach, and the binder must not
// reach the optimizer that runs after it.
func TestPlanDoesNotReachStorage(t *testing.T) {
	for _, pkg := range []string{"engine/plan", "engine/plan/opt", "engine/plan/physical"} {
		reach := map[string]bool{}
		var visit func(pkg string)
		visit = func(pkg string) {
			for _, dep := range allowed[pkg] {
				if !reach[dep] {
					reach[dep] = true
					visit(dep)
				}
			}
		}
		visit(pkg)
		for _, banned := range []string{"engine/storage", "csr", "engine/exec", "engine/expr"} {
			if reach[banned] {
				t.Errorf("%s may reach %s through the layer table", pkg, banned)
			}
		}
		if pkg == "engine/plan" && reach["engine/plan/opt"] {
			t.Errorf("engine/plan may reach engine/plan/opt")
		}
	}
}
