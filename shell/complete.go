package shell

import (
	"context"
	"sort"
	"strings"
	"time"
)

// Tab completion: keywords, and the names the server knows (labels,
// relationship types, property keys from db.labels(),
// db.relationshipTypes(), db.propertyKeys(); functions from SHOW
// FUNCTIONS; procedures from SHOW PROCEDURES where the server has it).
// The names are fetched at the first Tab and again after a statement
// that wrote. The word before the cursor decides: after ':' a label or
// type, after '.' a property key (or, after a procedure namespace such
// as "db.", a procedure), otherwise a keyword, function or procedure.

// keywords are GQL's clause and operator words.
var keywords = []string{"MATCH", "OPTIONAL", "WHERE", "RETURN", "WITH", "CREATE", "MERGE", "DELETE", "DETACH",
	"SET", "REMOVE", "UNWIND", "ORDER", "BY", "LIMIT", "SKIP", "OFFSET", "DISTINCT", "UNION", "ALL", "CALL", "YIELD",
	"EXPLAIN", "PROFILE", "AS", "AND", "OR", "XOR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE", "CASE", "WHEN",
	"THEN", "ELSE", "END", "ASC", "DESC", "STARTS", "ENDS", "CONTAINS", "EXISTS", "SHOW", "FUNCTIONS", "INDEXES",
	"CONSTRAINTS", "INDEX", "CONSTRAINT", "ON", "FOR", "DROP", "SAVEPOINT", "ROLLBACK", "COPY", "FROM", "TO", "CHECKPOINT"}

// commandNames are the colon commands, completed at a line's start.
var commandNames = []string{":begin", ":commit", ":explain", ":format", ":help", ":param", ":params", ":profile",
	":quit", ":rollback", ":schema", ":source", ":status"}

// completions are the names fetched from the server.
type completions struct {
	stale                 bool
	labels, types, keys   []string
	functions, procedures []string
}

// refresh fetches the names, within a second or two; a name list the
// server cannot give stays as it was.
func (sh *shell) refreshCompletions(ctx context.Context) {
	c := sh.comp
	c.stale = false
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	fetch := func(dst *[]string, query string) {
		vals, err := sh.queryColumn(ctx, query, nil)
		if err != nil {
			return
		}
		out := make([]string, 0, len(vals))
		for _, v := range vals {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		*dst = out
	}
	fetch(&c.labels, "CALL db.labels() YIELD label RETURN label")
	fetch(&c.types, "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType")
	fetch(&c.keys, "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey")
	fetch(&c.functions, "SHOW FUNCTIONS")
	if c.procedures == nil {
		fetch(&c.procedures, "SHOW PROCEDURES")
	}
}

// complete is liner's word completer: the line is split at the cursor
// into the text kept before the word, the candidates for the word, and
// the text after the cursor.
func (sh *shell) complete(ctx context.Context, line string, pos int) (string, []string, string) {
	rs := []rune(line)
	if pos > len(rs) {
		pos = len(rs)
	}
	start := pos
	for start > 0 && isWordRune(rs[start-1]) {
		start--
	}
	head, word, tail := string(rs[:start]), string(rs[start:pos]), string(rs[pos:])
	if strings.TrimSpace(head) == "" && strings.HasPrefix(strings.TrimSpace(line), ":") {
		return sh.completeCommand(line, pos)
	}
	if sh.comp != nil && sh.comp.stale && !sh.conn.inTx() {
		sh.refreshCompletions(ctx)
	}
	c := sh.comp
	if c == nil {
		c = &completions{}
	}
	var cands []string
	switch {
	case strings.HasSuffix(head, ":"):
		cands = prefixed(word, false, c.labels, c.types)
		for i := range cands {
			cands[i] = name(cands[i])
		}
	case strings.Contains(word, "."):
		dot := strings.LastIndex(word, ".")
		if procs := prefixed(word, false, c.procedures); len(procs) > 0 {
			cands = procs
			break
		}
		// n.na: the property keys after the variable.
		v, k := word[:dot+1], word[dot+1:]
		for _, key := range prefixed(k, false, c.keys) {
			cands = append(cands, v+name(key))
		}
	default:
		cands = prefixed(word, true, keywords)
		for _, f := range prefixed(word, false, c.functions) {
			cands = append(cands, f+"(")
		}
		cands = append(cands, prefixed(word, false, c.procedures)...)
	}
	return head, cands, tail
}

// completeCommand completes a colon command's name at a line's start.
func (sh *shell) completeCommand(line string, pos int) (string, []string, string) {
	rs := []rune(line)
	if pos > len(rs) {
		pos = len(rs)
	}
	word := strings.TrimLeft(string(rs[:pos]), " ")
	lead := string(rs[:pos])[:len(string(rs[:pos]))-len(word)]
	if strings.ContainsRune(word, ' ') {
		return string(rs[:pos]), nil, string(rs[pos:])
	}
	var out []string
	for _, c := range commandNames {
		if strings.HasPrefix(c, word) {
			out = append(out, c+" ")
		}
	}
	return lead, out, string(rs[pos:])
}

func isWordRune(r rune) bool {
	return r == '_' || r == '.' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
}

// prefixed lists the names of the lists that start with word: ignoring
// case for keywords (completed in the case typed: upper unless the word
// is lower case), exactly otherwise, where names are case-sensitive.
func prefixed(word string, keyword bool, lists ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			var ok bool
			if keyword {
				ok = strings.HasPrefix(s, strings.ToUpper(word))
				if ok && word != "" && word == strings.ToLower(word) {
					s = strings.ToLower(s)
				}
			} else {
				ok = strings.HasPrefix(s, word) || strings.HasPrefix(strings.ToLower(s), strings.ToLower(word))
			}
			if ok && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
