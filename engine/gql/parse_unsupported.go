package gql

import "strings"

// Statements and clauses of ISO GQL and Cypher 5 that users write and
// Quiver does not run. Without this table they fail where the grammar
// first goes wrong, often a token or three after the word that names
// the feature (CREATE GRAPH g: `expected "(" but found "GRAPH"`); here
// each answers 0A000 "not supported: <feature>" at its first token. The
// table is consulted only where parsing would otherwise fail, so a form
// a later version supports needs only its row removed, and no query that
// parses today changes meaning.

// unsupportedForm is one form: the words that start it, and what the
// error names.
type unsupportedForm struct {
	// words are the unquoted words that start the form, upper case.
	words []string
	// unless are tokens which, following the words, make the text
	// something else: CREATE graph = (a)-->(b) creates a path named graph.
	unless  []string
	feature string
}

// statementForms start a statement: they are looked for before the
// statement is parsed.
var statementForms = []unsupportedForm{
	{words: []string{"CREATE", "GRAPH", "TYPE"}, feature: "graph types (CREATE GRAPH TYPE): a graph's schema is its indexes and constraints"},
	{words: []string{"CREATE", "OR", "REPLACE"}, feature: "graph management (CREATE OR REPLACE GRAPH): use DROP GRAPH and CREATE GRAPH (graphs.md)"},
	{words: []string{"CREATE", "PROPERTY", "GRAPH"}, feature: "graph management (CREATE PROPERTY GRAPH): use CREATE GRAPH name (graphs.md)"},
	{words: []string{"DROP", "PROPERTY", "GRAPH"}, feature: "graph management (DROP PROPERTY GRAPH): use DROP GRAPH name (graphs.md)"},
	{words: []string{"CREATE", "SCHEMA"}, unless: []string{"="}, feature: "catalog schemas (CREATE SCHEMA)"},
	{words: []string{"DROP", "SCHEMA"}, feature: "catalog schemas (DROP SCHEMA)"},
	{words: []string{"CREATE", "DATABASE"}, unless: []string{"="}, feature: "database management (CREATE DATABASE)"},
	{words: []string{"DROP", "DATABASE"}, feature: "database management (DROP DATABASE)"},
	{words: []string{"ALTER"}, feature: "ALTER statements"},
	{words: []string{"CREATE", "USER"}, unless: []string{"="}, feature: "user management in a query (CREATE USER): see security.md"},
	{words: []string{"DROP", "USER"}, feature: "user management in a query (DROP USER): see security.md"},
	{words: []string{"CREATE", "ROLE"}, unless: []string{"="}, feature: "role management in a query (CREATE ROLE): see security.md"},
	{words: []string{"DROP", "ROLE"}, feature: "role management in a query (DROP ROLE): see security.md"},
	{words: []string{"GRANT"}, feature: "GRANT: privileges are managed as security.md says"},
	{words: []string{"REVOKE"}, feature: "REVOKE: privileges are managed as security.md says"},
	{words: []string{"DENY"}, feature: "DENY: privileges are managed as security.md says"},
	{words: []string{"SESSION"}, feature: "SESSION SET, SESSION RESET and SESSION CLOSE: use SET name = value (http-api.md)"},
	{words: []string{"START", "TRANSACTION"}, feature: "START TRANSACTION in a query: open a transaction through the API (transactions.md)"},
	{words: []string{"BEGIN"}, feature: "BEGIN in a query: open a transaction through the API (transactions.md)"},
	{words: []string{"COMMIT"}, feature: "COMMIT in a query: commit a transaction through the API (transactions.md)"},
	{words: []string{"ROLLBACK"}, unless: []string{"TO"}, feature: "ROLLBACK of a transaction in a query: roll back through the API (transactions.md); ROLLBACK TO SAVEPOINT is supported"},
	{words: []string{"TERMINATE"}, feature: "TERMINATE TRANSACTIONS"},
	{words: []string{"AT"}, feature: "AT <schema>: a statement runs on its session's database"},
	{words: []string{"TABLE"}, feature: "binding table variables (TABLE)"},
	{words: []string{"GRAPH"}, feature: "graph variables (GRAPH)"},
	{words: []string{"LOAD", "CSV"}, feature: "LOAD CSV: load files with the importer (import.md)"},
	{words: []string{"FOREACH"}, feature: "FOREACH: write with UNWIND instead"},
	{words: []string{"FINISH"}, feature: "FINISH"},
	{words: []string{"SHOW", "TRANSACTIONS"}, feature: "SHOW TRANSACTIONS"},
	{words: []string{"SHOW", "TRANSACTION"}, feature: "SHOW TRANSACTIONS"},
	{words: []string{"SHOW", "DATABASES"}, feature: "database management (SHOW DATABASES): use SHOW GRAPHS (graphs.md)"},
	{words: []string{"SHOW", "DATABASE"}, feature: "database management (SHOW DATABASE): use SHOW GRAPHS (graphs.md)"},
	{words: []string{"SHOW", "USERS"}, feature: "user management in a query (SHOW USERS): see security.md"},
	{words: []string{"SHOW", "ROLES"}, feature: "role management in a query (SHOW ROLES): see security.md"},
	{words: []string{"SHOW", "PRIVILEGES"}, feature: "SHOW PRIVILEGES: privileges are managed as security.md says"},
	{words: []string{"SHOW", "CURRENT", "USER"}, feature: "SHOW CURRENT USER"},
}

