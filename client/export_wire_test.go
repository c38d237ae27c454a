package client

// StartFakeWireServer starts the stand-in wire server the examples run
// against (exported to the package's external tests only).
func StartFakeWireServer() (addr string, stop func()) {
	f, err := listenFakeWireServer(100)
	if err != nil {
		panic(err)
	}
	return f.addr(), func() { f.ln.Close() }
}

// WriteSelfSignedCert writes a test certificate and key (tlscert_test.go).
var WriteSelfSignedCert = writeSelfSignedCert
