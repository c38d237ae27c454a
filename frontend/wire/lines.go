package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errLineTooLong is the end of a connection whose client sent a line
// longer than the limit: the server reads no further than the limit, so
// it cannot find where the next message starts.
var errLineTooLong = errors.New("wire: line too long")

// lineReader reads newline-terminated lines of at most max bytes. Memory
// is the bufio buffer plus one line: a longer line is refused when its
// first max+1 bytes are in, not after.
type lineReader struct {
	br   *bufio.Reader
	max  int
	line []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 32<<10), max: max}
}

// next returns the next line that is not blank, without its "\n" or
// "\r\n". The slice is valid until the following call. A last line
// without a newline before EOF counts as a line.
func (l *lineReader) next() ([]byte, error) {
	for {
		line, err := l.read()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (l *lineReader) read() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		if len(l.line)+len(chunk) > l.max+2 { // +2: the "\r\n" is not the line's
			l.line = l.line[:0]
			return nil, errLineTooLong
		}
		l.line = append(l.line, chunk...)
		switch {
		case err == nil:
			line := bytes.TrimSuffix(bytes.TrimSuffix(l.line, []byte{'\n'}), []byte{'\r'})
			if len(line) > l.max {
				return nil, errLineTooLong
			}
			l.shrink()
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(l.line) > 0:
			if len(l.line) > l.max {
				return nil, errLineTooLong
			}
			return l.line, nil
		default:
			return nil, err
		}
	}
}

// shrink drops a line buffer that grew past what ordinary messages need,
// so that one large query does not pin a megabyte per idle session.
func (l *lineReader) shrink() {
	if cap(l.line) > 256<<10 {
		l.line = nil
	}
}
