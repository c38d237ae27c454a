// GQL/Cypher highlighting for CodeMirror: a small stream tokenizer (no
// Lezer grammar) that knows keywords, strings, numbers, comments,
// parameters, labels and relationship types after a colon, and
// backquoted names.

import { StreamLanguage } from "@codemirror/language";

export const keywords = [
  "MATCH", "OPTIONAL", "WHERE", "RETURN", "WITH", "UNWIND", "AS", "ORDER", "BY", "ASC", "ASCENDING", "DESC",
  "DESCENDING", "SKIP", "LIMIT", "OFFSET", "CREATE", "MERGE", "ON", "SET", "REMOVE", "DELETE", "DETACH", "CALL",
  "YIELD", "UNION", "ALL", "DISTINCT", "AND", "OR", "XOR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE", "CASE",
  "WHEN", "THEN", "ELSE", "END", "EXISTS", "COUNT", "STARTS", "ENDS", "CONTAINS", "EXPLAIN", "PROFILE", "SHOW",
  "FUNCTIONS", "INDEXES", "INDEX", "CONSTRAINTS", "CONSTRAINT", "FOR", "REQUIRE", "UNIQUE", "DROP", "IF", "COPY",
  "FROM", "CHECKPOINT", "USING", "JOIN", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "FILTER", "LET", "NEXT",
  "SHORTESTPATH", "ALLSHORTESTPATHS",
];

const keywordSet = new Set(keywords);

const cypher = {
  name: "cypher",
  startState: () => ({ inComment: false, afterColon: false }),
  token(stream, state) {
    if (state.inComment) {
      if (stream.skipTo("*/")) {
        stream.next();
        stream.next();
        state.inComment = false;
      } else stream.skipToEnd();
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("//") || stream.match("--")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      state.inComment = true;
      return "comment";
    }
    const afterColon = state.afterColon;
    state.afterColon = false;
    const ch = stream.peek();
    if (ch === '"' || ch === "'") {
      stream.next();
      let escaped = false;
      let c;
      while ((c = stream.next()) != null) {
        if (c === ch && !escaped) break;
        escaped = !escaped && c === "\\";
      }
      return "string";
    }
    if (ch === "`") {
      stream.next();
      stream.skipTo("`") ? stream.next() : stream.skipToEnd();
      return afterColon ? "typeName" : "variableName";
    }
    if (stream.match(/^\$[A-Za-z_][\w]*/) || stream.match(/^\$\d+/)) return "variableName.special";
    if (stream.match(/^(0x[0-9a-fA-F]+|\d+(\.\d+)?([eE][-+]?\d+)?|\.\d+)/)) return "number";
    if (stream.match(/^[A-Za-z_][\w]*/)) {
      const word = stream.current();
      if (afterColon) return "typeName";
      if (keywordSet.has(word.toUpperCase())) return "keyword";
      if (stream.match(/^\s*\(/, false)) return "variableName.function";
      return "variableName";
    }
    if (stream.eat(":")) {
      state.afterColon = true;
      return "punctuation";
    }
    if (stream.match(/^[()[\]{}]/)) return "bracket";
    if (stream.match(/^(<>|<=|>=|=~|->|<-|\.\.|[-+*/%^=<>|&])/)) return "operator";
    stream.next();
    return null;
  },
  languageData: {
    commentTokens: { line: "//", block: { open: "/*", close: "*/" } },
    closeBrackets: { brackets: ["(", "[", "{", "'", '"', "`"] },
  },
};

export const cypherLanguage = StreamLanguage.define(cypher);
