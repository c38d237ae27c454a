package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// pkg is one package of package-lock.json: where npm would install it
// (its key, "node_modules/@scope/name") and what it must be.
type pkg struct {
	Key       string
	Name      string
	Version   string
	Integrity string
	License   string
}

// readLock lists the packages package-lock.json (lockfile version 2 or 3)
// installs, sorted by their place, so that everything made from them
// comes out in one order.
func readLock(file string) ([]pkg, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
			License   string `json:"license"`
			Dev       bool   `json:"dev"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", file, err)
	}
	if lock.LockfileVersion < 2 {
		return nil, fmt.Errorf("%s: lockfile version %d has no packages section; run npm install with npm 7 or later", file, lock.LockfileVersion)
	}
	var pkgs []pkg
	for key, p := range lock.Packages {
		if key == "" || p.Dev {
			continue // the root project; tools that are not bundled
		}
		i := strings.LastIndex(key, "node_modules/")
		if i < 0 {
			return nil, fmt.Errorf("%s: unexpected package place %q", file, key)
		}
		if p.Integrity == "" || p.Version == "" {
			return nil, fmt.Errorf("%s: %s has no version or integrity", file, key)
		}
		pkgs = append(pkgs, pkg{Key: key, Name: key[i+len("node_modules/"):], Version: p.Version, Integrity: p.Integrity, License: p.License})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Key < pkgs[j].Key })
	return pkgs, nil
}

// tarballName is the file `npm pack name@version` writes.
func (p pkg) tarballName() string {
	return strings.ReplaceAll(strings.TrimPrefix(p.Name, "@"), "/", "-") + "-" + p.Version + ".tgz"
}

// verify checks a tarball's bytes against the lockfile's integrity.
func (p pkg) verify(data []byte) error {
	want, ok := strings.CutPrefix(p.Integrity, "sha512-")
	if !ok {
		return fmt.Errorf("%s@%s: integrity %q is not sha512", p.Name, p.Version, p.Integrity)
	}
	sum := sha512.Sum512(data)
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("%s does not match the lockfile's integrity of %s@%s (sha512-%s); run make console-vendor", p.tarballName(), p.Name, p.Version, got)
	}
	return nil
}

// licenseNames are the files a package's licence is in.
var licenseNames = []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "license", "license.md", "LICENSE-MIT"}

// unpack writes a verified tarball's files under dst (npm's tarballs hold
// them under one top folder, "package/" as a rule) and answers the text
// of its licence file.
func unpack(data []byte, dst string) (license string, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return license, nil
		}
		if err != nil {
			return "", err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		if _, rest, ok := strings.Cut(name, "/"); ok {
			name = rest
		} else {
			continue
		}
		if strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return "", fmt.Errorf("tarball entry %q leaves its folder", h.Name)
		}
		body, err := io.ReadAll(io.LimitReader(tr, 64<<20))
		if err != nil {
			return "", err
		}
		for _, l := range licenseNames {
			if name == l && license == "" {
				license = string(body)
			}
		}
		file := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(file, body, 0o644); err != nil {
			return "", err
		}
	}
}

// install verifies and unpacks every package into root (a node_modules
// tree as npm ci would lay it) and answers the licences text.
func install(dir string, pkgs []pkg, root string) (licenses string, err error) {
	var sb strings.Builder
	sb.WriteString("# Third-party software in the Quiver web console\n\n")
	sb.WriteString("The console's bundle (console-*.js, console-*.css) includes these npm\n")
	sb.WriteString("packages, pinned by frontend/console/package-lock.json. This file is\n")
	sb.WriteString("written by `make console` from the packages' own licence files.\n\n")
	sb.WriteString("| package | version | licence |\n|---|---|---|\n")
	texts := make([]string, len(pkgs))
	for i, p := range pkgs {
		data, err := os.ReadFile(filepath.Join(dir, "vendor", p.tarballName()))
		if err != nil {
			return "", fmt.Errorf("cannot read the tarball of %s@%s: %w (run make console-vendor)", p.Name, p.Version, err)
		}
		if err := p.verify(data); err != nil {
			return "", err
		}
		text, err := unpack(data, filepath.Join(root, filepath.FromSlash(p.Key)))
		if err != nil {
			return "", fmt.Errorf("cannot unpack %s: %w", p.tarballName(), err)
		}
		if text == "" {
			return "", fmt.Errorf("%s has no licence file", p.tarballName())
		}
		texts[i] = text
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", p.Name, p.Version, p.License)
	}
	for i, p := range pkgs {
		fmt.Fprintf(&sb, "\n## %s %s\n\n```\n%s\n```\n", p.Name, p.Version, strings.TrimSpace(texts[i]))
	}
	return sb.String(), nil
}
