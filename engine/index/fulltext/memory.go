package fulltext

import (
	"unicode"

	"github.com/quiverdb/quiver/engine/index"
)

// What a document costs in bleve's in-memory index (upsidedown on
// gtreap, bleve.NewMemOnly), measured on amd64 (Go 1.26, bleve v2.6.3)
// as the live heap after indexing 10 000 documents of two text fields:
// 6.5 KB a document with 7 words, 19.7 KB with 52, so about 4.4 KB a
// document (its stored id, the version fields' numeric terms, the back
// index) and 300 bytes a word (its posting in its field and in _all,
// with the term vector phrases need). The index charges these to the
// server's budget (index.Memory) as it populates and applies commits,
// and releases a version's when it prunes it: a build too big for
// --max-memory fails the index (FAILED, 53200), not the process.
const (
	docBytes  = 4500
	wordBytes = 300
)

// SetMemory makes the index charge its documents to m (index.Charged).
func (x *Index) SetMemory(m *index.Memory) { x.mem = m }

// docCost estimates what doc holds in bleve.
func docCost(doc map[string]any) int64 {
	n := int64(docBytes)
	for k, v := range doc {
		if s, ok := v.(string); ok && k != fieldEID {
			n += wordBytes * int64(words(s))
		}
	}
	return n
}

// words counts the runs of letters and digits in s: about the tokens an
// analyzer makes of it.
func words(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}
