// The query editor: CodeMirror 6 with GQL/Cypher highlighting, bracket
// matching, completion of keywords and of the graph's labels, types,
// property keys and functions (schema.js feeds them), Ctrl/Cmd-Enter to
// run, and a lint marker at the position a syntax error names.

import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection, placeholder } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, syntaxHighlighting, defaultHighlightStyle, indentOnInput } from "@codemirror/language";
import { autocompletion, completionKeymap, closeBrackets, closeBracketsKeymap, closeCompletion } from "@codemirror/autocomplete";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { cypherLanguage, keywords } from "./cypher.js";

// vocabulary is what completion offers beyond keywords; schema.js fills it.
export const vocabulary = { labels: [], types: [], keys: [], functions: [] };

function complete(context) {
  const word = context.matchBefore(/[:$]?[\w`]*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  const text = word.text;
  const options = [];
  if (text.startsWith(":")) {
    for (const l of vocabulary.labels) options.push({ label: ":" + l, type: "class", detail: "label" });
    for (const t of vocabulary.types) options.push({ label: ":" + t, type: "type", detail: "relationship type" });
  } else {
    for (const k of keywords) options.push({ label: k, type: "keyword" });
    for (const f of vocabulary.functions) options.push({ label: f.name, type: "function", detail: f.signature, apply: f.name + "(" });
    for (const k of vocabulary.keys) options.push({ label: k, type: "property", detail: "property key" });
    for (const l of vocabulary.labels) options.push({ label: l, type: "class", detail: "label" });
    for (const t of vocabulary.types) options.push({ label: t, type: "type", detail: "relationship type" });
  }
  return { from: word.from, options, validFor: /^[:$]?[\w`]*$/ };
}

// styleNonce is the nonce the server gave this page for the <style>
// element CodeMirror writes its theme into (frontend/console/console.go).
function styleNonce() {
  const m = document.querySelector('meta[name="style-nonce"]');
  return m ? m.content : "";
}

// createEditor makes the editor in parent; run is called on Ctrl/Cmd-Enter.
export function createEditor(parent, doc, run) {
  const runKey = { key: "Mod-Enter", run: (v) => (closeCompletion(v), run(), true), preventDefault: true };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        autocompletion({ override: [complete], activateOnTyping: true }),
        highlightSelectionMatches(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        cypherLanguage,
        lintGutter(),
        placeholder("MATCH (n) RETURN n LIMIT 25"),
        keymap.of([runKey, ...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...searchKeymap]),
        EditorView.lineWrapping,
        EditorView.cspNonce.of(styleNonce()),
      ],
    }),
  });
  return view;
}

// closePopups closes the completion list (a run from a button leaves it
// open otherwise).
export function closePopups(view) {
  closeCompletion(view);
}

export function text(view) {
  return view.state.doc.toString();
}

export function setText(view, s) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: s }, selection: { anchor: s.length } });
  clearError(view);
  view.focus();
}

// showError marks an error's position ({line, column}, 1-based) in the
// editor, as a lint diagnostic over the word there; without a position
// the whole text is marked.
export function showError(view, message, position) {
  const doc = view.state.doc;
  let from = 0;
  let to = doc.length;
  if (position && position.line >= 1 && position.line <= doc.lines) {
    const line = doc.line(position.line);
    from = Math.min(line.from + Math.max((position.column || 1) - 1, 0), line.to);
    const rest = doc.sliceString(from, line.to);
    const m = /^[\w`$]+|^\S/.exec(rest);
    to = from + (m ? m[0].length : 0);
    if (to === from && from > line.from) from--;
  }
  view.dispatch(setDiagnostics(view.state, [{ from, to, severity: "error", message }]));
  const el = view.dom;
  el.dataset.errorLine = position ? String(position.line) : "";
  el.dataset.errorColumn = position ? String(position.column) : "";
}

export function clearError(view) {
  view.dispatch(setDiagnostics(view.state, []));
  delete view.dom.dataset.errorLine;
  delete view.dom.dataset.errorColumn;
}
