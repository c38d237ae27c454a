package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// Resolve keeps writes under the export directory: relative and absolute
// paths inside it pass; `..`, absolute paths elsewhere and symbolic links
// out of it (on the way or as the last component) are refused with
// 42501, as is everything when there is no export directory.
func TestResolve(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "exports")
	outside := filepath.Join(base, "elsewhere")
	for _, d := range []string{root, outside, filepath.Join(root, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"out":      outside,                      // a folder link leading out
		"in":       filepath.Join(root, "sub"),   // a folder link staying in
		"dangling": filepath.Join(outside, "nf"), // a link to a file that does not exist yet
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ok := map[string]string{
		"x":                          filepath.Join(root, "x"),
		"sub/new/deeper":             filepath.Join(root, "sub/new/deeper"),
		"./sub/../y":                 filepath.Join(root, "y"),
		filepath.Join(root, "z"):     filepath.Join(root, "z"),
		"in/new":                     filepath.Join(root, "in/new"),
		".":                          root,
		"sub/..//sub/./within":       filepath.Join(root, "sub/within"),
		filepath.Join(root, "sub/."): filepath.Join(root, "sub"),
	}
	for p, want := range ok {
		got, err := Resolve(root, p, "test")
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, p := range []string{"..", "../elsewhere/x", "sub/../../x", outside, "/etc/passwd", "out", "out/x", "out/new/deeper", "dangling", "in/../../elsewhere"} {
		got, err := Resolve(root, p, "test")
		if e, ok := errs.As(err); !ok || e.Code != errs.CodePermission {
			t.Errorf("Resolve(%q) = %q, %v; want a 42501 refusal", p, got, err)
		}
	}
	if _, err := Resolve("", "x", "quiver.export"); err == nil {
		t.Error("Resolve without an export directory passed")
	} else if e, ok := errs.As(err); !ok || e.Code != errs.CodePermission {
		t.Errorf("without an export directory: %v", err)
	}
	// The root itself may be reached through a link.
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	if got, err := Resolve(alias, "sub/q", "test"); err != nil || got != filepath.Join(alias, "sub/q") {
		t.Errorf("through an aliased root: %q, %v", got, err)
	}
}
