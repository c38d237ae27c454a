package fulltext

import (
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/simple"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
)

// analyzers maps the names CREATE FULLTEXT INDEX takes to bleve's.
var analyzers = map[string]string{
	"standard":   standard.Name, // Unicode word boundaries, lower-cased, no stop words
	"english":    en.AnalyzerName,
	"keyword":    keyword.Name, // the whole value is one term
	"simple":     simple.Name,  // letters only, lower-cased
	"whitespace": "whitespace", // split on spaces, case kept (custom, below)
}

// Analyzers lists the analyzer names, sorted.
func Analyzers() []string {
	out := make([]string, 0, len(analyzers))
	for n := range analyzers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Kind is the FULLTEXT index kind.
type Kind struct{}

// Check vets def's analyzer.
func (Kind) Check(def *catalog.Index) error {
	if _, ok := analyzers[strings.ToLower(def.Analyzer)]; !ok && def.Analyzer != "" {
		return errs.DataCode(errs.CodeInvalidParam, "unknown analyzer %q: one of %s", def.Analyzer, strings.Join(Analyzers(), ", "))
	}
	return nil
}

// New returns an empty FULLTEXT index for def.
func (Kind) New(def *catalog.Index, cat *catalog.Catalog) (index.Index, error) {
	if err := (Kind{}).Check(def); err != nil {
		return nil, err
	}
	m, err := indexMapping(def)
	if err != nil {
		return nil, err
	}
	bi, err := newBleve(m)
	if err != nil {
		return nil, err
	}
	return newIndex(def, cat, bi), nil
}

// Internal fields of every document (package comment).
const (
	fieldEID  = "_q_eid"
	fieldFrom = "_q_from"
	fieldTo   = "_q_to"
)

// indexMapping maps def's properties as text fields with its analyzer
// and BM25 scoring, and the version fields.
func indexMapping(def *catalog.Index) (*mapping.IndexMappingImpl, error) {
	an := analyzers[strings.ToLower(def.Analyzer)]
	if an == "" {
		an = standard.Name
	}
	m := bleve.NewIndexMapping()
	if err := m.AddCustomAnalyzer("whitespace", map[string]any{"type": custom.Name, "tokenizer": whitespace.Name}); err != nil {
		return nil, err
	}
	m.ScoringModel = bindex.BM25Scoring
	m.DefaultAnalyzer = an
	dm := bleve.NewDocumentStaticMapping()
	for _, k := range def.Keys {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = an
		f.Store = false
		dm.AddFieldMappingsAt(k, f)
	}
	eid := bleve.NewKeywordFieldMapping()
	eid.IncludeInAll, eid.Store = false, false
	dm.AddFieldMappingsAt(fieldEID, eid)
	for _, n := range []string{fieldFrom, fieldTo} {
		f := bleve.NewNumericFieldMapping()
		f.IncludeInAll, f.Store = false, false
		dm.AddFieldMappingsAt(n, f)
	}
	m.DefaultMapping = dm
	return m, nil
}

// newBleve opens an in-memory bleve index on scorch (a path of "" keeps
// its segments in memory). bleve.NewMemOnly's index (upsidedown on
// gtreap) keeps no field lengths, so bleve silently scored it with
// TF-IDF instead of the mapping's BM25; scorch keeps them, and holds a
// document in a fifth of the memory and indexes it six times as fast
// (memory.go).
func newBleve(m mapping.IndexMapping) (bleve.Index, error) {
	return bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
}
