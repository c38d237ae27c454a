package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// wireLines speaks the wire protocol over TCP at the level of its lines:
// it reads each message without decoding its rows, pulls when the server
// waits, and takes the row count from SUCCESS. Beside the Go client's
// numbers it shows what the protocol costs without a client's decoding,
// as the HTTP measurement reads bytes.
type wireLines struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
}

// DialWireLines is a ProtocolClient reading the wire protocol's lines.
func DialWireLines(ctx context.Context, addr string) (ProtocolClient, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &wireLines{conn: conn, r: bufio.NewReaderSize(conn, 1<<20), w: bufio.NewWriter(conn)}
	if _, err := p.send(`{"type":"HELLO","version":"1.0"}`); err != nil {
		conn.Close()
		return nil, err
	}
	line, err := p.line()
	if err != nil || !bytes.HasPrefix(line, []byte(`{"type":"WELCOME"`)) {
		conn.Close()
		return nil, fmt.Errorf("no WELCOME: %s %v", line, err)
	}
	return p, nil
}

func (p *wireLines) send(msg string) (int, error) {
	p.conn.SetDeadline(time.Now().Add(time.Minute))
	n, _ := p.w.WriteString(msg + "\n")
	return n, p.w.Flush()
}

// line reads one message; a line longer than the buffer is read whole.
func (p *wireLines) line() ([]byte, error) {
	line, err := p.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = p.r.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

func (p *wireLines) RoundTrip(ctx context.Context) error {
	_, err := p.Stream(ctx, TrivialQuery)
	return err
}

func (p *wireLines) Stream(ctx context.Context, query string) (int64, error) {
	if _, err := p.send(`{"type":"RUN_GQL","query":` + strconv.Quote(query) + `,"params":{}}`); err != nil {
		return 0, err
	}
	for {
		line, err := p.line()
		if err != nil {
			return 0, err
		}
		switch {
		case bytes.HasPrefix(line, []byte(`{"type":"BINDINGS"`)):
			if bytes.Contains(line[max(0, len(line)-32):], []byte(`"has_more":true`)) {
				if _, err := p.send(`{"type":"PULL","n":1000}`); err != nil {
					return 0, err
				}
			}
		case bytes.HasPrefix(line, []byte(`{"type":"SUCCESS"`)):
			i := bytes.Index(line, []byte(`"rows":`))
			if i < 0 {
				return 0, fmt.Errorf("SUCCESS without rows: %s", line)
			}
			rest := line[i+len(`"rows":`):]
			j := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
			return strconv.ParseInt(string(rest[:max(j, 0)]), 10, 64)
		case bytes.HasPrefix(line, []byte(`{"type":"ERROR"`)):
			return 0, fmt.Errorf("%s", bytes.TrimSpace(line))
		}
	}
}

func (p *wireLines) Close() error { return p.conn.Close() }