// clauseForms stand where a clause or the end of the statement should.
var clauseForms = []unsupportedForm{
	{words: []string{"USE"}, feature: "USE <graph> inside a statement: USE name stands first, before the statement it selects the graph of (graphs.md)"},
	{words: []string{"FINISH"}, feature: "FINISH"},
	{words: []string{"FOREACH"}, feature: "FOREACH: write with UNWIND instead"},
	{words: []string{"LOAD", "CSV"}, feature: "LOAD CSV: load files with the importer (import.md)"},
	{words: []string{"NODETACH"}, feature: "NODETACH DELETE: DELETE without DETACH already refuses a node with relationships"},
	{words: []string{"EXCEPT"}, feature: "EXCEPT between queries"},
	{words: []string{"INTERSECT"}, feature: "INTERSECT between queries"},
	{words: []string{"OTHERWISE"}, feature: "OTHERWISE between queries"},
	{words: []string{"NULLS"}, feature: "NULLS FIRST and NULLS LAST: null sorts last ascending and first descending"},
	{words: []string{"COMMIT"}, feature: "COMMIT in a query: commit a transaction through the API (transactions.md)"},
}

// isForms follow IS: GQL's predicates other than IS [NOT] NULL, the type
// predicates and (when the parser has them) IS LABELED.
var isForms = []unsupportedForm{
	{words: []string{"SOURCE"}, feature: "IS SOURCE OF"},
	{words: []string{"DESTINATION"}, feature: "IS DESTINATION OF"},
	{words: []string{"DIRECTED"}, feature: "IS DIRECTED"},
	{words: []string{"NORMALIZED"}, feature: "IS NORMALIZED"},
	{words: []string{"NFC"}, feature: "IS NORMALIZED"},
	{words: []string{"NFD"}, feature: "IS NORMALIZED"},
	{words: []string{"NFKC"}, feature: "IS NORMALIZED"},
	{words: []string{"NFKD"}, feature: "IS NORMALIZED"},
	{words: []string{"TRUE"}, feature: "IS TRUE, IS FALSE and IS UNKNOWN: compare with = or use IS NULL"},
	{words: []string{"FALSE"}, feature: "IS TRUE, IS FALSE and IS UNKNOWN: compare with = or use IS NULL"},
	{words: []string{"UNKNOWN"}, feature: "IS TRUE, IS FALSE and IS UNKNOWN: compare with = or use IS NULL"},
}

// unsupportedStatement fails with 0A000 when the statement starts with a
// form of statementForms.
func (p *parser) unsupportedStatement() {
	p.unsupported(statementForms, p.tok.pos, 0)
}

// unsupportedClause fails with 0A000 when a form of clauseForms stands
// where the statement should end.
func (p *parser) unsupportedClause() {
	p.unsupported(clauseForms, p.tok.pos, 0)
}

// unsupportedIs fails with 0A000, at the IS, when the IS at the current
// token starts one of isForms (after an optional NOT).
func (p *parser) unsupportedIs() {
	l := *p.lex
	t, err := l.next()
	skip := 1
	if err == nil && t.kind == tIdent && !t.quoted && strings.EqualFold(t.text, "NOT") {
		skip = 2
	}
	p.unsupported(isForms, p.tok.pos, skip)
}

// unsupported fails with 0A000 at pos when the tokens from the current
// one, the first skip of them passed over, start one of forms.
func (p *parser) unsupported(forms []unsupportedForm, pos Pos, skip int) {
	if p.tok.kind != tIdent || p.tok.quoted {
		return
	}
	const ahead = 4 // the longest form and its unless token
	toks := make([]token, 0, ahead+2)
	toks = append(toks, p.tok)
	l := *p.lex
	for len(toks) < skip+ahead {
		t, err := l.next()
		if err != nil || t.kind == tEOF {
			break
		}
		toks = append(toks, t)
	}
	if skip > len(toks) {
		return
	}
	for _, f := range forms {
		if formMatches(f, toks[skip:]) {
			panic(notSupportedAt(pos, "not supported: %s", f.feature))
		}
	}
}

func formMatches(f unsupportedForm, toks []token) bool {
	if len(toks) < len(f.words) {
		return false
	}
	for i, w := range f.words {
		if t := toks[i]; t.kind != tIdent || t.quoted || !strings.EqualFold(t.text, w) {
			return false
		}
	}
	if len(toks) > len(f.words) {
		next := toks[len(f.words)]
		for _, u := range f.unless {
			if !next.quoted && strings.EqualFold(next.text, u) {
				return false
			}
		}
	}
	return true
}
