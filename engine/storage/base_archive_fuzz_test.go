package storage

import (
	"archive/tar"
	"bytes"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// tarOf is a tar stream of the named entries (regular files unless the
// name ends in "@link", a symbolic link to /etc/passwd).
func tarOf(entries ...[2]string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		name, body := e[0], e[1]
		hdr := &tar.Header{Name: name, Mode: 0o600, Size: int64(len(body)), Typeflag: tar.TypeReg}
		if n, ok := strings.CutSuffix(name, "@link"); ok {
			hdr = &tar.Header{Name: n, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}
			body = ""
		}
		tw.WriteHeader(hdr)
		tw.Write([]byte(body))
	}
	tw.Close()
	return buf.Bytes()
}

// FuzzBaseArchive: a hostile base archive (what a member receives as a
// raft snapshot) gives an error or installs a base, never a panic, and
// never writes outside the data directory.
func FuzzBaseArchive(f *testing.F) {
	s, _ := buildModel(&testing.T{}, 3, false)
	src := vfs.NewMem()
	if err := src.Mkdir("src"); err != nil {
		f.Fatal(err)
	}
	if _, err := s.SaveBaseWithIndexesFS(src, "src", nil, nil); err != nil {
		f.Fatal(err)
	}
	var good bytes.Buffer
	if _, err := WriteBaseArchive(src, "src", &good); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	manifest := func(base, file string, size int) string {
		return `{"format_version":1,"writer":"0000000000000001","base":"` + base + `","files":[{"name":"` + file + `","size":` + strings.Repeat("9", size) + `}]}`
	}
	f.Add(tarOf([2]string{ManifestName, manifest("b", "x", 1)}, [2]string{"b/x", "123456789"}))
	f.Add(tarOf([2]string{ManifestName, manifest("..", "x", 1)}, [2]string{"../x", "123456789"}))
	f.Add(tarOf([2]string{ManifestName, manifest("b", "..", 1)}, [2]string{"b/..", "123456789"}))
	f.Add(tarOf([2]string{ManifestName, manifest("b", "x", 1)}, [2]string{"b/x@link", ""}))
	f.Add(tarOf([2]string{ManifestName, manifest("b", "x", 18)}, [2]string{"b/x", "1"}))
	f.Add(tarOf([2]string{ManifestName, "{}"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		fsys := vfs.NewMem()
		if err := fsys.Mkdir("d"); err != nil {
			t.Fatal(err)
		}
		fsys.SetHook(func(op vfs.Op, _ func(torn *rand.Rand) *vfs.MemFS) {
			if p := path.Clean("/" + op.Path); p != "/d" && !strings.HasPrefix(p, "/d/") {
				panic("a base archive made " + op.String() + " outside the data directory")
			}
		})
		whole := bytes.Equal(b, good.Bytes())
		a, err := OpenBaseArchive(bytes.NewReader(b))
		if err == nil {
			_, err = a.Install(fsys, "d")
		}
		if err != nil {
			if whole {
				t.Fatalf("a whole archive: %v", err)
			}
			return
		}
		// Installed: the directory holds the manifest and one base of
		// plain files.
		ents, err := fsys.ReadDir("d")
		if err != nil || len(ents) != 2 {
			t.Fatalf("after an install the directory holds %v (%v)", ents, err)
		}
		st, err := OpenBaseFS(fsys, "d")
		if err == nil {
			err = st.Snapshot().Check()
		}
		if whole && err != nil {
			t.Fatalf("a whole archive installed: %v", err)
		}
	})
}
