package fulltext

import (
	"unicode"

	"github.com/quiverdb/quiver/engine/index"
)

// What a document costs in bleve's in-memory index (scorch with no
// path: kind.go), measured on amd64 (Go 1.26, bleve v2.6.3) as the live
// heap after indexing 10 000 documents of two text fields: 845 bytes a
// document with 7 words, 3.6 KB with 52, so about 420 bytes a document
// and 61 a word (its postings in its field and in _all, with the
// locations phrases need). The estimate is about twice that, for the
// segments scorch's merger holds twice while it merges them. (bleve's
// upsidedown index, bleve.NewMemOnly, took 4.4 KB a document and 300
// bytes a word, and six times as long to build.) The index charges
// these to the server's budget (index.Memory) as it populates and
// applies commits, and releases a version's when it prunes it: a build
// too big for --max-memory fails the index (FAILED, 53200), not the
// process.
const (
	docBytes  = 1000
	wordBytes = 120
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
