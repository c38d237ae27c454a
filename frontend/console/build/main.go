// Command build makes the web console's bundle (frontend/console/dist)
// from its sources and the npm tarballs committed in vendor/, with no
// network and no Node.js: `make console` runs it.
//
// Every tarball the lockfile names is checked against the lockfile's
// sha512 integrity before it is unpacked into a temporary node_modules;
// esbuild (its Go API) then bundles src/main.js and src/console.css,
// minified, into files named by their content hash, which index.html
// names. The licences of the bundled packages are collected from their
// tarballs into dist/THIRD_PARTY_LICENSES.md. The output depends on
// nothing but these inputs, so the committed dist can be checked byte for
// byte against a fresh build (build_test.go).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("dir", "frontend/console", "the console's folder: package-lock.json, vendor/ and src/")
	out := flag.String("out", "", "where to write the bundle (default: <dir>/dist, replaced whole)")
	flag.Parse()
	if *out == "" {
		*out = *dir + "/dist"
	}
	if err := build(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "console build:", err)
		os.Exit(1)
	}
}
