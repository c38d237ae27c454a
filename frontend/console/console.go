// Package console serves the web console: the built assets of dist/
// (made by `make console` from src/, see build/), embedded in the binary
// so that the server needs no Node.js and no network. The page is served
// at / and its assets under /console/, with a Content-Security-Policy
// that allows nothing but this origin's own script, style and API (no
// inline script or style, no third-party origin, no framing).
package console

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/valyala/fasthttp"
)

//go:embed dist
var dist embed.FS

// CSP is the Content-Security-Policy of every console answer but the
// page's, which adds its style nonce (pageCSP). Styles that cytoscape and
// CodeMirror set on elements go through the CSSOM (element.style), which
// style-src allows; markup carries no style attribute. Images: cytoscape
// draws on canvas, and data: URLs are the only images the page makes.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// nonceMark stands in index.html where each answer puts its own nonce: a
// meta element the script reads. CodeMirror's style-mod writes the
// editor's theme into a <style> element, which it marks with the nonce it
// is given (EditorView.cspNonce); only that element may apply styles
// besides the bundle's own style sheet. No inline script is allowed at
// all.
const nonceMark = "__STYLE_NONCE__"

// pageCSP is the page's policy with its style nonce.
func pageCSP(nonce string) string {
	return strings.Replace(CSP, "style-src 'self'", "style-src 'self' 'nonce-"+nonce+"'", 1)
}

// asset is one file of dist, with its gzip form when that is smaller.
type asset struct {
	body, gzipped []byte
	ctype         string
	immutable     bool // its name carries its content's hash
}

// Handler serves the console's files.
type Handler struct {
	assets map[string]asset // by URL path
}

// New loads the embedded assets (compressing them once).
func New() *Handler {
	h := &Handler{assets: map[string]asset{}}
	entries, err := fs.ReadDir(dist, "dist")
	if err != nil {
		panic("console: the embedded dist is unreadable: " + err.Error())
	}
	for _, e := range entries {
		name := e.Name()
		body, err := fs.ReadFile(dist, "dist/"+name)
		if err != nil {
			panic("console: " + err.Error())
		}
		a := asset{body: body, ctype: mime.TypeByExtension(path.Ext(name)), immutable: strings.HasPrefix(name, "console-")}
		if strings.HasSuffix(name, ".md") {
			a.ctype = "text/markdown; charset=utf-8"
		}
		if a.ctype == "" {
			a.ctype = "application/octet-stream"
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		if buf.Len() < len(body) {
			a.gzipped = buf.Bytes()
		}
		if name == "index.html" {
			if !bytes.Contains(body, []byte(nonceMark)) {
				panic("console: the embedded index.html has no " + nonceMark)
			}
			a.gzipped = nil // each answer writes its own nonce into it
			h.assets["/"] = a
		}
		h.assets["/console/"+name] = a
	}
	if _, ok := h.assets["/"]; !ok {
		panic("console: the embedded dist has no index.html")
	}
	return h
}

// Owns reports whether a path is the console's: / and /console/….
// Everything else (the API) is not.
func (h *Handler) Owns(p []byte) bool {
	return string(p) == "/" || bytes.HasPrefix(p, []byte("/console/"))
}

// Serve answers a request for one of the console's paths.
func (h *Handler) Serve(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Error("method not allowed\n", fasthttp.StatusMethodNotAllowed) // Error resets the headers: set them after
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		setHeaders(&ctx.Response.Header, CSP)
		return
	}
	a, ok := h.assets[string(ctx.Path())]
	if !ok {
		ctx.Error("not found\n", fasthttp.StatusNotFound)
		setHeaders(&ctx.Response.Header, CSP)
		return
	}
	hd := &ctx.Response.Header
	body, csp := a.body, CSP
	if bytes.Contains(body, []byte(nonceMark)) {
		nonce := newNonce()
		csp = pageCSP(nonce)
		body = bytes.ReplaceAll(body, []byte(nonceMark), []byte(nonce))
	}
	setHeaders(hd, csp)
	hd.SetContentType(a.ctype)
	if a.immutable {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache") // the page names the current bundle: always revalidated
	}
	hd.Set("Vary", "Accept-Encoding")
	if a.gzipped != nil && ctx.Request.Header.HasAcceptEncoding("gzip") {
		hd.Set("Content-Encoding", "gzip")
		body = a.gzipped
	}
	if ctx.IsHead() {
		hd.SetContentLength(len(body))
		return
	}
	ctx.SetBody(body)
}

// setHeaders sets the headers of every console answer.
func setHeaders(hd *fasthttp.ResponseHeader, csp string) {
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// newNonce answers 128 random bits, base64: a CSP nonce.
func newNonce() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("console: no randomness: " + err.Error())
	}
	return base64.StdEncoding.EncodeToString(b[:])
}
