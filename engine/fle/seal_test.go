package fle

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

func testKey(t testing.TB, name string, det bool) *DataKey {
	t.Helper()
	k, err := NewDataKey(name, bytes.Repeat([]byte{7}, KeyBytes), det)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Sealed values open under their key and property only; deterministic
// keys seal equal values equally, randomized ones never.
func TestSealOpen(t *testing.T) {
	det, rnd := testKey(t, "det", true), testKey(t, "rnd", false)
	for _, v := range []vector.Value{"111-22-3333", int64(42), 3.5, true, []vector.Value{"a", int64(1)}, ""} {
		for _, k := range []*DataKey{det, rnd} {
			s, err := k.Seal("ssn", v)
			if err != nil {
				t.Fatal(err)
			}
			if name, ok := SealedBy(s); !ok || name != k.Name || !strings.HasPrefix(s, Prefix+k.Name+"$") {
				t.Fatalf("%q is not sealed by %s", s, k.Name)
			}
			got, err := k.Open("ssn", s)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(v) {
				t.Fatalf("%v sealed and opened: %v %v", v, got, err)
			}
			if _, err := k.Open("other", s); err != ErrCorrupt {
				t.Fatalf("opened as another property: %v", err)
			}
			again, _ := k.Seal("ssn", v)
			if (again == s) != k.Deterministic {
				t.Fatalf("%s: sealing %v twice gave equal strings: %v", k.Name, v, again == s)
			}
			if k.Deterministic {
				if other, _ := k.Seal("tax", v); other == s {
					t.Fatal("a deterministic key sealed two properties' equal values equally")
				}
			}
			// A changed byte, a cut, another key: not opened.
			b := []byte(s)
			b[len(b)-3] ^= 1
			for _, bad := range []string{string(b), s[:len(s)-4], strings.Replace(s, "$"+k.Name+"$", "$x$", 1)} {
				if _, err := k.Open("ssn", bad); err == nil {
					t.Fatalf("opened a damaged value %q", bad)
				}
			}
		}
	}
	if _, err := det.Seal("ssn", nil); err == nil {
		t.Fatal("sealed null")
	}
	if _, ok := SealedBy("plain text"); ok {
		t.Fatal("plain text taken for a sealed value")
	}
}

// Wrapped keys unwrap under their key-encryption key and name only.
func TestWrapUnwrap(t *testing.T) {
	kek := bytes.Repeat([]byte{1}, 32)
	raw, err := NewKeyMaterial()
	if err != nil {
		t.Fatal(err)
	}
	w, err := Wrap(kek, raw, "pii")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Unwrap(kek, w, "pii"); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("unwrap: %v", err)
	}
	if _, err := Unwrap(kek, w, "other"); err == nil {
		t.Fatal("unwrapped under another name")
	}
	if _, err := Unwrap(bytes.Repeat([]byte{2}, 32), w, "pii"); err == nil {
		t.Fatal("unwrapped under another key-encryption key")
	}
}

func BenchmarkOpen(b *testing.B) {
	k := testKey(b, "pii", false)
	s, _ := k.Seal("ssn", "111-22-3333")
	b.ReportAllocs()
	for range b.N {
		if _, err := k.Open("ssn", s); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzOpen: any string given as a sealed value opens to an error or to
// what was sealed, never to a panic; records decode or fail cleanly.
func FuzzOpen(f *testing.F) {
	k := testKey(f, "pii", true)
	s, _ := k.Seal("ssn", "111-22-3333")
	f.Add(s)
	// The base64 decoder skips CR and LF even in strict mode.
	f.Add(s[:len(s)-8] + "\r" + s[len(s)-8:])
	f.Add(s[:len(s)-8] + "\n" + s[len(s)-8:])
	f.Add(Prefix + "pii$")
	f.Add(Prefix + "$$")
	f.Add(`{"name":"pii","wrapped":"AAAA","roles":["hr"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := k.Open("ssn", s); err == nil {
			if again, _ := k.Seal("ssn", v); again != s {
				t.Fatalf("%q opened to %v, which seals to %q", s, v, again)
			}
		}
		SealedBy(s)
		_, _ = DecodeKey([]byte(s))
		_, _ = DecodeField([]byte(s))
		_, _ = Unwrap(bytes.Repeat([]byte{1}, 32), s, "pii")
	})
}
