package export

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// Resolve is the one rule for where a statement running on the server
// may write files: under root, the server's export directory. what names
// the statement for the errors ("quiver.export", "COPY TO"). p is taken
// relative to root unless absolute. It is refused (42501) when root is
// empty (writing is off), when p leads outside root lexically (`..`, an
// absolute path elsewhere), or when a symbolic link on the way, the final
// component included, leads outside root. Resolve returns the cleaned
// absolute path. The last component need not exist yet.
//
// A link is followed as the operating system would follow it when the
// file is written: the deepest part of p that exists is resolved with
// filepath.EvalSymlinks and must stay under root's own resolution, and a
// final component that is itself a link (dangling or not) is refused.
// What happens to the folder after Resolve (a link swapped in while the
// export runs) is the operator's: the export directory is the server's
// own.
func Resolve(root, p, what string) (string, error) {
	if root == "" {
		return "", errs.New(errs.CodePermission, errs.CatPermission,
			"%s writes files on the server and is disabled; start the server with --export-dir DIR to allow writing files under DIR", what)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", errs.Data("%s: no path given", what)
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(absRoot, full)
	}
	full = filepath.Clean(full)
	outside := func() error {
		return errs.New(errs.CodePermission, errs.CatPermission, "%s: %s is outside the export directory %s", what, p, absRoot)
	}
	if !under(absRoot, full) {
		return "", outside()
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return "", errs.Data("%s: the export directory %s cannot be used: %v", what, absRoot, err)
	}
	if fi, err := os.Lstat(full); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", errs.New(errs.CodePermission, errs.CatPermission, "%s: %s is a symbolic link; the export writes only plain files and folders", what, p)
	}
	// The deepest existing ancestor decides where the rest would land.
	exist := full
	for {
		if _, err := os.Lstat(exist); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", errs.Data("%s: %s: %v", what, p, err)
		}
		parent := filepath.Dir(exist)
		if parent == exist {
			break
		}
		exist = parent
	}
	real, err := filepath.EvalSymlinks(exist)
	if err != nil {
		return "", errs.Data("%s: %s: %v", what, p, err)
	}
	if !under(realRoot, real) {
		return "", outside()
	}
	return full, nil
}

// under reports whether p is root or inside it (both clean and absolute).
func under(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
