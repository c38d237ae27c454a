package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// build makes the bundle of the console in dir into out, which it
// replaces whole: index.html, console-<hash>.js, console-<hash>.css and
// THIRD_PARTY_LICENSES.md, and nothing else.
func build(dir, out string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	pkgs, err := readLock(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "quiver-console-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	licenses, err := install(dir, pkgs, tmp)
	if err != nil {
		return err
	}
	files, err := bundle(dir, filepath.Join(tmp, "node_modules"))
	if err != nil {
		return err
	}
	files["THIRD_PARTY_LICENSES.md"] = []byte(licenses)
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// bundle runs esbuild over src/main.js and src/console.css, resolving
// packages in nodeModules, and answers the files of dist by name. The
// bundles' names carry a hash of their content (SHA-256), so that they can be
// cached for ever; index.html names them where its placeholders
// (console.js, console.css) stand.
func bundle(dir, nodeModules string) (map[string][]byte, error) {
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:     dir,
		EntryPoints:       []string{"src/main.js", "src/console.css"},
		EntryNames:        "[name]", // hashed below: esbuild's [hash] covers the temporary folder's path
		Bundle:            true,
		Format:            api.FormatESModule,
		Target:            api.ES2020,
		Platform:          api.PlatformBrowser,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsNone, // the licences are in THIRD_PARTY_LICENSES.md
		Charset:           api.CharsetUTF8,
		NodePaths:         []string{nodeModules},
		Outdir:            "dist",
		Write:             false,
		LogLevel:          api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}) {
			msgs = append(msgs, strings.TrimSpace(m))
		}
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	files := map[string][]byte{}
	var js, css string
	for _, f := range res.OutputFiles {
		sum := sha256.Sum256(f.Contents)
		name := "console-" + hex.EncodeToString(sum[:6]) + filepath.Ext(f.Path)
		switch filepath.Ext(name) {
		case ".js":
			js = name
		case ".css":
			css = name
		default:
			return nil, fmt.Errorf("unexpected output %s", name)
		}
		files[name] = f.Contents
	}
	if js == "" || css == "" {
		return nil, errors.New("esbuild wrote no script or no style sheet")
	}
	page, err := os.ReadFile(filepath.Join(dir, "src", "index.html"))
	if err != nil {
		return nil, err
	}
	html := string(page)
	for placeholder, name := range map[string]string{`"console.js"`: js, `"console.css"`: css} {
		if strings.Count(html, placeholder) != 1 {
			return nil, fmt.Errorf("src/index.html must name %s once", placeholder)
		}
		html = strings.Replace(html, placeholder, `"/console/`+name+`"`, 1)
	}
	files["index.html"] = []byte(html)
	return files, nil
}
