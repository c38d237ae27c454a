// Package fulltext is the FULLTEXT secondary index (engine/index) on
// bleve (github.com/blevesearch/bleve/v2): one bleve index per FULLTEXT
// index, kept in memory, rebuilt at open (engine/index: an index after a
// crash is a fresh build), scored with BM25 (the mapping's
// ScoringModel "bm25", bleve ≥ v2.5).
//
// Visibility is exact at a snapshot: documents are versioned.
//
//	document "<id>@<from>"   one version of one node's (relationship's) text
//	  <key> …                the indexed properties' text, analyzed
//	  _q_eid                 the element id (keyword)
//	  _q_from, _q_to         the commit timestamps the version lives in:
//	                         from ≤ ts < to (to = +inf while current)
//
// A commit that changes an element's text rewrites its current
// document with _q_to = the commit's ts and adds a new one from it; a
// search at ts adds from ≤ ts < to to the query, so a reader at an older
// snapshot never sees a newer commit, and limit/skip apply after the
// filter (no over-fetch). Filtering hits by re-reading the element at
// the reader's snapshot was the other choice: it removes false hits but
// cannot find text a later commit replaced. Superseded versions are
// deleted RetainVersions after the commit that replaced them; a search at
// a snapshot that could need one fails instead (gc.go).
//
// A transaction's own writes overlay the committed index: the elements
// its ops touched are excluded from the committed search and their
// current text (as the transaction sees it) is indexed in a small
// in-memory bleve index searched with the same query; the two hit lists
// merge by score. Overlay scores use the overlay's own term statistics.
package fulltext
