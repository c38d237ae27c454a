package http

import (
	_ "embed"

	"github.com/valyala/fasthttp"
)

// The HTTP API's contract as an OpenAPI 3.1 document: openapi.json is
// the source of truth for the endpoints, bodies, result shapes, errors,
// headers and security schemes, served as is. The package's tests
// validate every request the suite sends and every answer it reads
// against it (openapi_check_test.go), and check that it names exactly
// the routes the server has, so that the API cannot drift from it.

// openAPIPath serves the document.
const openAPIPath = "/api/v1/openapi.json"

//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument is the HTTP API's OpenAPI document.
func OpenAPIDocument() []byte { return openAPIDocument }

// handleOpenAPI answers the document. It needs no credentials.
func (s *Server) handleOpenAPI(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("application/json")
	ctx.SetBody(openAPIDocument)
}
