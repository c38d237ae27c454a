package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCommittedBundleIsTheBuild rebuilds the console into a temporary
// folder and holds the committed dist to it byte for byte: a change of a
// source, the lockfile or a tarball must come with `make console`'s
// output.
func TestCommittedBundleIsTheBuild(t *testing.T) {
	out := t.TempDir()
	if err := build("..", out); err != nil {
		t.Fatal(err)
	}
	want := readDir(t, out)
	got := readDir(t, filepath.Join("..", "dist"))
	if !slices.Equal(keys(got), keys(want)) {
		t.Fatalf("frontend/console/dist holds %v, the build makes %v: run make console", keys(got), keys(want))
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("frontend/console/dist/%s differs from what the build makes: run make console", name)
		}
	}
}

// TestTamperedTarballIsRefused changes one byte of a vendored tarball: the
// build must refuse it rather than bundle what the lockfile did not pin.
func TestTamperedTarballIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"package-lock.json", "src", "vendor"} {
		if err := os.CopyFS(filepath.Join(dir, f), os.DirFS(filepath.Join("..", f))); err != nil {
			if err := copyFile(filepath.Join("..", f), filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tarball := filepath.Join(dir, "vendor", "crelt-1.0.7.tgz")
	data, err := os.ReadFile(tarball)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(tarball, data, 0o644); err != nil {
		t.Fatal(err)
	}
	err = build(dir, filepath.Join(dir, "dist"))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("does not match the lockfile's integrity")) {
		t.Fatalf("a tampered tarball built, or failed for another reason: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dist")); !os.IsNotExist(err) {
		t.Fatalf("a failed build left a dist folder behind (%v)", err)
	}
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
