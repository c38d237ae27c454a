package console

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

func get(t *testing.T, h *Handler, method, path string, gz bool) *fasthttp.Response {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	if gz {
		ctx.Request.Header.Set("Accept-Encoding", "gzip")
	}
	h.Serve(&ctx)
	resp := &fasthttp.Response{}
	ctx.Response.CopyTo(resp)
	return resp
}

var assetRef = regexp.MustCompile(`"(/console/console-[0-9a-f]{12}\.(js|css))"`)

// The page and its assets carry the policy and headers docs/console.md
// promises, the page names assets that exist, and each answer's style
// nonce is its own.
func TestPageAndAssets(t *testing.T) {
	h := New()
	page := get(t, h, "GET", "/", false)
	if page.StatusCode() != 200 || !strings.HasPrefix(string(page.Header.ContentType()), "text/html") {
		t.Fatalf("GET / answered %d %s", page.StatusCode(), page.Header.ContentType())
	}
	csp := string(page.Header.Peek("Content-Security-Policy"))
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("the page's CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
		t.Errorf("the page's CSP allows inline code or another origin: %q", csp)
	}
	m := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(csp)
	if m == nil || !bytes.Contains(page.Body(), []byte(`<meta name="style-nonce" content="`+m[1]+`">`)) {
		t.Fatalf("the page does not carry its CSP's style nonce (%q)", csp)
	}
	if again := get(t, h, "GET", "/", false); string(again.Header.Peek("Content-Security-Policy")) == csp {
		t.Error("two answers share a style nonce")
	}
	if bytes.Contains(page.Body(), []byte("<script>")) || bytes.Contains(page.Body(), []byte(" style=")) {
		t.Error("the page has inline script or a style attribute")
	}
	for _, hd := range [][2]string{{"X-Content-Type-Options", "nosniff"}, {"X-Frame-Options", "DENY"}, {"Cache-Control", "no-cache"}} {
		if got := string(page.Header.Peek(hd[0])); got != hd[1] {
			t.Errorf("the page's %s is %q, want %q", hd[0], got, hd[1])
		}
	}
	refs := assetRef.FindAllStringSubmatch(string(page.Body()), -1)
	if len(refs) != 2 {
		t.Fatalf("the page names %d hashed assets, want a script and a style sheet", len(refs))
	}
	for _, ref := range refs {
		plain := get(t, h, "GET", ref[1], false)
		zipped := get(t, h, "GET", ref[1], true)
		if plain.StatusCode() != 200 || zipped.StatusCode() != 200 {
			t.Fatalf("%s: %d, %d", ref[1], plain.StatusCode(), zipped.StatusCode())
		}
		if cc := string(plain.Header.Peek("Cache-Control")); !strings.Contains(cc, "immutable") {
			t.Errorf("%s is cached as %q", ref[1], cc)
		}
		if string(zipped.Header.Peek("Content-Encoding")) != "gzip" {
			t.Fatalf("%s is not compressed for a client that accepts gzip", ref[1])
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.Body()))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, plain.Body()) {
			t.Fatalf("%s: the compressed answer is not the file (%v)", ref[1], err)
		}
		want := map[string]string{"js": "text/javascript", "css": "text/css"}[ref[2]]
		if ct := string(plain.Header.ContentType()); !strings.HasPrefix(ct, want) {
			t.Errorf("%s is served as %q, want %s", ref[1], ct, want)
		}
		if plain.Header.Peek("Content-Security-Policy") == nil || string(plain.Header.Peek("X-Content-Type-Options")) != "nosniff" {
			t.Errorf("%s lacks the CSP or nosniff", ref[1])
		}
	}
	if lic := get(t, h, "GET", "/console/THIRD_PARTY_LICENSES.md", false); lic.StatusCode() != 200 || !bytes.Contains(lic.Body(), []byte("cytoscape")) {
		t.Errorf("the licences are not served: %d", lic.StatusCode())
	}
}

func TestUnknownPathsAndMethods(t *testing.T) {
	h := New()
	for _, p := range []string{"/console/", "/console/nope.js", "/console/../index.html"} {
		if r := get(t, h, "GET", p, false); r.StatusCode() != 404 {
			t.Errorf("GET %s answered %d, want 404", p, r.StatusCode())
		}
	}
	if r := get(t, h, "POST", "/", false); r.StatusCode() != 405 || string(r.Header.Peek("Allow")) != "GET, HEAD" {
		t.Errorf("POST / answered %d (Allow %q)", r.StatusCode(), r.Header.Peek("Allow"))
	}
	if r := get(t, h, "HEAD", "/", false); r.StatusCode() != 200 || len(r.Body()) != 0 {
		t.Errorf("HEAD / answered %d with %d bytes", r.StatusCode(), len(r.Body()))
	}
	for p, want := range map[string]bool{"/": true, "/console/x": true, "/api/v1/query": false, "/query": false, "/consolex": false, "/index.html": false} {
		if h.Owns([]byte(p)) != want {
			t.Errorf("Owns(%s) = %v", p, !want)
		}
	}
}
